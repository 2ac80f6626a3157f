/* hp_sample: the sampling distances and weights (see hp_sample.h). The
 * generator is xorshift64* per thread, seeded from the run's seed= and the
 * thread's stack address; the exponential distance is -mean * ln(U), U
 * uniform in (0, 1]. Allocation path (no lock, no allocation). */
#include "core/hp_sample.h"

#include <math.h>

int hp_sample_on;
_Atomic uint64_t hp_sample_taken;

double hp_sample_weight_of(uint64_t req, uint64_t mean)
{
    if (req == 0) req = 1;
    double p = -expm1(-(double)req / (double)mean);
    return p > 0 ? 1.0 / p : 1.0;
}

/* Uniform in (0, 1], from xorshift64*. */
static double uniform(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    uint64_t r = x * 0x2545f4914f6cdd1dull;
    return ((double)(r >> 11) + 1.0) / 9007199254740992.0;
}

uint32_t hp_sample_count_of(uint64_t req, uint64_t mean, uint64_t *state)
{
    double w = hp_sample_weight_of(req, mean);
    if (w >= 4294967295.0) return UINT32_MAX;
    double k = floor(w);
    if (uniform(state) <= w - k) k += 1;   /* up with the chance of the fraction */
    return k < 1 ? 1 : (uint32_t)k;
}

int64_t hp_sample_next(uint64_t *state, uint64_t mean)
{
    double d = -log(uniform(state)) * (double)mean;
    return d < 1 ? 1 : d > 9e18 ? (int64_t)9e18 : (int64_t)d;
}
