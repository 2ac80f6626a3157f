/* ls_own_protect: a program that tracks writes to a heap buffer itself,
 * as write barriers and snapshotting do: it mprotects the buffer's pages
 * read-only, counts the first write to each page in its own SIGSEGV
 * handler (which opens the page), and reads the buffer in between, across
 * collections (under ldv each collection protects the buffer's pages for
 * heapprof). One page it keeps PROT_NONE as a guard and probes. Issue "ldv
 * never breaks a program", point 6: every write the program's protection
 * catches without heapprof it must catch with it, and no read faults. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <setjmp.h>
#include "ls_common.h"

#define PAGES 16
#define PG 4096
static unsigned char *buf;          /* PAGES pages, page-aligned, in the GC heap */
static volatile int writes_seen[PAGES];
static volatile int reads_faulted, guard_faults;
static int tracking;                /* the pages are read-only for the program */
static sigjmp_buf probe;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr, b = (uintptr_t)buf;
    if (a >= b + (PAGES - 1) * PG && a < b + PAGES * PG) {   /* the guard */
        guard_faults++;
        siglongjmp(probe, 1);
    }
    if (a >= b && a < b + (PAGES - 1) * PG && tracking) {
        int p = (int)((a - b) / PG);
        writes_seen[p]++;
        mprotect(buf + (size_t)p * PG, PG, PROT_READ | PROT_WRITE);
        return;
    }
    static const char m[] = "ls_own_protect: unexpected SIGSEGV\n";
    write(2, m, sizeof m - 1);
    _exit(99);
}

static long read_all(void)
{
    long s = 0;
    for (size_t i = 0; i < (PAGES - 1) * PG; i += 64) s += buf[i];
    return s;
}

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(20000);
    unsigned char *raw = GC_MALLOC_ATOMIC((PAGES + 1) * PG);
    buf = (unsigned char *)(((uintptr_t)raw + PG - 1) & ~(uintptr_t)(PG - 1));
    memset(buf, 1, PAGES * PG);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    mprotect(buf + (PAGES - 1) * PG, PG, PROT_NONE);   /* the guard */
    GC_gcollect();
    for (int round = 0; round < 4; round++) {
        memset((void *)writes_seen, 0, sizeof writes_seen);
        tracking = 1;
        if (round % 2)   /* a raw system call: seen by ldv's system-call dispatch */
            syscall(SYS_mprotect, buf, (PAGES - 1) * PG, PROT_READ);
        else
            mprotect(buf, (PAGES - 1) * PG, PROT_READ);
        GC_gcollect();                      /* heapprof protects the pages now */
        long before = read_all();           /* reads: the program allows them */
        for (int p = round % 3; p < PAGES - 1; p += 3) buf[(size_t)p * PG + 8 * round] += 2;
        GC_gcollect();
        for (int p = 1; p < PAGES - 1; p += 4) buf[(size_t)p * PG + 100] += 1;
        long after = read_all();
        int total = 0;
        for (int p = 0; p < PAGES - 1; p++) total += writes_seen[p];
        printf("round %d: reads %ld then %ld; pages written %d:", round, before, after, total);
        for (int p = 0; p < PAGES - 1; p++) printf(" %d", writes_seen[p]);
        printf("\n");
        tracking = 0;
        mprotect(buf, (PAGES - 1) * PG, PROT_READ | PROT_WRITE);
        if (!sigsetjmp(probe, 1)) {
            volatile unsigned char c = buf[(PAGES - 1) * PG];
            (void)c;
        }
        printf("round %d: guard faults %d, list sum %ld\n", round, guard_faults, ls_touch(list));
    }
    mprotect(buf + (PAGES - 1) * PG, PG, PROT_READ | PROT_WRITE);
    printf("reads faulted %d\n", reads_faulted);
    return 0;
}
