/* hp_roots: the profile by named roots, its start-up and the public API
 * (see hp_roots.h): heapprof_set_roots and the others change the root
 * table under the collector's allocation lock (program threads; a mutex
 * serialises set_roots). The census side is hp_roots_sigsafe.c. */
#include "roots/hp_roots.h"
#include "retainer/hp_retainer.h"
#include "roots/hp_roots_internal.h"
#include "retainer/hp_trace.h"
#include "include/heapprof.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_buf.h"
#include "hp_writer/hp_names.h"

#include <pthread.h>
#include <string.h>


int hp_roots_init(void)
{
    if (hp_vec_reserve(&hp_roots_.bin_vec, (size_t)1 << 34) || hp_vec_reserve(&hp_roots_.bin_index.vec, (size_t)1 << 32) ||
        hp_arena_init(&hp_roots_.text_arena, (size_t)1 << 34) || hp_buf_init(&hp_roots_.events, (size_t)1 << 30) ||
        hp_buf_init(&hp_roots_.census_lines, (size_t)1 << 32) || hp_vec_reserve(&hp_roots_.bin_bytes_vec, (size_t)1 << 34))
        return -1;
    hp_roots_.ready = 1;
    return 0;
}

/* ---- The public API (program threads). Changes are made under the
 * collector's lock; messages are written before taking it. ---- */

static const char *const reserved[] = {"JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT", "MARK",
                                       "BEGIN_SAMPLE", "END_SAMPLE", "NOROOT", "MANY"};

static int complain(int code, const char *fn, const char *what, const char *name)
{
    char msg[1024];
    size_t at = 0;
    const char *parts[] = {"heapprof: ", fn, ": ", what, name ? " '" : "",
                           name ? name : "", name ? "'" : ""};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        size_t l = strnlen(parts[k], 400);
        if (at + l >= sizeof msg - 1) break;
        memcpy(msg + at, parts[k], l);
        at += l;
    }
    msg[at] = 0;
    hp_say(msg);
    return code;
}

static int check_name(const char *fn, const char *name)
{
    if (!name) return complain(HEAPPROF_EINVAL, fn, "a root's name is NULL; give every root "
                               "a name (letters, digits, _ . : +)", NULL);
    size_t n = strnlen(name, HP_ROOT_NAME_MAX);
    if (n == 0 || n >= HP_ROOT_NAME_MAX)
        return complain(HEAPPROF_EINVAL, fn, "a root's name must have 1 to 63 characters; got",
                        n ? "(a longer name)" : "");
    int ok = !(name[0] >= '0' && name[0] <= '9');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c >= 127 || c == '"' || c == '-' || c == '(' || c == ')' || c == ',')
            ok = 0;
    }
    for (size_t k = 0; k < sizeof reserved / sizeof *reserved; k++)
        if (strcmp(name, reserved[k]) == 0) ok = 0;
    if (!ok)
        return complain(HEAPPROF_EINVAL, fn,
                        "a root's name must be printable without blanks, not start with a "
                        "digit, and hold none of - \" ( ) , (bands join names with '-'); not "
                        "a reserved word; rename", name);
    return HEAPPROF_OK;
}

static int check_ptr(const char *fn, const char *name, const void *p, uintptr_t *base)
{
    void *b = p && hp_real.GC_base ? hp_real.GC_base((void *)p) : NULL;
    if (!b)
        return complain(HEAPPROF_ENOTGC, fn, "the pointer given for root is not an object of "
                        "the collector's heap (allocate it with GC_malloc, or pass the "
                        "object's address); root", name);
    *base = (uintptr_t)b;
    return HEAPPROF_OK;
}

typedef struct change { int op; size_t n; hp_root items[HP_ROOTS_MAX]; int result; } change;
enum { OP_SET, OP_ADD, OP_REMOVE, OP_CLEAR };

static void *apply(void *arg)
{
    change *c = arg;
    double t = hp_roots_now();
    c->result = HEAPPROF_OK;
    if (c->op == OP_SET || c->op == OP_CLEAR) {
        memset(hp_roots_.roots, 0, sizeof hp_roots_.roots);
        hp_roots_.generation++;
        for (size_t i = 0; i < c->n; i++) {
            hp_roots_.roots[i] = c->items[i];
            hp_roots_.roots[i].seq = hp_roots_.next_seq++;
        }
        if (hp_roots_.ready) {
            hp_buf_fixed(&hp_roots_.events, t, 2);
            hp_buf_str(&hp_roots_.events, c->op == OP_CLEAR ? " s  cleared" : " s  set:");
            for (size_t i = 0; i < c->n; i++) {
                hp_buf_str(&hp_roots_.events, i ? ", " : " ");
                hp_buf_str(&hp_roots_.events, hp_roots_.roots[i].name);
            }
            hp_buf_chr(&hp_roots_.events, '\n');
        }
    } else if (c->op == OP_ADD) {
        int free_slot = -1;
        for (int i = 0; i < HP_ROOTS_MAX; i++) {
            if (hp_roots_.roots[i].base && strcmp(hp_roots_.roots[i].name, c->items[0].name) == 0) {
                c->result = HEAPPROF_EEXIST;
                return NULL;
            }
            if (!hp_roots_.roots[i].base && free_slot < 0) free_slot = i;
        }
        if (free_slot < 0) {
            c->result = HEAPPROF_ENOSPC;
            return NULL;
        }
        hp_roots_.roots[free_slot] = c->items[0];
        hp_roots_.roots[free_slot].seq = hp_roots_.next_seq++;
        hp_roots_.generation++;
        hp_roots_event_line(t, "added: ", hp_roots_.roots[free_slot].name);
    } else {
        for (int i = 0; i < HP_ROOTS_MAX; i++)
            if (hp_roots_.roots[i].base && strcmp(hp_roots_.roots[i].name, c->items[0].name) == 0) {
                hp_roots_drop(i, t, "removed: ");
                return NULL;
            }
        c->result = HEAPPROF_ENOENT;
    }
    return NULL;
}

static int run_change(change *c)
{
    if (!atomic_load(&hp_rt.attached)) return HEAPPROF_OK;   /* no libgc: nothing to profile */
    hp_real.GC_call_with_alloc_lock(apply, c);
    return c->result;
}

int hp_roots_set(const heapprof_root *given, size_t n)
{
    static const char fn[] = "heapprof_set_roots";
    if (n > HP_ROOTS_MAX) {
        char num[32];
        size_t k = 0;
        char tmp[24];
        size_t v = n;
        do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v && k < sizeof tmp);
        for (size_t i = 0; i < k; i++) num[i] = tmp[k - 1 - i];
        num[k] = 0;
        return complain(HEAPPROF_ENOSPC, fn, "at most 64 named roots; got", num);
    }
    if (n && !given) return complain(HEAPPROF_EINVAL, fn, "the roots array is NULL", NULL);
    static change c;   /* serialised by set_lock below */
    static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&set_lock);
    memset(&c, 0, sizeof c);
    int rc = HEAPPROF_OK;
    for (size_t i = 0; i < n && rc == HEAPPROF_OK; i++) {
        rc = check_name(fn, given[i].name);
        if (rc == HEAPPROF_OK)
            for (size_t j = 0; j < i; j++)
                if (strcmp(given[j].name, given[i].name) == 0)
                    rc = complain(HEAPPROF_EEXIST, fn, "two roots have the same name; names "
                                  "must be unique:", given[i].name);
        if (rc == HEAPPROF_OK) rc = check_ptr(fn, given[i].name, given[i].ptr, &c.items[i].base);
        if (rc == HEAPPROF_OK) strcpy(c.items[i].name, given[i].name);
    }
    if (rc == HEAPPROF_OK) {
        c.op = OP_SET;
        c.n = n;
        rc = run_change(&c);
    }
    pthread_mutex_unlock(&set_lock);
    return rc;
}

/* heapprof_add_root and heapprof_remove_root: one named root. */
static int one_root(const char *fn, int op, const char *name, const void *ptr)
{
    change c;
    memset(&c, 0, sizeof c);
    int rc = check_name(fn, name);
    if (rc == HEAPPROF_OK && op == OP_ADD) rc = check_ptr(fn, name, ptr, &c.items[0].base);
    if (rc != HEAPPROF_OK) return rc;
    strcpy(c.items[0].name, name);
    c.op = op;
    rc = run_change(&c);
    if (rc == HEAPPROF_EEXIST)
        complain(rc, fn, "a root of this name exists already (remove it first, or use "
                 "heapprof_set_roots to replace all):", name);
    if (rc == HEAPPROF_ENOSPC)
        complain(rc, fn, "64 roots are named already (the most there can be); not added:", name);
    if (rc == HEAPPROF_ENOENT)
        complain(rc, fn, "no root of this name (it was never added, was removed, or its "
                 "object died):", name);
    return rc;
}

int hp_roots_add(const char *name, const void *ptr)
{
    return one_root("heapprof_add_root", OP_ADD, name, ptr);
}

int hp_roots_remove(const char *name)
{
    return one_root("heapprof_remove_root", OP_REMOVE, name, NULL);
}

int hp_roots_clear(void)
{
    change c;
    memset(&c, 0, sizeof c);
    c.op = OP_CLEAR;
    return run_change(&c);
}

void hp_roots_before_stop(void)
{
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_retainer_prepare();
}
