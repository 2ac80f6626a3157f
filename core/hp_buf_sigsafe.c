/* hp_buf_sigsafe: byte buffer and formatting (see hp_buf.h). Async-signal-safe. */
#include "core/hp_sys.h"
#include "core/hp_buf.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int hp_buf_init(hp_buf *b, size_t max_bytes)
{
    b->len = 0;
    b->failed = 0;
    return hp_vec_reserve(&b->vec, max_bytes);
}

void hp_buf_reset(hp_buf *b)
{
    b->len = 0;
    b->failed = 0;
}

void hp_buf_put(hp_buf *b, const char *s, size_t n)
{
    if (hp_vec_ensure(&b->vec, b->len + n + 1) != 0) {
        b->failed = 1;
        return;
    }
    memcpy(b->vec.base + b->len, s, n);
    b->len += n;
}

void hp_buf_str(hp_buf *b, const char *s) { hp_buf_put(b, s, strlen(s)); }
void hp_buf_chr(hp_buf *b, char c) { hp_buf_put(b, &c, 1); }

static int fmt_u64(char *out, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (int i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

void hp_buf_u64(hp_buf *b, uint64_t v)
{
    char s[24];
    hp_buf_put(b, s, (size_t)fmt_u64(s, v));
}

void hp_buf_u64w(hp_buf *b, uint64_t v, int width)
{
    char s[24];
    int n = fmt_u64(s, v);
    for (int i = n; i < width; i++) hp_buf_chr(b, ' ');
    hp_buf_put(b, s, (size_t)n);
}

void hp_buf_fixed(hp_buf *b, double v, int decimals)
{
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10;
    if (!(v >= 0)) v = 0;                 /* also catches NaN */
    if (v > 1e12) v = 1e12;
    uint64_t units = (uint64_t)(v * (double)scale + 0.5);
    hp_buf_u64(b, units / scale);
    if (decimals <= 0) return;
    hp_buf_chr(b, '.');
    char s[24];
    uint64_t frac = units % scale;
    for (int i = decimals - 1; i >= 0; i--) { s[i] = (char)('0' + frac % 10); frac /= 10; }
    hp_buf_put(b, s, (size_t)decimals);
}

void hp_buf_strw(hp_buf *b, const char *s, int width)
{
    size_t n = strlen(s);
    hp_buf_put(b, s, n);
    for (int i = (int)n; i < width; i++) hp_buf_chr(b, ' ');
}

const char *hp_buf_cstr(hp_buf *b)
{
    if (hp_vec_ensure(&b->vec, b->len + 1) != 0) return "";
    b->vec.base[b->len] = 0;
    return (const char *)b->vec.base;
}

static hp_write_fn writer;   /* NULL: hp_sys_write_all */

void hp_buf_set_writer(hp_write_fn fn) { writer = fn; }

static int first_error;

int hp_buf_write_error(void) { return first_error; }
void hp_buf_write_error_reset(void) { first_error = 0; }

int hp_buf_write(hp_buf *b, int fd)
{
    int rc = writer ? writer(fd, b->vec.base, b->len)
                    : hp_sys_write_all(fd, b->vec.base, b->len);
    if (rc != 0 && !first_error) first_error = errno ? errno : EIO;
    /* Text that could not be put in the buffer is missing from the file:
     * a file written without it is not whole. */
    if (b->failed && !first_error) first_error = ENOMEM;
    return rc != 0 || b->failed ? -1 : 0;
}

void hp_buf_hex(hp_buf *b, uint64_t v)
{
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (n) hp_buf_chr(b, tmp[--n]);
}

static const char *lookup_errno(int err)
{
    static const struct { int err; const char *text; } texts[] = {
        {EPERM, "Operation not permitted"}, {ENOENT, "No such file or directory"},
        {EINTR, "Interrupted system call"}, {EIO, "Input/output error"},
        {EBADF, "Bad file descriptor"}, {ENOMEM, "Cannot allocate memory"},
        {EACCES, "Permission denied"}, {EFAULT, "Bad address"}, {EEXIST, "File exists"},
        {ENOTDIR, "Not a directory"}, {EISDIR, "Is a directory"},
        {EINVAL, "Invalid argument"}, {ENFILE, "Too many open files in system"},
        {EMFILE, "Too many open files"}, {ETXTBSY, "Text file busy"},
        {EFBIG, "File too large"}, {ENOSPC, "No space left on device"},
        {EROFS, "Read-only file system"}, {EPIPE, "Broken pipe"},
        {ENAMETOOLONG, "File name too long"},
        {ELOOP, "Too many levels of symbolic links"}, {EDQUOT, "Disk quota exceeded"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i].err == err) return texts[i].text;
    return NULL;
}

const char *hp_errno_text(int err)
{
    const char *t = lookup_errno(err);
    return t ? t : "the system refused it";
}

void hp_buf_errno(hp_buf *b, int err)
{
    const char *t = lookup_errno(err);
    if (t) {
        hp_buf_str(b, t);
        return;
    }
    hp_buf_str(b, "error ");
    hp_buf_u64(b, (uint64_t)(err < 0 ? -err : err));
}
