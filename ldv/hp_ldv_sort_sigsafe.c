/* hp_ldv_sort_sigsafe: the protect pass's sort of address-index entries by
 * base (their granule, Note [Eight-byte entries] in hp_ldv_internal.h), in
 * place. The index is, after the records, the largest thing ldv keeps (8
 * bytes a live object); a sort that needs a second buffer of its size
 * costs as much again at every pass that sorts it (trees.c 18: 16.5 MB of
 * the 100 MB ldv held at the most, with 16-byte entries).
 *
 * Algorithm: MSD radix sort, the "American flag sort" of McIlroy, Bostic
 * and McIlroy ("Engineering radix sort", Computing Systems 6(1), 1993),
 * on the key (gran - min) >> low, `low` the low zero bits every key
 * shares. Digits are 8 bits each, from the top, within every bucket of
 * more than HP_SORT_SMALL entries; a bucket of at most that many is
 * finished by insertion sort on the granule itself. A
 * level counts its digits, then moves each entry to its bucket by
 * following cycles of swaps: an entry is moved at most once a level.
 *
 * Why 8 bits at every level. A level writes its entries at 2^bits
 * frontiers, one per bucket, each moving forward through its bucket:
 * 256 of them stay in the caches (and each is asked for 16 entries ahead),
 * where the 65,536 of a 16-bit first level were a cache miss a move (a
 * heap of 256 MiB, 2 million entries: 93-131 -> 36-44 ns an entry; the
 * protect passes of Guile's 400k-entry hash table spent 380 ms sorting).
 * The counters are 2 x 256 words a level (at most 8 levels) instead of
 * 1 MiB for the first (at most 4 levels: a key has 32 bits). An input
 * already sorted is left as it is (the scan for the key's range sees it).
 *
 * Invariant of a level's permutation: for every digit d, the entries in
 * [start of d, next[d]) have digit d; the level ends when every next[d]
 * reached its bucket's end. Granules are distinct (one entry a live
 * object), so the order is total.
 *
 * Collector callback (lock held, world stopped): no malloc, no lock, no
 * stack arrays (the collecting thread's stack may be small): the counters
 * are the caller's `work` (HP_LDV_SORT_WORK words). */
#include "ldv/hp_ldv_internal.h"

#include <string.h>

#define HP_SORT_SMALL 32
#define HP_SORT_BITS 8
#define HP_SORT_AHEAD 16   /* entries a frontier is asked for ahead of its writes */

static void insertion(hp_ldv_ent *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hp_ldv_ent x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].gran > x.gran) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* One level: a[0, n) by the digit ((gran - mn) >> shift) & (2^bits - 1),
 * then each bucket by the bits below, down to bit `low` (the bits below
 * it are the same in every key). `end` and `next` hold 2^bits words each;
 * deeper levels use the words after them. */
static void level(hp_ldv_ent *a, size_t n, uint32_t mn, unsigned shift, unsigned bits,
                  unsigned low, size_t *end, size_t *next)
{
    size_t nb = (size_t)1 << bits, mask = nb - 1;
    memset(end, 0, nb * sizeof *end);
    for (size_t i = 0; i < n; i++) end[((a[i].gran - mn) >> shift) & mask]++;
    size_t sum = 0;
    for (size_t d = 0; d < nb; d++) { next[d] = sum; sum += end[d]; end[d] = sum; }
    for (size_t d = 0; d < nb; d++) {
        while (next[d] < end[d]) {
            hp_ldv_ent x = a[next[d]];
            size_t k = ((x.gran - mn) >> shift) & mask;
            while (k != d) {   /* x goes to its bucket; carry what was there */
                /* (a hint, which may lie past the array: by address) */
                __builtin_prefetch((const void *)((uintptr_t)(a + next[k]) +
                                                  HP_SORT_AHEAD * sizeof *a), 1);
                hp_ldv_ent t = a[next[k]];
                a[next[k]++] = x;
                x = t;
                k = ((x.gran - mn) >> shift) & mask;
            }
            a[next[d]++] = x;
        }
    }
    if (shift <= low) return;
    unsigned sub = shift - low < HP_SORT_BITS ? shift - low : HP_SORT_BITS;
    size_t from = 0;
    for (size_t d = 0; d < nb; d++) {
        size_t m = end[d] - from;
        if (m > HP_SORT_SMALL)
            level(a + from, m, mn, shift - sub, sub, low, end + nb + nb,
                  end + nb + nb + ((size_t)1 << sub));
        else if (m > 1)
            insertion(a + from, m);
        from = end[d];
    }
}

void hp_ldv_sort_ents(hp_ldv_ent *a, size_t n, size_t *work)
{
    if (n <= HP_SORT_SMALL) { insertion(a, n); return; }
    uint32_t mn = UINT32_MAX, mx = 0, bits_set = 0;
    size_t descents = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b = a[i].gran;
        if (b < mn) mn = b;
        if (b > mx) mx = b;
        bits_set |= b;
        descents += i && b < a[i - 1].gran;
    }
    if (!descents) return;   /* (sorted already) */
    /* Every key (gran - mn) is a multiple of 2^low when every gran is. */
    unsigned kbits = 32 - (unsigned)__builtin_clz(mx - mn);   /* (mx > mn: a descent) */
    unsigned low = (unsigned)__builtin_ctz(bits_set | (1u << 31));
    if (low >= kbits) low = kbits - 1;
    unsigned bits = kbits - low < HP_SORT_BITS ? kbits - low : HP_SORT_BITS;
    level(a, n, mn, kbits - bits, bits, low, work, work + ((size_t)1 << bits));
}
