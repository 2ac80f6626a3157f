/* Unit tests for hp_writer/hp_hpfile: the exact bytes of the .hp header and
 * of samples, label sanitising (one word, not starting with a digit, not a
 * keyword, no '"'), and GHC's DATE format. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hp_writer/hp_hpfile.h"

static hp_buf b;
static FILE *f;

static void setup(void)
{
    cr_assert_eq(hp_buf_init(&b, (size_t)16 << 20), 0);
    f = tmpfile();
    cr_assert_not_null(f);
}

static void teardown(void)
{
    if (f) fclose(f);
}

/* Everything written to the file so far. */
static const char *file_text(void)
{
    static char text[1 << 16];
    off_t n = lseek(fileno(f), 0, SEEK_END);
    cr_assert_lt(n, (off_t)sizeof text);
    cr_assert_eq(pread(fileno(f), text, (size_t)n, 0), n);
    text[n] = 0;
    return text;
}

#define HEADER_TAIL "SAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n" \
                    "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n"

Test(hpfile, header_bytes, .init = setup, .fini = teardown)
{
    cr_assert_eq(hp_hp_header(&b, fileno(f), "./app -n 3", "Thu Jan 01 00:00 1970"), 0);
    cr_assert_str_eq(file_text(),
                     "JOB \"./app -n 3\"\n"
                     "DATE \"Thu Jan 01 00:00 1970\"\n" HEADER_TAIL);
}

Test(hpfile, header_quotes_replaced, .init = setup, .fini = teardown)
{
    cr_assert_eq(hp_hp_header(&b, fileno(f), "echo \"hi\"\nthere", "D\"x"), 0);
    const char *t = file_text();
    cr_assert_str_eq(t, "JOB \"echo 'hi''there\"\nDATE \"D'x\"\n" HEADER_TAIL);
    /* Exactly four quotes on each of the first two lines. */
    int quotes = 0;
    for (const char *p = t; *p && p < strstr(t, "SAMPLE_UNIT"); p++) quotes += *p == '"';
    cr_assert_eq(quotes, 4);
}

Test(hpfile, header_empty_job, .init = setup, .fini = teardown)
{
    cr_assert_eq(hp_hp_header(&b, fileno(f), "", ""), 0);
    cr_assert_str_eq(file_text(), "JOB \"\"\nDATE \"\"\n" HEADER_TAIL);
}

Test(hpfile, sample_bytes, .init = setup, .fini = teardown)
{
    const char *labels[] = {"main", "f/main", "g/h/main", "big"};
    const uint64_t values[] = {4096, 0, 32, UINT64_MAX};
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 1.5, labels, values, 4), 0);
    cr_assert_str_eq(file_text(),
                     "BEGIN_SAMPLE 1.500000\n"
                     "main\t4096\n"
                     "g/h/main\t32\n"
                     "big\t18446744073709551615\n"
                     "END_SAMPLE 1.500000\n");
}

Test(hpfile, samples_append, .init = setup, .fini = teardown)
{
    const char *labels[] = {"a"};
    const uint64_t one[] = {16};
    cr_assert_eq(hp_hp_header(&b, fileno(f), "job", "date"), 0);
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 0.1, labels, one, 1), 0);
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 0.1234567, labels, one, 1), 0);
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 2.0, NULL, NULL, 0), 0);
    cr_assert_str_eq(file_text(),
                     "JOB \"job\"\nDATE \"date\"\n" HEADER_TAIL
                     "BEGIN_SAMPLE 0.100000\na\t16\nEND_SAMPLE 0.100000\n"
                     "BEGIN_SAMPLE 0.123457\na\t16\nEND_SAMPLE 0.123457\n"
                     "BEGIN_SAMPLE 2.000000\nEND_SAMPLE 2.000000\n");
}

Test(hpfile, empty_sample, .init = setup, .fini = teardown)
{
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 0, NULL, NULL, 0), 0);
    cr_assert_str_eq(file_text(), "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n");
}

Test(hpfile, all_zero_sample_is_empty, .init = setup, .fini = teardown)
{
    const char *labels[] = {"x", "y"};
    const uint64_t values[] = {0, 0};
    cr_assert_eq(hp_hp_sample(&b, fileno(f), 3.25, labels, values, 2), 0);
    cr_assert_str_eq(file_text(), "BEGIN_SAMPLE 3.250000\nEND_SAMPLE 3.250000\n");
}

Test(hpfile, write_error_reported, .init = setup, .fini = teardown)
{
    cr_assert_eq(hp_hp_header(&b, -1, "j", "d"), -1);
    cr_assert_eq(hp_hp_sample(&b, -1, 0, NULL, NULL, 0), -1);
}

static const char *sanitized(const char *in, size_t cap)
{
    static char s[256];
    cr_assert_lt(strlen(in), cap);
    cr_assert_leq(cap, sizeof s);
    memset(s, '#', sizeof s);
    strcpy(s, in);
    hp_hp_sanitize_label(s, cap);
    cr_assert_lt(strlen(s), cap, "result \"%s\" overflows cap %zu", s, cap);
    return s;
}

#define SANITIZED_IS(in, cap, want) \
    cr_assert_str_eq(sanitized((in), (cap)), (want), "sanitize(\"%s\", %d)", (in), (int)(cap))

Test(hpfile, sanitize)
{
    SANITIZED_IS("a b", 64, "a_b");
    SANITIZED_IS("f/main", 64, "f/main");
    SANITIZED_IS("1abc", 64, "_1abc");
    SANITIZED_IS("JOB", 64, "_JOB");
    SANITIZED_IS("DATE", 64, "_DATE");
    SANITIZED_IS("SAMPLE_UNIT", 64, "_SAMPLE_UNIT");
    SANITIZED_IS("VALUE_UNIT", 64, "_VALUE_UNIT");
    SANITIZED_IS("MARK", 64, "_MARK");
    SANITIZED_IS("BEGIN_SAMPLE", 64, "_BEGIN_SAMPLE");
    SANITIZED_IS("END_SAMPLE", 64, "_END_SAMPLE");
    SANITIZED_IS("JOBS", 64, "JOBS");                 /* only whole keywords */
    SANITIZED_IS("job", 64, "job");
    SANITIZED_IS("", 64, "UNKNOWN");
    SANITIZED_IS("\"quoted\"", 64, "_quoted_");
    SANITIZED_IS("a\"b", 64, "a_b");
    SANITIZED_IS("t\tn\nr\rx\x7fy", 64, "t_n_r_x_y");
    SANITIZED_IS("std::vector<int> f(int, char)", 64, "std::vector<int>_f(int,_char)");
    SANITIZED_IS(" 9", 64, "_9");                     /* blank first, then fine */
    SANITIZED_IS("caf\xc3\xa9", 64, "caf\xc3\xa9");   /* UTF-8 kept */
    SANITIZED_IS("(123)x", 64, "(123)x");
}

Test(hpfile, sanitize_small_cap)
{
    /* No room for a leading '_': the first character becomes '_'. */
    SANITIZED_IS("1abc", 5, "_abc");
    SANITIZED_IS("1abc", 6, "_1abc");
    SANITIZED_IS("JOB", 4, "_OB");
    SANITIZED_IS("JOB", 5, "_JOB");
    SANITIZED_IS("", 4, "UNK");
    SANITIZED_IS("", 8, "UNKNOWN");
    SANITIZED_IS("", 1, "");
}

static const char *date(long long t)
{
    static char out[64];
    memset(out, '#', sizeof out);
    hp_hp_date(out, sizeof out, t);
    return out;
}

Test(hpfile, date_known)
{
    cr_assert_str_eq(date(0), "Thu Jan 01 00:00 1970");
    cr_assert_str_eq(date(1795000000), "Wed Nov 18 11:06 2026");
    cr_assert_str_eq(date(951829620), "Tue Feb 29 13:07 2000");   /* leap day */
    cr_assert_str_eq(date(4102444799LL), "Thu Dec 31 23:59 2099");
    cr_assert_str_eq(date(59), "Thu Jan 01 00:00 1970");
    cr_assert_str_eq(date(86399), "Thu Jan 01 23:59 1970");
    cr_assert_str_eq(date(86400), "Fri Jan 02 00:00 1970");
    cr_assert_str_eq(date(-1), "Wed Dec 31 23:59 1969");
}

Test(hpfile, date_matches_gmtime)
{
    char want[64];
    for (long long t = 0; t < 4102444800LL; t += 7777777) {
        time_t tt = (time_t)t;
        struct tm tm;
        cr_assert_not_null(gmtime_r(&tt, &tm));
        strftime(want, sizeof want, "%a %b %d %H:%M %Y", &tm);
        cr_assert_str_eq(date(t), want, "t = %lld", t);
    }
}

Test(hpfile, date_cut_to_cap)
{
    char out[4];
    hp_hp_date(out, sizeof out, 0);
    cr_assert_str_eq(out, "Thu");
    char one[1] = {'#'};
    hp_hp_date(one, 1, 0);
    cr_assert_eq(one[0], 0);
}
