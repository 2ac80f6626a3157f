/* hp_closest_sigsafe: the nearest names (see hp_closest.h). The edit
 * distance by the two-row dynamic programme, on the stack. */
#include "hp_writer/hp_closest.h"

#include <string.h>

static char lower(char ch) { return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch; }

static size_t copy_cut(char *dst, const char *src, size_t len)
{
    if (len > HP_CLOSEST_LEN - 1) len = HP_CLOSEST_LEN - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
    return len;
}

static int distance(const char *a, size_t na, const char *b, size_t nb)
{
    int prev[HP_CLOSEST_LEN], cur[HP_CLOSEST_LEN];
    for (size_t j = 0; j <= nb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int sub = prev[j - 1] + (lower(a[i - 1]) != lower(b[j - 1]));
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (nb + 1) * sizeof(int));
    }
    return prev[nb];
}

void hp_closest_init(hp_closest *c, const char *want)
{
    memset(c, 0, sizeof *c);
    copy_cut(c->want, want, strlen(want));
}

void hp_closest_offer(hp_closest *c, const char *name, size_t len)
{
    char cand[HP_CLOSEST_LEN];
    size_t nc = copy_cut(cand, name, len), nw = strlen(c->want);
    if (nc == 0) return;
    for (int k = 0; k < c->n; k++)
        if (strcmp(c->best[k], cand) == 0) return;
    int d = distance(c->want, nw, cand, nc);
    if (d > 1 && nw >= 3) {
        /* A name that contains the wanted one (case ignored) is near. */
        for (size_t i = 0; i + nw <= nc && d > 1; i++) {
            size_t j = 0;
            while (j < nw && lower(cand[i + j]) == lower(c->want[j])) j++;
            if (j == nw) d = 1;
        }
    }
    int limit = (int)nw / 2 > 2 ? (int)nw / 2 : 2;
    if (d == 0 || d > limit) return;
    int at = c->n;
    while (at > 0 && c->dist[at - 1] > d) at--;
    if (at >= HP_CLOSEST_KEEP) return;
    int last = c->n < HP_CLOSEST_KEEP ? c->n : HP_CLOSEST_KEEP - 1;
    for (int k = last; k > at; k--) {
        memcpy(c->best[k], c->best[k - 1], HP_CLOSEST_LEN);
        c->dist[k] = c->dist[k - 1];
    }
    memcpy(c->best[at], cand, HP_CLOSEST_LEN);
    c->dist[at] = d;
    if (c->n < HP_CLOSEST_KEEP) c->n++;
}

int hp_closest_print(const hp_closest *c, hp_buf *out)
{
    for (int k = 0; k < c->n; k++) {
        if (k) hp_buf_str(out, ", ");
        hp_buf_str(out, c->best[k]);
    }
    return c->n;
}
