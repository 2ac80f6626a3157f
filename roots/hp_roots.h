/* hp_roots: the profile by user-named roots (HEAPPROF=roots).
 *
 * A program names up to HP_ROOTS_MAX objects with heapprof_set_roots()
 * (include/heapprof.h). At each census every live object gets the set of
 * named roots that reach it (one bit per root, conservative edges, the
 * traversal of hp_trace), and the profile has one band per non-empty set,
 * labelled by the names joined with '-' in the order the roots were given.
 * Sets are interned in a sparse table (mask -> bin), so any of the 2^64
 * combinations costs only what is used. Roots are weak: the table holding
 * them is profiler memory the collector never scans; a root whose object
 * dies (or is freed) drops out, and .prof says when.
 *
 * The API functions run on program threads and change the table under the
 * collector's allocation lock, so a census never sees a half-made change;
 * the traversal runs at MARK_END (world stopped, lock held). */
#ifndef HP_ROOTS_H
#define HP_ROOTS_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_buf.h"
#include "core/hp_shadow.h"

#define HP_ROOTS_MAX 64          /* HEAPPROF_MAX_ROOTS */
#define HP_ROOT_NAME_MAX 64

int hp_roots_init(void);
/* MARK_END of a census collection (world stopped). */
void hp_roots_traverse(uint64_t mark_ns);
/* noroot=retainers: the retainer profile's preparation before the world
 * stops, and its root ranges forgotten at the mark phase's end. */
void hp_roots_before_stop(void);
void hp_roots_mark_end(void);
/* RECLAIM_END of every collection, before the sweep: roots whose objects
 * died drop out (lock held). */
void hp_roots_check_alive(double now);
/* GC_free of `base` (lock held). */
void hp_roots_note_free(uintptr_t base);
/* The census: band label of a live record, or UINT32_MAX (reached by no
 * named root and NOROOT not asked for). */
uint32_t hp_roots_label_of(hp_rec *r, size_t idx);
void hp_roots_census_done(double t);
/* A forked child forgets its parent's censuses (lock); the named roots
 * themselves stay, as the child's memory keeps them. */
void hp_roots_postfork_child(void);
void hp_roots_write_prof(int fd);
/* A warning line into out when the program named no roots. */
void hp_roots_warnings(hp_buf *out);

/* The public API (include/heapprof.h, reached through preload/hp_api.c):
 * change the named roots under the collector's lock; HEAPPROF_* codes,
 * with a message on stderr for a bad call. Before libgc is attached they
 * accept and do nothing. */
struct heapprof_root;
int hp_roots_set(const struct heapprof_root *given, size_t n);
int hp_roots_add(const char *name, const void *ptr);
int hp_roots_remove(const char *name);
int hp_roots_clear(void);

#endif
