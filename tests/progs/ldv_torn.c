/* ldv_torn: two threads sharing heap words on pages mode ldv protects, for
 * tests/integration/test_ldv.py. Under ldv, a fault handler performs a
 * faulting load or store through /proc/self/mem, a copy by the kernel;
 * with two threads that copy must still be one access to the other thread
 * (hp_ldv_peek_sigsafe.c: peeks serialised, no page opened meanwhile).
 *
 * WORDS words, each alone in a 64-byte atomic object, are written by one
 * thread and read by the other, round after round, with relaxed atomics
 * (plain 64-bit moves on x86-64: what the emulator performs through the
 * kernel). Every value written has equal halves, round << 32 | round; a
 * read whose halves differ was torn. The main thread collects between
 * rounds, so every page is protected again. Prints "torn N rounds R
 * last L": N must be 0, and L the writer's last round (every store seen
 * through). */
#define GC_THREADS   /* the writer is a collector thread: stopped at collections */
#include <gc/gc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define WORDS 64
#define ROUNDS 60

typedef struct cell { _Atomic uint64_t w; char pad[56]; } cell;

static cell *cells[WORDS];
static _Atomic int round_no;      /* the writer's round, 0 when done */
static _Atomic int writer_done;

static void *writer(void *arg)
{
    (void)arg;
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        for (int k = 0; k < 8; k++)
            for (int i = 0; i < WORDS; i++)
                atomic_store_explicit(&cells[i]->w, r << 32 | r, memory_order_relaxed);
        atomic_store(&round_no, (int)r);
        while (atomic_load(&round_no) == (int)r && r < ROUNDS) ;   /* the reader's turn */
    }
    atomic_store(&writer_done, 1);
    return NULL;
}

int main(void)
{
    GC_INIT();
    for (int i = 0; i < WORDS; i++) {
        cells[i] = GC_malloc_atomic(sizeof(cell));
        atomic_store(&cells[i]->w, 0);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, writer, NULL) != 0) return 2;
    long torn = 0;
    int seen = 0;
    while (!atomic_load(&writer_done)) {
        /* Read while the writer writes; then let it go on. */
        for (int k = 0; k < 8; k++)
            for (int i = 0; i < WORDS; i++) {
                uint64_t v = atomic_load_explicit(&cells[i]->w, memory_order_relaxed);
                if ((v >> 32) != (v & 0xffffffffu)) torn++;
            }
        int r = atomic_load(&round_no);
        if (r > seen) {
            seen = r;
            GC_gcollect();   /* every page protected again */
            atomic_store(&round_no, -r);
        }
    }
    pthread_join(t, NULL);
    uint64_t last = atomic_load(&cells[WORDS - 1]->w);
    printf("torn %ld rounds %d last %llu\n", torn, ROUNDS, (unsigned long long)(last & 0xffffffffu));
    return torn != 0;
}
