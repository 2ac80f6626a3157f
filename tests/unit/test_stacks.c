/* Unit tests for preload/hp_stacks: the interned cost-centre stack table.
 * Same frames give the same id, ids are dense from 0, the table keeps
 * finding every stack while its index grows, and threads interning the same
 * stacks concurrently agree on every id. (Criterion runs each test in its
 * own process, so every test starts with an empty table.) */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hp_stacks.h"

static void setup(void) { cr_assert_eq(hp_stacks_init(), 0); }

static void assert_frames(uint32_t id, const uintptr_t *f, uint32_t n)
{
    const hp_stack *s = hp_stacks_get(id);
    cr_assert_not_null(s);
    cr_assert_eq(s->id, id);
    cr_assert_eq(s->n, n, "stack %u has %u frames, want %u", id, s->n, n);
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(s->frames[i], f[i], "stack %u frame %u", id, i);
}

Test(stacks, same_frames_same_id, .init = setup)
{
    uintptr_t a[] = {0x401000, 0x401234, 0x402000};
    uintptr_t a2[] = {0x401000, 0x401234, 0x402000};   /* equal content, other array */
    cr_assert_eq(hp_stacks_count(), 0);
    uint32_t id = hp_stacks_intern(a, 3);
    cr_assert_eq(id, 0);
    cr_assert_eq(hp_stacks_intern(a, 3), 0);
    cr_assert_eq(hp_stacks_intern(a2, 3), 0);
    cr_assert_eq(hp_stacks_count(), 1);
    assert_frames(0, a, 3);
}

Test(stacks, order_and_length_matter, .init = setup)
{
    uintptr_t abc[] = {0xa0, 0xb0, 0xc0};
    uintptr_t cba[] = {0xc0, 0xb0, 0xa0};
    uintptr_t bac[] = {0xb0, 0xa0, 0xc0};
    uintptr_t abcd[] = {0xa0, 0xb0, 0xc0, 0xd0};
    uintptr_t x = HP_FRAME_EXPLICIT | 5;
    cr_assert_eq(hp_stacks_intern(abc, 3), 0);
    cr_assert_eq(hp_stacks_intern(cba, 3), 1);
    cr_assert_eq(hp_stacks_intern(bac, 3), 2);
    cr_assert_eq(hp_stacks_intern(abc, 2), 3);      /* prefix {a,b} */
    cr_assert_eq(hp_stacks_intern(abcd, 4), 4);
    cr_assert_eq(hp_stacks_intern(abc, 1), 5);      /* {a} */
    cr_assert_eq(hp_stacks_intern(abc, 0), 6);      /* empty stack */
    cr_assert_eq(hp_stacks_intern(&x, 1), 7);       /* explicit cost centre */
    cr_assert_eq(hp_stacks_count(), 8);
    /* All found again, with their frames. */
    cr_assert_eq(hp_stacks_intern(abcd, 4), 4);
    cr_assert_eq(hp_stacks_intern(abc, 0), 6);
    cr_assert_eq(hp_stacks_intern(abc, 3), 0);
    cr_assert_eq(hp_stacks_intern(abc, 2), 3);
    cr_assert_eq(hp_stacks_intern(&x, 1), 7);
    cr_assert_eq(hp_stacks_count(), 8);
    assert_frames(0, abc, 3);
    assert_frames(1, cba, 3);
    assert_frames(2, bac, 3);
    assert_frames(3, abc, 2);
    assert_frames(4, abcd, 4);
    assert_frames(5, abc, 1);
    assert_frames(6, abc, 0);
    assert_frames(7, &x, 1);
    cr_assert_eq(hp_stacks_get(7)->frames[0] & ~HP_FRAME_EXPLICIT, 5);
}

/* Stack number k: 1 + k%8 frames derived from k (all distinct stacks). */
static uint32_t make_stack(uint32_t k, uint32_t salt, uintptr_t *f)
{
    uint32_t n = 1 + k % 8;
    for (uint32_t i = 0; i < n; i++)
        f[i] = 0x400000 + ((uintptr_t)salt << 40) + (uintptr_t)k * 64 + i * 8;
    return n;
}

Test(stacks, many_stacks_index_growth, .init = setup)
{
    enum { N = 40000 };
    uintptr_t f[8];
    for (uint32_t k = 0; k < N; k++) {
        uint32_t n = make_stack(k, 0, f);
        cr_assert_eq(hp_stacks_intern(f, n), k, "stack %u", k);
    }
    cr_assert_eq(hp_stacks_count(), N);
    for (uint32_t k = 0; k < N; k++) {
        uint32_t n = make_stack(k, 0, f);
        uint32_t id = hp_stacks_intern(f, n);
        cr_assert_eq(id, k, "stack %u found as %u after growth", k, id);
        assert_frames(k, f, n);
    }
    cr_assert_eq(hp_stacks_count(), N);
    /* Collisions in the low hash bits: stacks that differ only in high bits. */
    for (uint32_t k = 0; k < 1000; k++) {
        uintptr_t g[2] = {(uintptr_t)k << 48, 7};
        cr_assert_eq(hp_stacks_intern(g, 2), N + k);
    }
    for (uint32_t k = 0; k < 1000; k++) {
        uintptr_t g[2] = {(uintptr_t)k << 48, 7};
        cr_assert_eq(hp_stacks_intern(g, 2), N + k);
    }
    cr_assert_eq(hp_stacks_count(), N + 1000);
}

enum { NT = 4, NS = 10000, ROUNDS = 4 };

typedef struct {
    int t;
    uint32_t salt;
    pthread_barrier_t *bar;
    uint32_t ids[NS];
    int failures;
} worker;

static void *intern_all(void *arg)
{
    worker *w = arg;
    uintptr_t f[8];
    pthread_barrier_wait(w->bar);
    /* Each thread walks the stacks in its own order: forward, backward, or
     * starting part way. */
    for (uint32_t j = 0; j < NS; j++) {
        uint32_t k;
        switch (w->t) {
        case 0: k = j; break;
        case 1: k = NS - 1 - j; break;
        case 2: k = (j + NS / 2) % NS; break;
        default: k = (j * 7919u) % NS; break;   /* 7919 is prime: a permutation */
        }
        uint32_t n = make_stack(k, w->salt, f);
        w->ids[k] = hp_stacks_intern(f, n);
        /* Look it up again at once: must be stable while others insert. */
        if (hp_stacks_intern(f, n) != w->ids[k]) w->failures++;
    }
    return NULL;
}

Test(stacks, concurrent_interning_agrees, .init = setup, .timeout = 50)
{
    static worker w[NT];
    pthread_barrier_t bar;
    uintptr_t f[8];
    for (uint32_t round = 0; round < ROUNDS; round++) {
        pthread_barrier_init(&bar, NULL, NT);
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) {
            w[t].t = t;
            w[t].salt = round + 1;
            w[t].bar = &bar;
            w[t].failures = 0;
            cr_assert_eq(pthread_create(&th[t], NULL, intern_all, &w[t]), 0);
        }
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        pthread_barrier_destroy(&bar);

        cr_assert_eq(hp_stacks_count(), (round + 1) * NS,
                     "round %u: %u stacks, want exactly %u", round, hp_stacks_count(),
                     (round + 1) * NS);
        static unsigned char seen[ROUNDS * NS];
        memset(seen, 0, sizeof seen);
        for (uint32_t k = 0; k < NS; k++) {
            uint32_t id = w[0].ids[k];
            for (int t = 0; t < NT; t++) {
                cr_assert_eq(w[t].failures, 0);
                cr_assert_eq(w[t].ids[k], id, "round %u stack %u: thread %d got %u, thread 0 %u",
                             round, k, t, w[t].ids[k], id);
            }
            cr_assert_geq(id, round * NS);
            cr_assert_lt(id, (round + 1) * NS);
            cr_assert_eq(seen[id], 0, "id %u given to two stacks", id);
            seen[id] = 1;
            uint32_t n = make_stack(k, round + 1, f);
            assert_frames(id, f, n);
        }
    }
}
