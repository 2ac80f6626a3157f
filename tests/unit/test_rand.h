/* test_rand: the unit tests' seeded generator (xorshift64, Marsaglia
 * 2003): the same sequence on every run, so a failing case repeats. */
#ifndef TEST_RAND_H
#define TEST_RAND_H
#include <stdint.h>

static uint64_t test_rng = 88172645463325252ull;

static inline uint64_t test_rand(void)
{
    test_rng ^= test_rng << 13;
    test_rng ^= test_rng >> 7;
    test_rng ^= test_rng << 17;
    return test_rng;
}
#endif
