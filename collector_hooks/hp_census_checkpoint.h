/* hp_census_checkpoint: the checkpoint of a profile whose samples are
 * written at the end (mode ldv: an object's lag/drag/void/use is known only
 * when it dies), so that an abnormal end (SIGKILL, abort, _exit, a crash)
 * does not lose the whole profile.
 *
 * After a census, at most every `checkpoint=` seconds (HEAPPROF; 0 = every
 * census), PROG.partial.hp is written beside PROG.hp: a whole .hp file with
 * the samples as if the program had ended at that census (every object
 * still alive dies there, as at exit), and a JOB line that says so.
 *
 * Invariants:
 *   - PROG.partial.hp is always whole: it is written under a temporary
 *     name (PROG.partial.hp.tmp, created by hp_outfile_create) and renamed
 *     over, so a kill at any moment leaves the previous checkpoint or the
 *     new one, never a part;
 *   - the scheme's state is not changed (it writes from a copy), so the
 *     final PROG.hp is the same with and without checkpoints;
 *   - its cost is bounded: a checkpoint waits at least 20 times as long as
 *     the last one took, whatever `checkpoint=` says (except 0, for tests);
 *   - a forked child writes none (its .hp is whole or absent, see
 *     hp_census_sample_sigsafe.c);
 *   - the .hp being created (a new run) or completed removes the checkpoint:
 *     a PROG.partial.hp beside a PROG.hp is from the same run, which did not
 *     finish.
 * Async-signal-safe except hp_checkpoint_after_census (owner context). */
#ifndef HP_CENSUS_CHECKPOINT_H
#define HP_CENSUS_CHECKPOINT_H
#include <stdint.h>

int hp_checkpoint_init(void);
/* Census t was just taken at profile time `now` (owner context, after the
 * schemes' census_done, before after_sweep): write the checkpoint if the
 * primary scheme has one and it is due. */
void hp_checkpoint_after_census(uint32_t t, double now);
/* Remove PROG.partial.hp and its temporary file (a new .hp, or a whole
 * one). */
void hp_checkpoint_discard(void);
/* The census of the checkpoint on disk (0: none), and its path as the user
 * named it (for the exit line). */
uint32_t hp_checkpoint_census(void);
const char *hp_checkpoint_path(void);
/* After fork() in the child: no checkpoint of its own. */
void hp_checkpoint_postfork_child(void);

#endif
