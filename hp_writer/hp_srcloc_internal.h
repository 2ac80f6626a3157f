/* hp_srcloc_internal: the table the two files of hp_srcloc share. */
#ifndef HP_SRCLOC_INTERNAL_H
#define HP_SRCLOC_INTERNAL_H
#include <stdatomic.h>
#include <stdint.h>

#include "core/hp_mem.h"

typedef struct hp_srcloc_entry { uintptr_t pc; const char *where; } hp_srcloc_entry;
typedef struct hp_srcloc_table {
    hp_vec vec;                       /* hp_srcloc_entry[cap], cap a power of two */
    _Atomic uint64_t published_cap;   /* 0 until the table is complete */
    const char *status;
    uint64_t found;
    uint64_t c_library;               /* frames in the C library: not looked up */
} hp_srcloc_table;
extern hp_srcloc_table hp_srcloc_;

#endif
