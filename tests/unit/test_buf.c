/* Unit tests for hp_writer/hp_buf: the malloc-free byte buffer and its
 * number formatting (fixed point as in the .hp times, unsigned integers,
 * padded columns as in the .prof table), and writing it to a file. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/hp_buf.h"

static hp_buf b;

static void setup(void) { cr_assert_eq(hp_buf_init(&b, (size_t)64 << 20), 0); }

static const char *fixed(double v, int d)
{
    hp_buf_reset(&b);
    hp_buf_fixed(&b, v, d);
    cr_assert_eq(b.failed, 0);
    return hp_buf_cstr(&b);
}

#define FIXED_IS(v, d, want) \
    cr_assert_str_eq(fixed((v), (d)), (want), "hp_buf_fixed(%.17g, %d)", (double)(v), (d))

Test(buf, fixed_exact, .init = setup)
{
    FIXED_IS(0.1, 6, "0.100000");
    FIXED_IS(2.5, 3, "2.500");
    FIXED_IS(0, 6, "0.000000");
    FIXED_IS(0.0, 1, "0.0");
    FIXED_IS(12.345678, 6, "12.345678");
    FIXED_IS(1234567.25, 2, "1234567.25");
    FIXED_IS(3.0, 6, "3.000000");
    FIXED_IS(0.000001, 6, "0.000001");
    FIXED_IS(7, 0, "7");
    FIXED_IS(1e12, 6, "1000000000000.000000");
}

Test(buf, fixed_rounding, .init = setup)
{
    FIXED_IS(1.0000005, 6, "1.000001");    /* printf("%.6f") agrees */
    FIXED_IS(1.0000004, 6, "1.000000");
    FIXED_IS(1.0000006, 6, "1.000001");
    FIXED_IS(0.9999996, 6, "1.000000");    /* carry into the integer part */
    FIXED_IS(9.9999999, 6, "10.000000");
    FIXED_IS(2.0000001, 6, "2.000000");
    /* Exact halves round up (documented: rounds half up). */
    FIXED_IS(0.125, 2, "0.13");
    FIXED_IS(2.5, 0, "3");
    FIXED_IS(0.5, 0, "1");
    FIXED_IS(0.4, 0, "0");
}

Test(buf, fixed_out_of_range, .init = setup)
{
    FIXED_IS(-1.5, 6, "0.000000");
    FIXED_IS(-0.0, 6, "0.000000");
    FIXED_IS(NAN, 6, "0.000000");
    FIXED_IS(1e300, 6, "1000000000000.000000");
    FIXED_IS(INFINITY, 3, "1000000000000.000");
}

/* Away from rounding boundaries hp_buf_fixed must print what printf("%.6f")
 * prints. Within about one double ulp of a boundary the product v * 1e6 is
 * itself rounded, so the last digit may be one higher than printf's (e.g.
 * 5.4320994999999996 -> 5.432100, printf 5.432099): both are accepted there. */
Test(buf, fixed_matches_printf, .init = setup)
{
    char want[64], up[64];
    int exact = 0, near = 0;
    for (int i = 0; i < 20000; i++) {
        double v = sqrt((double)i) * 3.7 + i * 0.001;
        snprintf(want, sizeof want, "%.6f", v);
        long double x = (long double)v * 1000000.0L;
        long double frac = x - floorl(x);
        const char *got = fixed(v, 6);
        if (fabsl(frac - 0.5L) > 1e-6L) {
            exact++;
            cr_assert_str_eq(got, want, "v = %.17g", v);
        } else {
            near++;
            snprintf(up, sizeof up, "%.6f", (double)((floorl(x) + 1) / 1000000.0L));
            cr_assert(strcmp(got, want) == 0 || strcmp(got, up) == 0,
                      "v = %.17g: got %s, printf %s", v, got, want);
        }
    }
    cr_assert_gt(exact, 19900, "only %d values checked exactly", exact);
    cr_assert_lt(near, 100);
}

/* Times written in increasing order must print in non-decreasing order, also
 * for neighbouring doubles around a rounding boundary. */
static uint64_t fixed_units(double v)
{
    const char *s = fixed(v, 6);
    uint64_t u = 0;
    for (; *s; s++)
        if (*s != '.') u = u * 10 + (uint64_t)(*s - '0');
    return u;
}

Test(buf, fixed_monotonic, .init = setup)
{
    double starts[] = {0.0, 1.0000005, 5.4320995, 0.1234565, 1234.5678905, 99999.9999995};
    for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
        double v = starts[k];
        for (int i = 0; i < 200; i++) v = nextafter(v, 0);
        uint64_t prev = fixed_units(v);
        for (int i = 0; i < 400; i++) {
            v = nextafter(v, INFINITY);
            uint64_t u = fixed_units(v);
            cr_assert_geq(u, prev, "hp_buf_fixed(%.17g) went down", v);
            cr_assert_leq(u - prev, 1);
            prev = u;
        }
    }
}

Test(buf, u64, .init = setup)
{
    hp_buf_u64(&b, 0);
    cr_assert_str_eq(hp_buf_cstr(&b), "0");
    hp_buf_reset(&b);
    hp_buf_u64(&b, UINT64_MAX);
    cr_assert_str_eq(hp_buf_cstr(&b), "18446744073709551615");
    hp_buf_reset(&b);
    hp_buf_u64(&b, 1);
    hp_buf_chr(&b, ' ');
    hp_buf_u64(&b, 10);
    hp_buf_chr(&b, ' ');
    hp_buf_u64(&b, 1234567890123ull);
    cr_assert_str_eq(hp_buf_cstr(&b), "1 10 1234567890123");
    cr_assert_eq(b.len, strlen("1 10 1234567890123"));
}

Test(buf, u64w_padding, .init = setup)
{
    hp_buf_u64w(&b, 42, 6);
    cr_assert_str_eq(hp_buf_cstr(&b), "    42");
    hp_buf_reset(&b);
    hp_buf_u64w(&b, 0, 3);
    cr_assert_str_eq(hp_buf_cstr(&b), "  0");
    hp_buf_reset(&b);
    hp_buf_u64w(&b, 123456, 3);                  /* never truncated */
    cr_assert_str_eq(hp_buf_cstr(&b), "123456");
    hp_buf_reset(&b);
    hp_buf_u64w(&b, 123456, 6);
    cr_assert_str_eq(hp_buf_cstr(&b), "123456");
    hp_buf_reset(&b);
    hp_buf_u64w(&b, 7, 0);
    cr_assert_str_eq(hp_buf_cstr(&b), "7");
    hp_buf_reset(&b);
    hp_buf_u64w(&b, UINT64_MAX, 22);
    cr_assert_str_eq(hp_buf_cstr(&b), "  18446744073709551615");
}

Test(buf, strings, .init = setup)
{
    hp_buf_str(&b, "ab");
    hp_buf_chr(&b, '|');
    hp_buf_put(&b, "xyz123", 3);
    hp_buf_str(&b, "");
    cr_assert_str_eq(hp_buf_cstr(&b), "ab|xyz");
    cr_assert_eq(b.len, 6);
    hp_buf_reset(&b);
    cr_assert_eq(b.len, 0);
    cr_assert_str_eq(hp_buf_cstr(&b), "");
    hp_buf_strw(&b, "ab", 5);
    hp_buf_chr(&b, '|');
    hp_buf_strw(&b, "abcdef", 3);
    hp_buf_chr(&b, '|');
    hp_buf_strw(&b, "", 2);
    hp_buf_chr(&b, '|');
    cr_assert_str_eq(hp_buf_cstr(&b), "ab   |abcdef|  |");
}

Test(buf, large_content_and_write, .init = setup)
{
    enum { N = 200000 };
    for (int i = 0; i < N; i++) {
        hp_buf_u64(&b, (uint64_t)i);
        hp_buf_chr(&b, '\n');
    }
    cr_assert_eq(b.failed, 0);
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    cr_assert_eq(hp_buf_write(&b, fileno(f)), 0);
    cr_assert_eq((size_t)lseek(fileno(f), 0, SEEK_CUR), b.len);
    rewind(f);
    char line[32];
    for (int i = 0; i < N; i++) {
        cr_assert_not_null(fgets(line, sizeof line, f));
        char want[32];
        snprintf(want, sizeof want, "%d\n", i);
        cr_assert_str_eq(line, want);
    }
    cr_assert_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_eq(hp_buf_write(&b, -1), -1);
}

Test(buf, out_of_room_sets_failed)
{
    hp_buf s;
    cr_assert_eq(hp_buf_init(&s, 4096), 0);
    char big[5000];
    memset(big, 'x', sizeof big);
    hp_buf_put(&s, big, 4095);                   /* fits, with room for the NUL */
    cr_assert_eq(s.failed, 0);
    cr_assert_eq(s.len, 4095);
    hp_buf_chr(&s, 'y');
    cr_assert_eq(s.failed, 1);
    cr_assert_eq(s.len, 4095);                   /* nothing half-written */
    cr_assert_eq(strlen(hp_buf_cstr(&s)), 4095);
    hp_buf_reset(&s);
    cr_assert_eq(s.failed, 0);
    hp_buf_put(&s, big, sizeof big);
    cr_assert_eq(s.failed, 1);
    cr_assert_eq(s.len, 0);
}

/* The write callback: every output write goes through it, and the raw
 * write comes back when it is cleared. */
static char captured[256];
static size_t ncaptured;
static int capture_fd;

static int capture(int fd, const void *p, size_t n)
{
    capture_fd = fd;
    if (ncaptured + n > sizeof captured) return -1;
    memcpy(captured + ncaptured, p, n);
    ncaptured += n;
    return 0;
}

Test(buf, writes_go_through_the_write_callback)
{
    hp_buf s;
    cr_assert_eq(hp_buf_init(&s, 1 << 16), 0);
    hp_buf_str(&s, "JOB \"x\"\n");
    hp_buf_set_writer(capture);
    cr_assert_eq(hp_buf_write(&s, 42), 0);
    cr_assert_eq(capture_fd, 42);
    cr_assert_eq(ncaptured, 8);
    cr_assert_eq(memcmp(captured, "JOB \"x\"\n", 8), 0);
    hp_buf_str(&s, "y");
    cr_assert_eq(hp_buf_write(&s, 7), 0);
    cr_assert_eq(ncaptured, 17);   /* the whole buffer again, then "y" */
    cr_assert_eq(memcmp(captured + 8, "JOB \"x\"\ny", 9), 0);
    hp_buf_set_writer(NULL);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(hp_buf_write(&s, p[1]), 0);
    char got[16] = {0};
    cr_assert_eq(read(p[0], got, sizeof got), 9);
    cr_assert_str_eq(got, "JOB \"x\"\ny");
    cr_assert_eq(ncaptured, 17);   /* the callback no longer called */
    close(p[0]);
    close(p[1]);
}
