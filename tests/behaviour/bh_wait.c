/* bh_wait: allocate, then block until a signal, for the SIGTERM/SIGINT
 * behaviour tests.
 * usage: bh_wait [handler] [collect]
 * Keeps 100 objects from wait_site (40 bytes), optionally collects once
 * (collect), prints "ready" and pauses. With handler it installs its own
 * SIGTERM handler: after the signal it prints "caught signal 15" and
 * exits 0. Without one, the signal's default action ends it. */
#define _POSIX_C_SOURCE 200809L
#include <gc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 100

static void *keep[N];
static volatile sig_atomic_t got;

static void on_term(int sig)
{
    got = sig;
}

__attribute__((noinline)) static void *wait_site(void)
{
    return GC_MALLOC(40);
}

int main(int argc, char **argv)
{
    int handler = 0, collect = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "handler") == 0) handler = 1;
        if (strcmp(argv[i], "collect") == 0) collect = 1;
    }
    GC_INIT();
    GC_expand_hp(256 << 20);
    /* SIGTERM and SIGINT stay blocked until sigsuspend() waits for them,
     * so one that arrives before the wait is not lost (pause() after a
     * check of `got` could miss it and hang). */
    sigset_t block, during;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &during);
    sigdelset(&during, SIGTERM);
    sigdelset(&during, SIGINT);
    if (handler) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
    }
    for (int i = 0; i < N; i++) keep[i] = wait_site();
    if (collect) GC_gcollect();
    printf("ready\n");
    fflush(stdout);
    while (!got) sigsuspend(&during);
    printf("caught signal %d\n", (int)got);
    return 0;
}
