/* sf_ldv_probe: a program that probes addresses with its own SIGSEGV
 * handler (SA_NODEFER, leaving by longjmp, as some runtimes and libraries
 * do), then uses its GC heap. Under ldv the heap's pages are protected:
 * after the probes a fault on them must still be heapprof's to handle.
 * Issue "ldv never breaks a program", point 3. */
#define _GNU_SOURCE
#include <gc/gc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static jmp_buf probe_env;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    longjmp(probe_env, 1);
}

static int readable(volatile const char *p)
{
    if (setjmp(probe_env)) return 0;
    (void)*p;
    return 1;
}

typedef struct node { struct node *next; long v; } node;

int main(void)
{
    GC_INIT();
    node *list = NULL;
    for (long i = 0; i < 20000; i++) {
        node *n = GC_MALLOC(sizeof *n);
        n->v = i;
        n->next = list;
        list = n;
    }
    GC_gcollect();   /* ldv protects the heap's pages after a collection */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    char *hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int a = readable(hole), b = readable(hole + 8);
    long sum = 0;
    for (node *n = list; n; n = n->next) sum += n->v;   /* faults on protected pages */
    printf("probes %d %d, sum %ld\n", a, b, sum);
    return 0;
}
