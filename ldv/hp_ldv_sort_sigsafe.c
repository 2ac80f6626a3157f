/* hp_ldv_sort_sigsafe: the protect pass's sort of address-index entries by
 * base, in place. The index is, after the records, the largest thing ldv
 * keeps (16 bytes a live object); a sort that needs a second buffer of
 * its size costs as much again at every pass that sorts it (trees.c 18:
 * 16.5 MB of the 100 MB ldv held at the most).
 *
 * Algorithm: MSD radix sort, the "American flag sort" of McIlroy, Bostic
 * and McIlroy ("Engineering radix sort", Computing Systems 6(1), 1993),
 * on the key base - min. The first digit is the key's top bits (16, or 11
 * for fewer than 65,536 entries: clearing and summing 65,536 counters
 * would cost more than the sort), the next ones 8 bits each within every
 * bucket of more than HP_SORT_SMALL entries; a bucket of at most that
 * many is finished by insertion sort on the base itself. A level counts
 * its digits, then moves each entry to its bucket by following cycles of
 * swaps: an entry is moved at most once a level.
 *
 * Invariant of a level's permutation: for every digit d, the entries in
 * [start of d, next[d]) have digit d; the level ends when every next[d]
 * reached its bucket's end. Bases are distinct (one entry a live object),
 * so the order is total.
 *
 * Collector callback (lock held, world stopped): no malloc, no lock, no
 * stack arrays (the collecting thread's stack may be small): the counters
 * are the caller's `work` (HP_LDV_SORT_WORK words). */
#include "ldv/hp_ldv_internal.h"

#include <string.h>

#define HP_SORT_SMALL 32
#define HP_SORT_FIRST_BITS 16
#define HP_SORT_LEVEL_BITS 8

static void insertion(hp_ldv_ent *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hp_ldv_ent x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].base > x.base) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* One level: a[0, n) by the digit ((base - mn) >> shift) & (2^bits - 1),
 * then each bucket by the bits below. `end` and `next` hold 2^bits words
 * each; deeper levels use the words after them. */
static void level(hp_ldv_ent *a, size_t n, uintptr_t mn, unsigned shift, unsigned bits,
                  size_t *end, size_t *next)
{
    size_t nb = (size_t)1 << bits, mask = nb - 1;
    memset(end, 0, nb * sizeof *end);
    for (size_t i = 0; i < n; i++) end[((a[i].base - mn) >> shift) & mask]++;
    size_t sum = 0;
    for (size_t d = 0; d < nb; d++) { next[d] = sum; sum += end[d]; end[d] = sum; }
    for (size_t d = 0; d < nb; d++) {
        while (next[d] < end[d]) {
            hp_ldv_ent x = a[next[d]];
            size_t k = ((x.base - mn) >> shift) & mask;
            while (k != d) {   /* x goes to its bucket; carry what was there */
                hp_ldv_ent t = a[next[k]];
                a[next[k]++] = x;
                x = t;
                k = ((x.base - mn) >> shift) & mask;
            }
            a[next[d]++] = x;
        }
    }
    if (shift == 0) return;
    unsigned sub = shift < HP_SORT_LEVEL_BITS ? shift : HP_SORT_LEVEL_BITS;
    size_t from = 0;
    for (size_t d = 0; d < nb; d++) {
        size_t m = end[d] - from;
        if (m > HP_SORT_SMALL)
            level(a + from, m, mn, shift - sub, sub, end + nb + nb, end + nb + nb + ((size_t)1 << sub));
        else if (m > 1)
            insertion(a + from, m);
        from = end[d];
    }
}

void hp_ldv_sort_ents(hp_ldv_ent *a, size_t n, size_t *work)
{
    if (n <= HP_SORT_SMALL) { insertion(a, n); return; }
    uintptr_t mn = UINTPTR_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].base < mn) mn = a[i].base;
        if (a[i].base > mx) mx = a[i].base;
    }
    unsigned kbits = mx == mn ? 1 : 64 - (unsigned)__builtin_clzl(mx - mn);
    unsigned bits = n >= 65536 ? HP_SORT_FIRST_BITS : 11;
    if (bits > kbits) bits = kbits;
    /* The first level's counters, then 2 x 256 words for each deeper one:
     * at most (64 - 11) / 8 + 1 = 7 of them (HP_LDV_SORT_WORK). */
    level(a, n, mn, kbits - bits, bits, work, work + ((size_t)1 << bits));
}
