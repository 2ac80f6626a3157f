/* hp_retainer: the retainer profile (HEAPPROF=retainer), GHC's -hr for C.
 *
 * At a census, roots are what the collector pushed (hp_rootrec): static
 * data, named by the global variable holding the pointer (else
 * module+offset); thread stacks, named per thread; anything else pushed
 * (GC_add_roots ranges outside modules, a program's own pushes), named by
 * address. Heap objects whose cost-centre stack has a function named in
 * `retainers=` are retainers too, named by their cost-centre stack. An
 * object's retainer set: the retainers it is reachable from without
 * passing through another retainer (the seed's retain(c, r)); sets are
 * interned for the whole run (an order-independent hash), and a set that
 * would grow past `bound=` is MANY.
 *
 * hp_retainer_traverse runs at MARK_END (world stopped, lock held); the
 * rest in the census at RECLAIM_END (lock held, world running) and when
 * output is written. */
#ifndef HP_RETAINER_H
#define HP_RETAINER_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"
#include "hp_writer/hp_closest.h"

int hp_retainer_init(void);
/* Before the world stops, when a census is due (lock held): classify new
 * cost-centre stacks against retainers= (reads symbols). */
void hp_retainer_prepare(void);
/* MARK_END of a collection that takes a census (world stopped). */
void hp_retainer_traverse(uint64_t mark_ns);
/* The named-roots profile with noroot=retainers, at MARK_END after its own
 * walk: label what no named root reached with retainer sets (depth-first,
 * the same index and parity). */
void hp_retainer_traverse_rest(uint64_t mark_ns);
/* The census: the band label of a live record, or UINT32_MAX when it has
 * no retainer set this census (not reached; `idx` >= the records indexed
 * means it was allocated during the collection). Counts for the sanity
 * line. */
uint32_t hp_retainer_label_of(hp_rec *r, size_t idx);
/* The named-roots profile's label for a record no named root reached:
 * NOROOT:<its retainer set> (counted in the retainer census line), or
 * UINT32_MAX when no retainer reached it either. */
uint32_t hp_retainer_noroot_label(hp_rec *r, size_t idx);
/* The census is complete (profile time t): close its .prof line. */
void hp_retainer_census_done(double t);
/* A forked child forgets its parent's censuses (lock). */
void hp_retainer_postfork_child(void);
/* Does record r's retainer set (this census) hold a retainer whose name is
 * one of `names` ('+'-separated)? (the rset= filter) */
int hp_retainer_set_matches(const hp_rec *r);
/* dominators=yes: the dominator tree of a census (world stopped); kept
 * as the .prof's RETAINED SIZES when the census has the most live bytes
 * so far. */
struct hp_scc_doms;
void hp_retainer_dominators(const struct hp_scc_doms *d);
/* A warning line into out when a census attributed under 95% of the live
 * bytes (the least such census). */
void hp_retainer_warnings(hp_buf *out);
/* Has any object passed rset= so far? */
int hp_retainer_rset_matched(void);
/* Offer every retainer's name to c (the names rset= could have used). */
void hp_retainer_closest(hp_closest *c);
/* The retainer section of the .prof file. */
void hp_retainer_write_prof(int fd);

#endif
