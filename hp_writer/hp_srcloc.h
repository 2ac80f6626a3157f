/* hp_srcloc: the source line ("file:line") of code addresses, from the
 * DWARF line tables of each module or of its separate debug file (found by
 * build id, /usr/lib/debug), read with elfutils' libdwfl.
 *
 * libdw is opened with dlopen at exit, only to write the files: the
 * profiled program gains no dependency, and a machine without libdw1 gets
 * profiles without lines (the .prof says so). hp_srcloc_prepare (not
 * signal-safe: dlopen, malloc inside libdw) resolves every frame of every
 * stack once, before the files are written; the writers then read the
 * table lock-free (hp_srcloc_get, signal-safe). A profile finished by a
 * signal handler has no lines: nothing is prepared there. */
#ifndef HP_SRCLOC_H
#define HP_SRCLOC_H
#include <stdint.h>

/* Resolve the frames of every stack recorded so far. 0, or -1 when libdw
 * cannot be loaded (hp_srcloc_status says why). */
int hp_srcloc_prepare(void);

/* "file:line" of code address `pc` (as the frames hold it: a function's
 * start, or with frames=call a return address, whose call's line it is),
 * or NULL when unknown or not prepared. Lock-free. */
const char *hp_srcloc_get(uintptr_t pc);

/* What the .prof says about source lines: NULL when lines were read, else
 * why there are none. */
const char *hp_srcloc_status(void);

/* How many frames have a line. */
uint64_t hp_srcloc_found(void);

/* How many frames lie in the C library (libc, the dynamic linker, libm):
 * never looked up (see c_library in hp_srcloc.c). */
uint64_t hp_srcloc_c_library(void);

#endif
