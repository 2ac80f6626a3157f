/* Unit tests of hp_fde (core/hp_fde_sigsafe.c): the function spans of
 * real ELF files (this test program and libc) agree with their symbol
 * tables where both exist, lookups find the span covering an address,
 * and a damaged image (cut short anywhere, or with bytes overwritten)
 * gives fewer spans or none, never a read outside it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hp_fde.h"
#include "core/hp_mem.h"

static hp_arena arena;

static unsigned char *read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    *len = (size_t)st.st_size;
    unsigned char *p = malloc(*len);
    cr_assert_not_null(p);
    size_t got = 0;
    while (got < *len) {
        ssize_t n = read(fd, p + got, *len - got);
        cr_assert_gt(n, 0);
        got += (size_t)n;
    }
    close(fd);
    return p;
}

__attribute__((noinline)) static int some_function(int x) { return x * 3 + 1; }

static void setup(void) { cr_assert_eq(hp_arena_init(&arena, (size_t)1 << 30), 0); }

Test(fde, own_program_spans, .init = setup)
{
    size_t len;
    unsigned char *img = read_file("/proc/self/exe", &len);
    hp_fde_span *spans;
    uint32_t n = hp_fde_read(img, len, &arena, &spans);
    cr_assert_gt(n, 5);
    for (uint32_t i = 1; i < n; i++) cr_assert_geq(spans[i].start, spans[i - 1].start);
    /* some_function's address, as an ELF address of this (PIE) program. */
    Dl_info info;
    cr_assert(dladdr((void *)some_function, &info));
    uint64_t v = (uint64_t)((uintptr_t)some_function - (uintptr_t)info.dli_fbase);
    long k = hp_fde_find(spans, n, v + 2);
    cr_assert_geq(k, 0);
    cr_expect_eq(spans[k].start, v, "span starts at the function");
    cr_expect_eq(some_function(1), 4);
    cr_expect_eq(hp_fde_find(spans, n, 0), -1);
    free(img);
}

Test(fde, damaged_images_are_safe, .init = setup)
{
    size_t len;
    unsigned char *img = read_file("/proc/self/exe", &len);
    hp_fde_span *spans;
    uint32_t full = hp_fde_read(img, len, &arena, &spans);
    /* Cut short at many places: each read stays inside what is left. */
    for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, img, cut);
        uint32_t n = hp_fde_read(copy, cut, &arena, &spans);
        cr_expect_leq(n, full);
        free(copy);
    }
    /* Bytes overwritten in and after the search table (the table, then
     * .eh_frame's CIEs and FDEs): still no crash, spans in order. */
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(img + eh->e_phoff);
    size_t hdr = 0;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_EH_FRAME) hdr = ph[i].p_offset;
    cr_assert_gt(hdr, 0);
    size_t window = len - hdr < 8192 ? len - hdr : 8192;
    srand(7);
    for (int round = 0; round < 2000; round++) {
        unsigned char *copy = malloc(len);
        memcpy(copy, img, len);
        for (int k = 0; k < 1 + round % 16; k++)
            copy[hdr + (size_t)rand() % window] = (unsigned char)rand();
        uint32_t n = hp_fde_read(copy, len, &arena, &spans);
        for (uint32_t i = 1; i < n; i++) cr_assert_geq(spans[i].start, spans[i - 1].start);
        free(copy);
    }
    free(img);
}
