/* hp_buf: a growable byte buffer with its own number formatting, so output
 * can be built without malloc or stdio (async-signal-safe: used when a
 * SIGINT/SIGTERM finishes the files). */
#ifndef HP_BUF_H
#define HP_BUF_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_mem.h"

typedef struct hp_buf {
    hp_vec vec;
    size_t len;
    int failed;      /* out of memory: the content is incomplete */
} hp_buf;

int hp_buf_init(hp_buf *b, size_t max_bytes);
void hp_buf_reset(hp_buf *b);
void hp_buf_put(hp_buf *b, const char *s, size_t n);
void hp_buf_str(hp_buf *b, const char *s);
void hp_buf_chr(hp_buf *b, char c);
void hp_buf_u64(hp_buf *b, uint64_t v);
/* Lower-case hexadecimal, no prefix, no leading zeros. */
void hp_buf_hex(hp_buf *b, uint64_t v);
/* Right-aligned in `width` columns. */
void hp_buf_u64w(hp_buf *b, uint64_t v, int width);
/* Fixed point with `decimals` digits after the point, as printf("%.*f")
 * prints it in the C locale, except within one rounding step of a digit
 * boundary, where the last digit may be one higher (v is scaled in double
 * arithmetic, then rounded half up). Output never decreases as v grows,
 * which is what .hp times need. v < 0 and NaN print as 0. */
void hp_buf_fixed(hp_buf *b, double v, int decimals);
/* Left-aligned string padded to `width` columns. */
void hp_buf_strw(hp_buf *b, const char *s, int width);
/* The text of errno value `err`, as strerror() gives it in the C locale
 * for the errors a file can meet ("error N" for others): strerror is not
 * async-signal-safe. */
void hp_buf_errno(hp_buf *b, int err);
/* The same text as a string. */
const char *hp_errno_text(int err);
const char *hp_buf_cstr(hp_buf *b);   /* NUL-terminated view */
/* Write the whole buffer to fd (retrying short writes). 0 or -1. Every
 * output file of heapprof (.hp, .prof, .alloc.csv) is written through
 * here, so the writers are fed through one write callback: the raw
 * write(2) (core/hp_sys.h), or a function a test puts in its place (as
 * jemalloc's prof_sys.c lets its tests swap prof_dump_write). */
int hp_buf_write(hp_buf *b, int fd);
/* The write callback: writes all of [p, p+n) to fd, 0 or -1 (errno set).
 * NULL restores the raw write. Set it before output starts. */
typedef int (*hp_write_fn)(int fd, const void *p, size_t n);
void hp_buf_set_writer(hp_write_fn fn);
/* The errno of the first hp_buf_write that failed since the last reset,
 * or 0: a writer made of many writes checks once, at its end. */
int hp_buf_write_error(void);
void hp_buf_write_error_reset(void);

#endif
