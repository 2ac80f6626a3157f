/* hp_sample: the sampling mode (sample=BYTES), level 6 with the record
 * store. Only sampled objects are recorded: a thread samples the
 * allocation in which its count of bytes allocated since the last sample
 * passes a distance drawn from an exponential distribution of mean BYTES
 * (a Poisson process over the bytes, as tcmalloc, jemalloc and Go do), so
 * an allocation of s bytes is sampled with probability p(s) = 1 -
 * exp(-s / BYTES), whatever its size (a large one is not always taken, and
 * never counted more than it weighs: golang/go#26618). A sampled record
 * stands for 1/p(s) objects: every figure summed over records (objects,
 * bytes allocated, requested, survived, live at a census) adds its
 * estimate. The weight is kept in the record's mode word as a whole number
 * k, 1/p rounded down or up at random with the chance of its fraction
 * (E[k] = 1/p: rounding to the nearest would bias a site of 1000-byte
 * objects sampled per 4096 bytes by +8%, 4.62 counted as 5); only modes
 * cc, module and kind sample, and they use no mode word.
 *
 * The helpers below are every sum's terms: exact (1, granted, req) when
 * the run does not sample. Invariant: hp_sample_on is set once, before
 * any record, and never changes. */
#ifndef HP_SAMPLE_H
#define HP_SAMPLE_H
#include <stdatomic.h>
#include <stdint.h>

#include "core/hp_shadow.h"

extern int hp_sample_on;
/* Objects sampled so far, every thread. */
extern _Atomic uint64_t hp_sample_taken;

static inline uint64_t hp_rec_count(const hp_rec *r)
{
    return hp_sample_on ? r->word : 1;
}

static inline uint64_t hp_rec_bytes(const hp_rec *r)
{
    return hp_sample_on ? (uint64_t)r->granted * r->word : r->granted;
}

static inline uint64_t hp_rec_req(const hp_rec *r)
{
    return hp_sample_on ? (uint64_t)r->req * r->word : r->req;
}

/* The weight of an allocation of `req` bytes sampled at mean distance
 * `mean` bytes: 1 / (1 - exp(-req / mean)). */
double hp_sample_weight_of(uint64_t req, uint64_t mean);
/* That weight as the whole number a record keeps: rounded down or up at
 * random (from the thread's generator), up with the chance of its
 * fraction; at least 1. */
uint32_t hp_sample_count_of(uint64_t req, uint64_t mean, uint64_t *state);
/* The next distance, in bytes, from a thread's generator state. */
int64_t hp_sample_next(uint64_t *state, uint64_t mean);

#endif
