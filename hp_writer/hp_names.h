/* hp_names: cost-centre stack ids turned into text, lazily, when output is
 * written. A stack's name is its frames' function names joined by '/',
 * innermost first, as GHC prints a CCS (the module's name where a frame has
 * no symbol). Its label is
 * that name cut to the configured length and made hp2ps-safe; equal labels
 * share one label id, so a sample never repeats a band. Not thread-safe:
 * callers hold the output role (see hp_census.h). */
#ifndef HP_NAMES_H
#define HP_NAMES_H
#include <stdint.h>

#include "core/hp_buf.h"

int hp_names_init(int label_length);
/* Label id of a cost-centre stack (resolving it on first use). */
uint32_t hp_names_label_of(uint32_t ccs);
const char *hp_names_label(uint32_t label);
uint32_t hp_names_label_count(void);
/* Id of a stack's untruncated name (hp2ps-safe characters); stacks that
 * print the same share it. */
uint32_t hp_names_full_of(uint32_t ccs);
const char *hp_names_full(uint32_t full);
/* Module of the allocating (innermost) function of a stack: its basename,
 * "explicit" for explicit cost centres, "UNKNOWN" when not known. */
const char *hp_names_module(uint32_t ccs);
/* Label id of that module (mode module). */
uint32_t hp_names_module_label_of(uint32_t ccs);
/* Label id of arbitrary text (cut to the label length, made hp2ps-safe). */
uint32_t hp_names_intern_label(const char *text);
/* The stack's short name: its functions without parameter lists, template
 * arguments as <...> (what .hp labels and retainer names are made of). */
const char *hp_names_short(uint32_t ccs);
/* The frames of the stack name `full_id` (hp_names_full_of), innermost
 * first, as that name shows them: up to `max` into out; their count. pc
 * is the frame's code address (0 for an explicit cost centre and for
 * [jit], code in no module, which sets jit). */
typedef struct hp_name_frame { const char *name; uintptr_t pc; int jit; } hp_name_frame;
int hp_names_frames(uint32_t full_id, hp_name_frame *out, int max);
/* What the names of stacks 0..nccs-1 cannot tell, as lines ("warning:
 * ..." or "note: ...", each ending in a newline; "" when none): most
 * objects with one-frame stacks under unwind=fp; a program without
 * symbols; stacks that end in [jit]. Signal-safe. */
typedef struct hp_ccs_stats hp_ccs_stats;
const char *hp_names_warnings(const hp_ccs_stats *stats, uint32_t nccs);
/* Does the stack's name have `function` as one of its frames? */
int hp_names_has_function(uint32_t ccs, const char *function);

#endif
