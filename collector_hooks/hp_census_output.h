/* hp_census_output: the census's files (level 2): the .hp samples as
 * censuses are taken, and at the end the closing sample, the .prof, the
 * .alloc.csv and the line on stderr.
 *
 * Output is written by whoever holds the output role, an atomic flag
 * taken by a census and by the finisher (at exit, or in the SIGINT/SIGTERM
 * handler), so that a signal never interleaves with a census half-written.
 * Everything here is async-signal-safe. */
#ifndef HP_CENSUS_OUTPUT_H
#define HP_CENSUS_OUTPUT_H
#include <stdint.h>

int hp_output_init(void);
int hp_output_take_role(void);
void hp_output_release_role(void);
/* Open the .hp file and write its header, once (says so on stderr when it
 * cannot, once). */
void hp_output_open_hp(void);
/* Bytes for band `label` in the sample being made. */
void hp_output_add_label(uint32_t label, uint64_t bytes);
/* Write the sample at profile time t: the bands added, plus (for a census
 * by stack) every stack's census bytes folded into its band. */
void hp_output_write_sample(double t);
/* After fork() in the child: no file open, nothing finished. */
void hp_output_postfork_child(void);

#endif
