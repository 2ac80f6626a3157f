/* hp_ccnames: names of explicit cost centres (heapprof_cc_push), interned:
 * the same text always gets the same id; names are copied. */
#ifndef HP_CCNAMES_H
#define HP_CCNAMES_H
#include <stdatomic.h>
#include <stdint.h>

int hp_ccnames_init(void);
/* Id of `name` (at most 255 bytes kept); UINT32_MAX if out of memory. */
uint32_t hp_ccnames_intern(const char *name);
#define HP_CCNAMES_CAP (1u << 16)   /* distinct names */
typedef struct hp_ccnames_table {
    const char *names[HP_CCNAMES_CAP];
    _Atomic uint32_t count;
} hp_ccnames_table;
extern hp_ccnames_table hp_ccnames_;

/* The name with this id (lock-free, inline: signal-safe). */
static inline const char *hp_ccnames_get(uint32_t id)
{
    if (id >= atomic_load_explicit(&hp_ccnames_.count, memory_order_acquire)) return "UNKNOWN";
    return hp_ccnames_.names[id];
}

#endif
