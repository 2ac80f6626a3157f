/* gc_chain.h: a chain of collectable objects, for the retainer tests'
 * programs (tests/progs/) that give each retainer a known number of bytes
 * to hold. Each object's first word points at the one made before it. */
#ifndef HP_GC_CHAIN_H
#define HP_GC_CHAIN_H

#include <gc/gc.h>
#include <stddef.h>

/* n objects of `size` bytes (at least a pointer's) chained into *head;
 * returns the bytes the collector granted them (GC_size). */
__attribute__((unused)) static size_t prog_chain(void **head, int n, size_t size)
{
    size_t bytes = 0;
    *head = NULL;
    for (int i = 0; i < n; i++) {
        void **x = GC_MALLOC(size);
        x[0] = *head;
        *head = x;
        bytes += GC_size(x);
    }
    return bytes;
}

#endif
