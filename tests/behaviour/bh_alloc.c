/* bh_alloc: a small libgc program for heapprof's behaviour tests. It prints
 * a start line, echoes each stdin line reversed (copied into GC strings),
 * keeps KEEP 24-byte cells live from a global, collects once, and exits
 * with the status given as argv[1] (via exit(), so atexit handlers run). */
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEEP 100

static void *keep[KEEP];

__attribute__((noinline)) static void *make_cell(void)
{
    return GC_MALLOC(24);
}

__attribute__((noinline)) static char *reverse_line(const char *s, size_t n)
{
    char *p = GC_MALLOC_ATOMIC(n + 1);
    for (size_t i = 0; i < n; i++) p[i] = s[n - 1 - i];
    p[n] = 0;
    return p;
}

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 0;
    GC_INIT();
    GC_expand_hp(256 << 20);
    printf("bh_alloc start\n");
    for (int i = 0; i < KEEP; i++) keep[i] = make_cell();
    char line[4096];
    unsigned long lines = 0, bytes = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\n");
        char *r = reverse_line(line, n);
        printf("%s\n", r);
        lines++;
        bytes += n;
    }
    GC_gcollect();
    printf("lines=%lu bytes=%lu status=%d\n", lines, bytes, status);
    exit(status);
}
