/* ls_blocked_thread: a worker thread that blocks every signal with
 * pthread_sigmask and then uses heap objects (the fault on a protected page
 * with SIGSEGV blocked killed the process under ldv), and reads its mask
 * back; a second worker is created while the first's mask is in force and
 * reads the mask it inherited. Issue "ldv never breaks a program", point 2. */
#define GC_THREADS
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include "ls_common.h"

static ls_node *list;

static void *inner(void *arg)
{
    (void)arg;
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    printf("inner: SIGSEGV %s, SIGTRAP %s, SIGSYS %s, SIGUSR1 %s\n",
           sigismember(&now, SIGSEGV) ? "blocked" : "open", sigismember(&now, SIGTRAP) ? "blocked" : "open",
           sigismember(&now, SIGSYS) ? "blocked" : "open", sigismember(&now, SIGUSR1) ? "blocked" : "open");
    printf("inner: sum %ld\n", ls_touch(list));
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    sigset_t all, old, now;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    printf("worker: SIGSEGV was %s\n", sigismember(&old, SIGSEGV) ? "blocked" : "open");
    printf("worker: sum %ld\n", ls_touch(list));
    GC_gcollect();
    printf("worker: sum again %ld\n", ls_touch(list));
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    printf("worker: SIGSEGV now %s\n", sigismember(&now, SIGSEGV) ? "blocked" : "open");
    pthread_t t;
    pthread_create(&t, NULL, inner, NULL);
    pthread_join(t, NULL);
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_UNBLOCK, &segv, NULL);
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    printf("worker: after unblocking SIGSEGV: %s, SIGUSR1 %s\n",
           sigismember(&now, SIGSEGV) ? "blocked" : "open", sigismember(&now, SIGUSR1) ? "blocked" : "open");
    return NULL;
}

int main(void)
{
    GC_INIT();
    list = ls_build(20000);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("main: sum %ld\n", ls_touch(list));
    return 0;
}
