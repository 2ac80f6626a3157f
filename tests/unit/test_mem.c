/* Unit tests for core/hp_mem: hp_vec (a growable array at a fixed
 * address, committed on demand, trimmable) and hp_arena (16-byte aligned
 * bump allocation that returns NULL when its reservation is used up). */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/hp_mem.h"

Test(mem, vec_reserve_commits_nothing)
{
    hp_vec v = {0};
    size_t before = hp_mem_committed();
    cr_assert_eq(hp_vec_reserve(&v, (size_t)64 << 20), 0);
    cr_assert_not_null(v.base);
    cr_assert_eq(v.reserved, (size_t)64 << 20);
    cr_assert_eq(v.committed, 0);
    cr_assert_eq(hp_mem_committed(), before);
    /* Reservations are rounded up to whole pages. */
    hp_vec w = {0};
    cr_assert_eq(hp_vec_reserve(&w, 5000), 0);
    cr_assert_eq(w.reserved % (size_t)sysconf(_SC_PAGESIZE), 0);
    cr_assert_geq(w.reserved, 5000);
}

Test(mem, vec_unreserved_refuses)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_ensure(&v, 0), 0);     /* nothing asked: fine */
    cr_assert_eq(hp_vec_ensure(&v, 1), -1);
    cr_assert_null(v.base);
}

Test(mem, vec_grows_keeps_contents_and_address)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)256 << 20), 0);
    unsigned char *base = v.base;
    size_t before = hp_mem_committed();
    size_t sizes[] = {1, 100, 4096, 300000, 1 << 20, 5000000, 40000000};
    size_t filled = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t want = sizes[k];
        cr_assert_eq(hp_vec_ensure(&v, want), 0, "ensure %zu", want);
        cr_assert_eq(v.base, base, "vec moved");
        cr_assert_geq(v.committed, want);
        cr_assert_leq(v.committed, v.reserved);
        cr_assert_eq(v.committed % 4096, 0);
        cr_assert_eq(hp_mem_committed() - before, v.committed);
        /* Earlier contents intact; then fill the new part. */
        for (size_t i = 0; i < filled; i++)
            cr_assert_eq(v.base[i], (unsigned char)(i * 7 + 3), "byte %zu lost", i);
        for (size_t i = filled; i < want; i++) v.base[i] = (unsigned char)(i * 7 + 3);
        filled = want;
    }
    /* Asking for less, or the same, changes nothing. */
    size_t c = v.committed;
    cr_assert_eq(hp_vec_ensure(&v, 10), 0);
    cr_assert_eq(hp_vec_ensure(&v, c), 0);
    cr_assert_eq(v.committed, c);
    /* The whole reservation can be committed, but not a byte more. */
    cr_assert_eq(hp_vec_ensure(&v, v.reserved), 0);
    cr_assert_eq(v.committed, v.reserved);
    cr_assert_eq(hp_vec_ensure(&v, v.reserved + 1), -1);
    cr_assert_eq(v.committed, v.reserved);
    v.base[v.reserved - 1] = 0x7e;
    cr_assert_eq(v.base[v.reserved - 1], 0x7e);
}

Test(mem, vec_beyond_reservation_refused)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)1 << 20), 0);
    cr_assert_eq(hp_vec_ensure(&v, ((size_t)1 << 20) + 1), -1);
    cr_assert_eq(v.committed, 0);
    cr_assert_eq(hp_vec_ensure(&v, (size_t)1 << 20), 0);
    cr_assert_eq(v.committed, (size_t)1 << 20);
}

Test(mem, vec_trim_returns_memory_and_regrows_zeroed)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)64 << 20), 0);
    size_t big = (size_t)16 << 20;
    cr_assert_eq(hp_vec_ensure(&v, big), 0);
    memset(v.base, 0xab, v.committed);
    size_t total = hp_mem_committed(), was = v.committed;
    hp_vec_trim(&v, 1000);
    cr_assert_lt(v.committed, was);
    cr_assert_geq(v.committed, 1000);
    cr_assert_eq(hp_mem_committed(), total - (was - v.committed));
    for (size_t i = 0; i < 1000; i++) cr_assert_eq(v.base[i], 0xab);
    /* Trimming to more than is committed does nothing. */
    size_t c = v.committed;
    hp_vec_trim(&v, big);
    cr_assert_eq(v.committed, c);
    /* Growing again: same address, kept bytes intact, new bytes zero. */
    unsigned char *base = v.base;
    cr_assert_eq(hp_vec_ensure(&v, big), 0);
    cr_assert_eq(v.base, base);
    for (size_t i = 0; i < c; i++) cr_assert_eq(v.base[i], 0xab);
    for (size_t i = c; i < big; i += 4096) cr_assert_eq(v.base[i], 0, "byte %zu not zero", i);
    cr_assert_eq(v.base[big - 1], 0);
    /* Trim to nothing. */
    hp_vec_trim(&v, 0);
    cr_assert_eq(v.committed, 0);
    cr_assert_eq(hp_mem_committed(), total - was);
}

/* Trimmed pages are really given up: touching them faults. */
Test(mem, vec_trimmed_pages_fault, .signal = SIGSEGV)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)64 << 20), 0);
    cr_assert_eq(hp_vec_ensure(&v, (size_t)16 << 20), 0);
    hp_vec_trim(&v, 0);
    volatile unsigned char *p = v.base + ((size_t)8 << 20);
    *p = 1;
    cr_assert_fail("write to a trimmed page did not fault");
}

Test(mem, arena_alignment)
{
    hp_arena a;
    cr_assert_eq(hp_arena_init(&a, (size_t)1 << 20), 0);
    unsigned char *p0 = hp_arena_alloc(&a, 1);
    cr_assert_not_null(p0);
    cr_assert_eq((uintptr_t)p0 % 16, 0);
    p0[0] = 0xee;
    size_t sizes[] = {1, 3, 15, 16, 17, 31, 33, 100, 7, 4096, 5};
    unsigned char *prev = p0;
    size_t prev_n = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned char *p = hp_arena_alloc(&a, sizes[k]);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % 16, 0, "block of %zu not aligned", sizes[k]);
        /* Packed: the next 16-byte boundary after the previous block. */
        cr_assert_eq((size_t)(p - prev), (prev_n + 15) / 16 * 16);
        memset(p, (int)k, sizes[k]);
        prev = p;
        prev_n = sizes[k];
    }
    cr_assert_eq(p0[0], 0xee);   /* untouched by later blocks */
    cr_assert_eq(a.used, (size_t)(prev - p0) + prev_n);
}

Test(mem, arena_blocks_do_not_overlap)
{
    hp_arena a;
    cr_assert_eq(hp_arena_init(&a, (size_t)8 << 20), 0);
    unsigned char *blk[1000];
    for (int i = 0; i < 1000; i++) {
        size_t n = 1 + (size_t)(i * 37 % 500);
        blk[i] = hp_arena_alloc(&a, n);
        cr_assert_not_null(blk[i]);
        memset(blk[i], i & 0xff, n);
    }
    for (int i = 0; i < 1000; i++) {
        size_t n = 1 + (size_t)(i * 37 % 500);
        for (size_t j = 0; j < n; j++)
            cr_assert_eq(blk[i][j], (unsigned char)(i & 0xff), "block %d byte %zu", i, j);
    }
}

Test(mem, arena_exhaustion_returns_null)
{
    hp_arena a;
    size_t cap = (size_t)1 << 20;
    cr_assert_eq(hp_arena_init(&a, cap), 0);
    cr_assert_eq(a.vec.reserved, cap);
    unsigned char *p = hp_arena_alloc(&a, cap - 32);
    cr_assert_not_null(p);
    cr_assert_null(hp_arena_alloc(&a, 33));       /* 32 bytes are left */
    unsigned char *q = hp_arena_alloc(&a, 32);     /* exactly the rest */
    cr_assert_not_null(q);
    cr_assert_eq(q, p + cap - 32);
    q[31] = 1;
    cr_assert_null(hp_arena_alloc(&a, 1));
    cr_assert_null(hp_arena_alloc(&a, 1));
    cr_assert_eq(a.used, cap);
    /* A failed allocation does not consume anything. */
    hp_arena b;
    cr_assert_eq(hp_arena_init(&b, cap), 0);
    cr_assert_null(hp_arena_alloc(&b, cap + 1));
    cr_assert_eq(b.used, 0);
    cr_assert_not_null(hp_arena_alloc(&b, cap));
    cr_assert_null(hp_arena_alloc(&b, 1));
}

/* Address space, in bytes, from /proc/self/statm (VmSize). */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    size_t pages = 0;
    cr_assert_not_null(f);
    cr_assert_eq(fscanf(f, "%zu", &pages), 1);
    fclose(f);
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Claiming addresses maps nothing: the program's RLIMIT_AS sees only what
 * is committed (it saw 175 GB of reservations before). */
Test(mem, reserve_takes_no_address_space)
{
    size_t before = vm_size();
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)1 << 40), 0);
    cr_assert_leq(vm_size(), before + ((size_t)1 << 20));
    cr_assert_eq(hp_vec_ensure(&v, (size_t)8 << 20), 0);
    size_t grown = vm_size() - before;
    cr_assert_geq(grown, (size_t)8 << 20);
    cr_assert_leq(grown, (size_t)9 << 20);
    hp_vec_trim(&v, 0);
    cr_assert_leq(vm_size(), before + ((size_t)1 << 20));
}

/* Slots never overlap, and a mapping made by someone else in a vec's slot is
 * never replaced: growth into it fails and the other mapping is intact. */
Test(mem, slots_are_disjoint_and_never_replace_a_mapping)
{
    hp_vec a = {0}, b = {0};
    cr_assert_eq(hp_vec_reserve(&a, (size_t)1 << 30), 0);
    cr_assert_eq(hp_vec_reserve(&b, (size_t)1 << 30), 0);
    cr_assert(a.base + a.reserved <= b.base || b.base + b.reserved <= a.base);
    cr_assert_eq(hp_vec_ensure(&a, 4096), 0);
    unsigned char *theirs = mmap(a.base + ((size_t)4 << 20), 4096, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    cr_assert_eq(theirs, a.base + ((size_t)4 << 20));
    theirs[0] = 0x5a;
    cr_assert_eq(hp_vec_ensure(&a, (size_t)8 << 20), -1);
    cr_assert_eq(theirs[0], 0x5a);
    /* What fits before the other mapping can still be had. */
    cr_assert_eq(hp_vec_ensure(&a, (size_t)2 << 20), 0);
    a.base[((size_t)2 << 20) - 1] = 1;
    munmap(theirs, 4096);
}

/* A vec with grow_pct grows by that share of what it has committed (in
 * 256 KiB steps), not double: the record table's slack stays under a
 * fifth of it. Without, it doubles. */
Test(mem, vec_grows_by_its_share)
{
    hp_vec v = {0};
    cr_assert_eq(hp_vec_reserve(&v, (size_t)1 << 32), 0);
    v.grow_pct = 25;
    cr_assert_eq(hp_vec_ensure(&v, (size_t)4 << 20), 0);
    cr_assert_eq(v.committed, (size_t)4 << 20);
    cr_assert_eq(hp_vec_ensure(&v, ((size_t)4 << 20) + 1), 0);
    cr_assert_eq(v.committed, (size_t)5 << 20, "committed %zu", v.committed);
    cr_assert_eq(hp_vec_ensure(&v, ((size_t)5 << 20) + 1), 0);
    cr_assert_eq(v.committed, ((size_t)25 << 20) / 4,   /* 5 MiB + 1.25 MiB */
                 "committed %zu", v.committed);
    hp_vec d = {0};
    cr_assert_eq(hp_vec_reserve(&d, (size_t)1 << 32), 0);
    cr_assert_eq(hp_vec_ensure(&d, (size_t)4 << 20), 0);
    cr_assert_eq(hp_vec_ensure(&d, ((size_t)4 << 20) + 1), 0);
    cr_assert_eq(d.committed, (size_t)8 << 20);
    hp_vec_trim(&v, 0);
    hp_vec_trim(&d, 0);
}
