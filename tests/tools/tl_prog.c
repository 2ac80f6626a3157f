/* tl_prog: the program the launcher tests (tests/tools/test_launcher.py)
 * run through `heapprof`. Built twice: tl_gc (linked with libgc, -DUSE_GC)
 * and tl_nogc (not linked with libgc). argv[1] says what to do:
 *   env ARGS...  print HEAPPROF, LD_PRELOAD, the pid and every argument
 *   exit N       exit with status N
 *   cat          copy standard input to standard output
 *   wait         (tl_gc: allocate, collect) print "ready PID", then pause()
 *   raise N      raise signal N
 *   alloc        (tl_gc) keep 100 objects of GC_malloc(24) from alloc_some
 *                alive in a global, collect once, exit 0 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef USE_GC
#include <gc.h>
#endif

#ifdef USE_GC
static void *volatile keep[100];

__attribute__((noinline)) static void alloc_some(void)
{
    for (int i = 0; i < 100; i++) keep[i] = GC_malloc(24);
}

static void gc_start(void)
{
    GC_INIT();
    GC_expand_hp(64 << 20);
    alloc_some();
    GC_gcollect();
}
#else
static void gc_start(void) {}
#endif

static void show(const char *name)
{
    const char *v = getenv(name);
    printf("%s%s%s\n", name, v ? "=" : " unset", v ? v : "");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "env";
    if (strcmp(what, "env") == 0) {
        show("HEAPPROF");
        show("LD_PRELOAD");
        printf("pid %ld\nargc %d\n", (long)getpid(), argc);
        for (int i = 0; i < argc; i++) printf("argv[%d]=[%s]\n", i, argv[i]);
        return 0;
    }
    if (strcmp(what, "exit") == 0 && argc > 2) {
        printf("exiting with %d\n", atoi(argv[2]));
        return atoi(argv[2]);
    }
    if (strcmp(what, "cat") == 0) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) fwrite(buf, 1, n, stdout);
        return 0;
    }
    if (strcmp(what, "wait") == 0) {
        gc_start();
        printf("ready %ld\n", (long)getpid());
        fflush(stdout);
        for (;;) pause();
    }
    if (strcmp(what, "raise") == 0 && argc > 2) {
        fflush(stdout);
        raise(atoi(argv[2]));
        return 99;
    }
    if (strcmp(what, "alloc") == 0) {
        gc_start();
        printf("allocated\n");
        return 0;
    }
    fprintf(stderr, "tl_prog: unknown command %s\n", what);
    return 64;
}
