/* hp_fde: every function's span in a module, from its unwind tables, for
 * modules without symbols (Debian's libraries and programs are stripped).
 *
 * The linker writes a sorted search table of the module's FDEs (frame
 * description entries of .eh_frame, one per function, or per part of a
 * function the compiler split off) into .eh_frame_hdr, the PT_GNU_EH_FRAME
 * segment; each FDE gives its code's start and length. hp_fde_read reads
 * them from the module's file (not from its mapping, which dlclose may
 * take away) into profiler memory. Signal-safe: no lock, no malloc. */
#ifndef HP_FDE_H
#define HP_FDE_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_mem.h"

typedef struct hp_fde_span {
    uint64_t start;   /* ELF virtual address (the module's, before load bias) */
    uint64_t size;
} hp_fde_span;

/* The FDE spans of the ELF image `img` (a whole file, `len` bytes), sorted
 * by start, into *out (from `arena`): their count, 0 when the image has no
 * search table heapprof can read (then *out is NULL). */
uint32_t hp_fde_read(const unsigned char *img, size_t len, hp_arena *arena, hp_fde_span **out);

/* The index of the span covering virtual address `v`, or -1. */
long hp_fde_find(const hp_fde_span *spans, uint32_t n, uint64_t v);

#endif
