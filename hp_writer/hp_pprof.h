/* hp_pprof: the run's allocation profile as pprof reads it (PROG.pb.gz:
 * a gzipped profile.proto message, `go tool pprof PROG.pb.gz`), and as
 * flame-graph tools read it (folded stacks, "outer;...;inner bytes").
 *
 * Samples are the stacks of the .prof table (stacks that print the same
 * merged, as there), innermost frame first, with four values:
 * alloc_objects, alloc_space (bytes granted over the run), inuse_objects,
 * inuse_space (live at the peak census: the profile's comments say so).
 * One location per frame (its code address, the function with its
 * demangled name, mangled system name, file and line when known), one
 * mapping per loaded module (file, span, GNU build id). The encoding is
 * written here (protobuf's wire format: varints and length-delimited
 * fields), and the gzip wrapper with stored deflate blocks and CRC-32, so
 * the profiled program gains no dependency. Signal-safe: profiler memory,
 * raw writes. */
#ifndef HP_PPROF_H
#define HP_PPROF_H
#include <stdint.h>

#include "core/hp_ccstats.h"

typedef struct hp_pprof_run {
    uint64_t time_nanos;       /* when the run began (wall clock) */
    uint64_t duration_nanos;   /* how long it ran */
    double peak_time;          /* the peak census (profile seconds) */
    const char *job;           /* the command line */
} hp_pprof_run;

int hp_pprof_init(void);
/* PROG.pb.gz into fd: 0, or -1. */
int hp_pprof_write(int fd, const hp_pprof_run *run, const hp_ccs_stats *stats, uint32_t nccs);
/* Folded stacks into fd, outermost frame first, ';' between frames, then
 * a blank and the bytes: allocated over the run (live = 0), or live at
 * the peak census (live = 1; stacks with none left out). 0, or -1. */
int hp_folded_write(int fd, const hp_ccs_stats *stats, uint32_t nccs, int live);

#endif
