/* names_jit: allocation from code no module covers (tests/integration/
 * test_names.py). main copies a tiny function into an anonymous
 * executable mapping, as a JIT compiler does:
 *
 *     sub $8,%rsp; mov $32,%edi; movabs $GC_malloc,%rax; call *%rax;
 *     add $8,%rsp; ret
 *
 * and calls it N times; it has no unwind tables. Prints "JIT n bytes". */
#define _GNU_SOURCE
#include <gc/gc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define N 500

static void *keep[N];

int main(void)
{
    GC_INIT();
    unsigned char code[] = {0x48, 0x83, 0xec, 0x08,             /* sub $8,%rsp */
                            0xbf, 0x20, 0x00, 0x00, 0x00,       /* mov $32,%edi */
                            0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, /* movabs $GC_malloc,%rax */
                            0xff, 0xd0,                         /* call *%rax */
                            0x48, 0x83, 0xc4, 0x08,             /* add $8,%rsp */
                            0xc3};                              /* ret */
    void *(*target)(size_t) = GC_malloc;
    uintptr_t t = (uintptr_t)target;
    memcpy(code + 11, &t, 8);
    unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return 1;
    memcpy(mem, code, sizeof code);
    void *(*fn)(void) = (void *(*)(void))mem;
    for (int i = 0; i < N; i++) keep[i] = fn();
    GC_gcollect();
    printf("JIT %d %zu\n", N, (size_t)N * GC_size(keep[0]));
    return 0;
}
