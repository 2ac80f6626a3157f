/* ls_signal_in_gc: a timer signal whose handler reads heap objects arrives
 * while the collector runs (every 200 us, through 40 collections of a heap
 * of 2,000 separate runs of pages). Under ldv a signal taken while
 * heapprof opened the pages at a collection's start made the handler fault
 * on a page not yet open and wait for its own thread (a hang), or be
 * chained to the program as a crash; crystal build hung so in 1 of 4 runs.
 * Issue "ldv never breaks a program", point 1. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <gc/gc.h>

#define PG 4096
#define OBJS 4000

static char **keep;
static volatile long wrong, ticks;

static void on_alarm(int sig)
{
    (void)sig;
    long s = 0, n = 0;
    for (int i = (int)(ticks % 251); i < OBJS / 2; i += 251, n++) s += keep[i][0];
    if (s != n) wrong++;   /* every byte read is 1 */
    ticks++;
}

int main(void)
{
    GC_INIT();
    char **all = GC_MALLOC(OBJS * sizeof *all);
    for (int i = 0; i < OBJS; i++) {
        all[i] = GC_MALLOC_ATOMIC(PG - 16);
        memset(all[i], 1, 64);
    }
    keep = GC_MALLOC(OBJS / 2 * sizeof *keep);
    for (int i = 0; i < OBJS; i += 2) keep[i / 2] = all[i];
    memset(all, 0, OBJS * sizeof *all);
    all = NULL;
    GC_gcollect();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int c = 0; c < 40; c++) {
        GC_gcollect();
        for (int i = 0; i < 10; i++) (void)GC_MALLOC(64);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("40 collections; the handler ran%s, read wrong %ld times\n",
           ticks > 0 ? "" : " never", wrong);
    return 0;
}
