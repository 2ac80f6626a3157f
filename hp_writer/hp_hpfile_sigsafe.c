/* hp_hpfile_sigsafe: the .hp writer (see hp_hpfile.h). Async-signal-safe:
 * the SIGINT/SIGTERM finisher writes the closing sample. */
#include "hp_writer/hp_hpfile.h"

#include <string.h>

static void put_quoted(hp_buf *b, const char *s)
{
    hp_buf_chr(b, '"');
    for (; *s; s++) hp_buf_chr(b, (*s == '"' || *s == '\n' || *s == '\r') ? '\'' : *s);
    hp_buf_chr(b, '"');
}

int hp_hp_header(hp_buf *b, int fd, const char *job, const char *date)
{
    hp_buf_reset(b);
    hp_buf_str(b, "JOB ");
    put_quoted(b, job);
    hp_buf_str(b, "\nDATE ");
    put_quoted(b, date);
    hp_buf_str(b, "\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n"
                  "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n");
    if (b->failed) return -1;
    return hp_buf_write(b, fd);
}

int hp_hp_sample(hp_buf *b, int fd, double t, const char *const *labels,
                 const uint64_t *values, size_t n)
{
    hp_buf_reset(b);
    hp_buf_str(b, "BEGIN_SAMPLE ");
    hp_buf_fixed(b, t, 6);
    hp_buf_chr(b, '\n');
    for (size_t i = 0; i < n; i++) {
        if (values[i] == 0) continue;
        hp_buf_str(b, labels[i]);
        hp_buf_chr(b, '\t');
        hp_buf_u64(b, values[i]);
        hp_buf_chr(b, '\n');
    }
    hp_buf_str(b, "END_SAMPLE ");
    hp_buf_fixed(b, t, 6);
    hp_buf_chr(b, '\n');
    if (b->failed) return -1;
    return hp_buf_write(b, fd);
}

static const char *const keywords[] = {
    "JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT", "MARK", "BEGIN_SAMPLE", "END_SAMPLE"};

void hp_hp_sanitize_label(char *s, size_t cap)
{
    if (cap == 0) return;
    if (s[0] == 0) {
        const char *u = "UNKNOWN";
        size_t n = strlen(u) < cap - 1 ? strlen(u) : cap - 1;
        memcpy(s, u, n);
        s[n] = 0;
        return;
    }
    for (char *p = s; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == 0x7f) *p = '_';
    int bad = (s[0] >= '0' && s[0] <= '9');
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (strcmp(s, keywords[k]) == 0) bad = 1;
    if (!bad) return;
    size_t n = strlen(s);
    if (n + 2 <= cap) {
        memmove(s + 1, s, n + 1);
        s[0] = '_';
    } else {
        s[0] = '_';
    }
}

static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Civil date from days since 1970-01-01 (Howard Hinnant's algorithm). */
static void civil(long long z, int *y, int *m, int *d)
{
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

void hp_hp_date(char *out, size_t cap, long long t)
{
    long long days_since = t >= 0 ? t / 86400 : (t - 86399) / 86400;
    long long secs = t - days_since * 86400;
    int y, m, d;
    civil(days_since, &y, &m, &d);
    int wd = (int)(((days_since % 7) + 7 + 4) % 7);   /* 1970-01-01 was a Thursday */
    int hh = (int)(secs / 3600), mm = (int)(secs % 3600 / 60);
    char tmp[64];
    /* Format without stdio: "Www Mmm dd hh:mm yyyy" */
    size_t n = 0;
    const char *w = days[wd], *mo = months[m - 1];
    memcpy(tmp + n, w, 3); n += 3; tmp[n++] = ' ';
    memcpy(tmp + n, mo, 3); n += 3; tmp[n++] = ' ';
    tmp[n++] = (char)('0' + d / 10); tmp[n++] = (char)('0' + d % 10); tmp[n++] = ' ';
    tmp[n++] = (char)('0' + hh / 10); tmp[n++] = (char)('0' + hh % 10); tmp[n++] = ':';
    tmp[n++] = (char)('0' + mm / 10); tmp[n++] = (char)('0' + mm % 10); tmp[n++] = ' ';
    tmp[n++] = (char)('0' + y / 1000 % 10); tmp[n++] = (char)('0' + y / 100 % 10);
    tmp[n++] = (char)('0' + y / 10 % 10); tmp[n++] = (char)('0' + y % 10);
    if (n >= cap) n = cap - 1;
    memcpy(out, tmp, n);
    out[n] = 0;
}
