/* hp_thread: heapprof's per-thread state, in static TLS (initial-exec, so an
 * access is one instruction and never allocates). */
#ifndef HP_THREAD_H
#define HP_THREAD_H
#include <stdint.h>

#include "hp_shadow.h"

#define HP_CC_MAX 256   /* explicit cost centres kept per thread */

typedef struct hp_thread {
    int depth;               /* nesting of GC_ entry points on this thread */
    int ready;               /* log and stack bounds set up */
    hp_tlog *log;
    uint32_t countdown;      /* allocations until the next clock check */
    uint32_t check_every;
    uint64_t last_check_ns;
    uintptr_t stack_lo, stack_hi;
    int cc_depth;            /* explicit cost centres pushed (may exceed HP_CC_MAX) */
    uint32_t cc[HP_CC_MAX];  /* their name ids, outermost first */
} hp_thread;

extern __thread hp_thread hp_tls __attribute__((tls_model("initial-exec")));

/* Set up the calling thread (log, stack bounds). Returns 0, or -1 when out
 * of memory (the thread's allocations are then not recorded). */
int hp_thread_setup(hp_thread *t);
void hp_thread_init_key(void);

#endif
