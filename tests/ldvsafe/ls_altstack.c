/* ls_altstack: a program's alternate signal stack under mode ldv.
 *
 * 1. The stack is a local array of a function that has returned, as
 *    Asymptote's (through libsigsegv) is: the frames of the functions
 *    called next reuse that memory. A deep walk of objects on protected
 *    pages, each frame with a canary, must find every frame intact
 *    (heapprof's faults ran on that stack and overwrote live frames:
 *    Asymptote died of "runtime: Segmentation fault").
 * 2. sigaltstack tells the program what it asked for.
 * 3. A real stack overflow, in a child, still reaches the program's
 *    SA_ONSTACK handler, which sees itself on its alternate stack
 *    (SS_ONSTACK) and is refused a change of it (EPERM), as without
 *    heapprof.
 * 4. SS_DISABLE takes the stack away.
 * 5. Threads that each give a stack of their own, walk, and end. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define GC_THREADS
#include "ls_common.h"

static void *given_sp;
static size_t given_size;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    stack_t ss;
    char b[160];
    int on = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
    int same = ss.ss_sp == given_sp && ss.ss_size == given_size;
    stack_t other = {.ss_sp = given_sp, .ss_flags = 0, .ss_size = given_size};
    int r = sigaltstack(&other, NULL);
    int perm = r == -1 && errno == EPERM;
    int n = snprintf(b, sizeof b, "handler: on its alternate stack %d, the stack it gave %d, "
                     "a change refused with EPERM %d\n", on, same, perm);
    write(1, b, n);
    _exit(7);
}

/* Asymptote's setsignal(): the alternate stack is this frame's array. */
static __attribute__((noinline)) void set_up_on_this_frame(void)
{
    char stack[16384];
    stack_t ss = {.ss_sp = stack, .ss_flags = 0, .ss_size = sizeof stack};
    if (sigaltstack(&ss, NULL) != 0) perror("sigaltstack");
    given_sp = stack;
    given_size = sizeof stack;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
}

static int bad_frames;

static __attribute__((noinline)) long walk(ls_node *x, int depth)
{
    volatile long canary[16];
    for (int i = 0; i < 16; i++) canary[i] = (long)depth * 1000 + i;
    long s = 0;
    if (x) {
        s = x->value;
        s += walk(x->next, depth + 1);
    }
    for (int i = 0; i < 16; i++)
        if (canary[i] != (long)depth * 1000 + i) {
            bad_frames++;
            break;
        }
    return s;
}

static __attribute__((noinline)) long recurse(volatile char *p)
{
    volatile char here[512];
    if (p == (volatile char *)1) return 0;   /* (never: the recursion ends in SIGSEGV) */
    here[0] = p ? p[0] : 1;
    return recurse(here) + here[1];
}

static ls_node *shared_list;

static void *thread_main(void *arg)
{
    static __thread char tstack[32768];
    stack_t ss = {.ss_sp = tstack, .ss_flags = 0, .ss_size = sizeof tstack};
    if (sigaltstack(&ss, NULL) != 0) perror("sigaltstack");
    *(long *)arg = walk(shared_list, 0);
    return NULL;
}

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(4000);
    set_up_on_this_frame();
    long sum = 0;
    for (int round = 0; round < 3; round++) {
        sum += walk(list, 0);
        GC_gcollect();   /* (under ldv: protected again) */
    }
    printf("walk: sum %ld, frames damaged %d\n", sum, bad_frames);

    stack_t ss;
    sigaltstack(NULL, &ss);
    printf("view: the stack it gave %d, flags %d\n", ss.ss_sp == given_sp && ss.ss_size == given_size,
           ss.ss_flags);
    fflush(stdout);

    pid_t pid = fork();
    if (pid == 0) {
        static char big[65536];
        stack_t s2 = {.ss_sp = big, .ss_flags = 0, .ss_size = sizeof big};
        sigaltstack(&s2, NULL);
        given_sp = big;
        given_size = sizeof big;
        printf("child: sum %ld\n", ls_touch(list));
        fflush(stdout);
        recurse(NULL);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child: exited %d with %d\n", WIFEXITED(status), WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
    int r = sigaltstack(&off, NULL);
    sigaltstack(NULL, &ss);
    printf("disabled: %d, flags %d\n", r, ss.ss_flags);
    printf("walk again: sum %ld, frames damaged %d\n", walk(list, 0), bad_frames);

    shared_list = list;
    long total = 0;
    for (int round = 0; round < 8; round++) {
        pthread_t t[4];
        long sums[4];
        for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, thread_main, &sums[i]);
        for (int i = 0; i < 4; i++) {
            pthread_join(t[i], NULL);
            total += sums[i];
        }
        GC_gcollect();
    }
    printf("threads: sum %ld, frames damaged %d\n", total, bad_frames);
    return 0;
}
