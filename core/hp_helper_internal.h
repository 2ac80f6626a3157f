/* hp_helper_internal: the helper thread's state, shared by hp_helper.c
 * (start-up) and hp_helper_sigsafe.c (start and join). */
#ifndef HP_HELPER_INTERNAL_H
#define HP_HELPER_INTERNAL_H

#include "core/hp_mem.h"

#define HP_HELPER_STACK ((unsigned long)256 << 10)

typedef struct hp_helper_state {
    char *stack, *stack_top;   /* mapped at start-up; top 16-byte aligned */
    hp_vec stack_vec;          /* (profiler memory, as the .prof counts it) */
    int cpus;                  /* in the process's affinity mask */
    int forbidden;             /* hp_helper_forbid */
    /* The running thread's id word: set to 1 before it is made; the
     * kernel clears it, and wakes a futex wait on it, when the thread has
     * gone (CLONE_CHILD_CLEARTID). */
    volatile int tid_word;
    int alive;                 /* a thread is made and waits for work (Note [A kept helper]) */
    int running;               /* it was given work not yet joined */
    int quit;                  /* it is to end at its next work */
    unsigned job_seq;          /* work given (futex word) */
    unsigned done_seq;         /* work done */
    void (*fn)(void *);
    void *arg;
} hp_helper_state;
extern hp_helper_state hp_helper_;

#endif
