/* hp_hpfile: writes GHC-format .hp heap profiles, to the strictest reading
 * of hp2ps, hp2pretty and eventlog2html (../shared/design/hp-format.md):
 * four header lines, samples with %f times that never decrease, labels that
 * are one word not starting with a digit or '"', no MARK lines. Each sample
 * is one write(2), so a killed program leaves a file readable up to its
 * last sample. Async-signal-safe. */
#ifndef HP_HPFILE_H
#define HP_HPFILE_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_buf.h"

/* Header plus the empty sample at 0.000000. `job` and `date` are sanitised
 * (no '"'). Returns 0 or -1 (errno from write). */
int hp_hp_header(hp_buf *b, int fd, const char *job, const char *date);
/* One sample: n bands `labels[i]` with `values[i]` bytes (zero values are
 * left out). Times must not decrease; the caller ensures it. */
int hp_hp_sample(hp_buf *b, int fd, double t, const char *const *labels,
                 const uint64_t *values, size_t n);
/* Make `s` a valid label in place: blanks, controls and '"' become '_'; a
 * label that starts with a digit, or is a keyword, gets a leading '_' (when
 * `cap` leaves room, else its first character becomes '_'); empty becomes
 * "UNKNOWN". */
void hp_hp_sanitize_label(char *s, size_t cap);
/* GHC's DATE format, e.g. "Sun Nov 22 04:27 2026", from a time_t. */
void hp_hp_date(char *out, size_t cap, long long t);

#endif
