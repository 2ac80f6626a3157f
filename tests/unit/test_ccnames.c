/* Unit tests for preload/hp_ccnames: interned names of explicit cost
 * centres (heapprof_cc_push). Same text, same id; ids dense from 0; names
 * copied and cut at 255 bytes; concurrent interning agrees. */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/hp_ccnames.h"

static void setup(void) { cr_assert_eq(hp_ccnames_init(), 0); }

Test(ccnames, same_text_same_id, .init = setup)
{
    char buf[32];
    strcpy(buf, "parse");
    uint32_t a = hp_ccnames_intern(buf);
    cr_assert_eq(a, 0);
    strcpy(buf, "eval");                 /* the caller's memory changes: copied */
    uint32_t b = hp_ccnames_intern(buf);
    cr_assert_eq(b, 1);
    cr_assert_eq(hp_ccnames_intern("parse"), 0);
    cr_assert_eq(hp_ccnames_intern("eval"), 1);
    cr_assert_eq(hp_ccnames_intern("Parse"), 2);
    cr_assert_eq(hp_ccnames_intern("pars"), 3);     /* prefix is another name */
    cr_assert_eq(hp_ccnames_intern("parser"), 4);
    cr_assert_eq(hp_ccnames_intern(""), 5);
    cr_assert_eq(hp_ccnames_intern(""), 5);
    cr_assert_str_eq(hp_ccnames_get(0), "parse");
    cr_assert_str_eq(hp_ccnames_get(1), "eval");
    cr_assert_str_eq(hp_ccnames_get(2), "Parse");
    cr_assert_str_eq(hp_ccnames_get(3), "pars");
    cr_assert_str_eq(hp_ccnames_get(4), "parser");
    cr_assert_str_eq(hp_ccnames_get(5), "");
    cr_assert_str_eq(hp_ccnames_get(6), "UNKNOWN");      /* not interned yet */
    cr_assert_str_eq(hp_ccnames_get(UINT32_MAX), "UNKNOWN");
}

Test(ccnames, long_names_cut_at_255, .init = setup)
{
    char longname[400], prefix[256];
    for (int i = 0; i < 399; i++) longname[i] = (char)('a' + i % 26);
    longname[399] = 0;
    memcpy(prefix, longname, 255);
    prefix[255] = 0;
    uint32_t id = hp_ccnames_intern(longname);
    cr_assert_neq(id, UINT32_MAX);
    const char *got = hp_ccnames_get(id);
    cr_assert_eq(strlen(got), 255);
    cr_assert_str_eq(got, prefix);
    /* The cut name and any name sharing those 255 bytes are the same centre. */
    cr_assert_eq(hp_ccnames_intern(prefix), id);
    longname[300] = '!';
    cr_assert_eq(hp_ccnames_intern(longname), id);
    /* 254 bytes is a different, shorter name. */
    prefix[254] = 0;
    uint32_t shorter = hp_ccnames_intern(prefix);
    cr_assert_neq(shorter, id);
    cr_assert_eq(strlen(hp_ccnames_get(shorter)), 254);
    /* Exactly 255 bytes is kept whole. */
    char exact[256];
    memset(exact, 'z', 255);
    exact[255] = 0;
    uint32_t e = hp_ccnames_intern(exact);
    cr_assert_str_eq(hp_ccnames_get(e), exact);
}

Test(ccnames, many_names, .init = setup)
{
    enum { N = 30000 };
    char name[32];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "cc_%u", i);
        cr_assert_eq(hp_ccnames_intern(name), i);
    }
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "cc_%u", i);
        cr_assert_eq(hp_ccnames_intern(name), i);
        cr_assert_str_eq(hp_ccnames_get(i), name);
    }
}

enum { NT = 4, NN = 5000 };
static uint32_t ids[NT][NN];
static pthread_barrier_t bar;

static void *intern_all(void *arg)
{
    int t = (int)(intptr_t)arg;
    char name[32];
    pthread_barrier_wait(&bar);
    for (int j = 0; j < NN; j++) {
        int k = t % 2 ? NN - 1 - j : j;
        snprintf(name, sizeof name, "name-%d", k);
        ids[t][k] = hp_ccnames_intern(name);
    }
    return NULL;
}

Test(ccnames, concurrent_interning_agrees, .init = setup)
{
    pthread_t th[NT];
    pthread_barrier_init(&bar, NULL, NT);
    for (int t = 0; t < NT; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, intern_all, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    static unsigned char seen[NN];
    char name[32];
    for (int k = 0; k < NN; k++) {
        for (int t = 1; t < NT; t++) cr_assert_eq(ids[t][k], ids[0][k], "name %d", k);
        cr_assert_lt(ids[0][k], NN);
        cr_assert_eq(seen[ids[0][k]], 0);
        seen[ids[0][k]] = 1;
        snprintf(name, sizeof name, "name-%d", k);
        cr_assert_str_eq(hp_ccnames_get(ids[0][k]), name);
    }
    /* The next new name gets the next id: exactly NN were made. */
    cr_assert_eq(hp_ccnames_intern("one-more"), NN);
}
