/* hp_ldv: lag/drag/void/use ("biographical") profiling, HEAPPROF=ldv.
 *
 * The interface the rest of heapprof calls, each call one line at the place
 * it belongs (runtime start-up, collection events, the census sweep, the
 * finisher). Everything else of the mode lives in ldv/: the LDV word and the
 * post-mortem bands (hp_ldv.c), page protection and the address index
 * (hp_ldv_prot*.c), the fault handlers (hp_ldv_trap*.c), the biography
 * (hp_ldv_bio_sigsafe.c), and what the system-call and stdio interposers
 * do with a call's buffers (hp_ldv_syscall_sigsafe.c; the interposers
 * themselves are entry points in preload/).
 * See doc/semantics.md ("Lag, drag, void, use") for what the bands mean. */
#ifndef HP_LDV_H
#define HP_LDV_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"
#include "core/hp_buf.h"

/* Start-up, in ldv mode only (configuration read): refuses
 * GC_ENABLE_INCREMENTAL, reserves memory and installs the fault handlers.
 * 0, or -1 after saying why on stderr. */
int hp_ldv_start(void);
int hp_ldv_init(char *err, unsigned long errlen);
/* GC_enable_incremental was called: in ldv mode, say once that it is
 * ignored and return 1; else 0 (the call goes through). */
int hp_ldv_refuse_incremental(void);
/* The program's memory-map system call nr (mmap, mprotect, pkey_mprotect,
 * munmap, mremap, madvise, mlock, mlock2, munlock) made for it: in mode
 * ldv its own page protection is recorded and kept (heapprof never opens
 * a page wider than the program left it) and an ENOMEM near
 * vm.max_map_count makes heapprof give its map entries way before the
 * call is made again. The raw result (-errno on failure). In every mode
 * the call is one system call. Async-signal-safe. */
long hp_ldv_vm_call(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
/* Once the collector's functions are known (hp_real resolved). */
void hp_ldv_attach(void);

/* ---- Collector-callback and census context (allocation lock held). ---- */
/* A collection starts: open every protected page before the collector
 * reads the heap (START event). */
void hp_ldv_collection_start(void);
/* Census number t (1, 2, ...) is being taken at profile time `seconds`:
 * called before the sweep that counts it. */
void hp_ldv_census_begin(uint32_t t, double seconds);
/* A record is live at census t (passes the profile's filters). */
void hp_ldv_census_rec(const hp_rec *r, uint32_t t);
/* A record leaves the table (dead, freed, or alive at exit): it was live
 * at censuses birth+1 .. d. */
void hp_ldv_death(const hp_rec *r, uint32_t d);
/* hp_ldv_death(r, d) does nothing for a record of mode word 0 (neither
 * used nor INHERENT_USE) born in the period returned or later: it was in
 * no census. */
uint32_t hp_ldv_death_quiet_from(uint32_t d);
/* The sweep begins on a table of `len` records; record `from` survives and
 * moves to `to`, or is dropped (so the address index is updated, not
 * rebuilt). The sweep reports every record of the table one way or the
 * other, and the survivors it takes from the logs, in increasing order. */
void hp_ldv_sweep_begin(size_t len);
void hp_ldv_moved(size_t from, size_t to);
/* Records from..from+k-1 move to to..to+k-1 (k calls of hp_ldv_moved). */
void hp_ldv_moved_run(size_t from, size_t to, size_t k);
void hp_ldv_dropped(size_t from);
/* After each sweep: rebuild the address index, protect the pages of the
 * records still live. */
void hp_ldv_protect(void);

/* ---- Output, at exit or on SIGINT/SIGTERM (async-signal-safe). ---- */
/* Every census as one sample with bands VOID LAG USE INHERENT_USE DRAG. */
void hp_ldv_write_samples(int fd);
/* The .prof additions: protection figures, tables by drag and void. */
void hp_ldv_write_prof(int fd);
/* The exit's warning lines (the scheme's warnings): a tenth or more of
 * DRAG and VOID uncertain. After the last deaths. */
void hp_ldv_warnings(hp_buf *b);
/* A checkpoint after census t (owner context, right after the census):
 * the samples as if the program had ended at census t, every record still
 * alive dying there, without changing the biography. begin (0, or -1:
 * nothing to write), each live record of the profile, then the samples. */
int hp_ldv_checkpoint_begin(uint32_t t);
void hp_ldv_checkpoint_rec(const hp_rec *r);
int hp_ldv_checkpoint_samples(int fd);
/* Stop trapping (before the last death pass at exit). */
void hp_ldv_stop(void);

/* ---- The interposers' part (preload/hp_libc_wrappers.c): a call's
 * buffers (the kernel reads them: kwrite 0; writes them: kwrite 1) make
 * one span, used and opened before the call, in flight during it.
 * Async-signal-safe; nothing happens outside ldv mode. ---- */
typedef struct hp_ldv_span { uintptr_t lo, hi; int slot, any, direct; } hp_ldv_span;
#define HP_LDV_SPAN_INIT {0, 0, -1, 0, 0}
/* The call is one system call whose every buffer the interposer names:
 * its system call need not be dispatched as well. */
void hp_ldv_sys_direct(hp_ldv_span *s);
struct iovec;
struct msghdr;
int hp_ldv_sys_active(void);
void hp_ldv_sys_buf(hp_ldv_span *s, uintptr_t a, size_t n, int kwrite);
void hp_ldv_sys_iov(hp_ldv_span *s, const struct iovec *v, int cnt, int kwrite);
void hp_ldv_sys_msg(hp_ldv_span *s, const struct msghdr *m, int kwrite);
/* A path name (and an argument vector's strings and array). */
void hp_ldv_sys_path(hp_ldv_span *s, const char *p);
void hp_ldv_sys_argv(hp_ldv_span *s, char *const *v);
/* Around the real call; retry: the call failed with EFAULT on the span
 * (a protect pass raced it): open it again and say whether to retry. */
void hp_ldv_sys_begin(hp_ldv_span *s);
void hp_ldv_sys_end(hp_ldv_span *s);
int hp_ldv_sys_retry(hp_ldv_span *s, int *tries);
/* Wait (a bounded time: the caller may be the collecting thread) for a
 * collection's protect pass to end: 1 when none runs now. */
int hp_ldv_sys_wait_collection(void);

/* ---- The sigaction/signal interposers' part (preload/
 * hp_sigaction_wrappers.c): the program's action for a signal heapprof
 * handles itself (SIGSEGV; SIGTRAP with single steps), kept here and
 * chained to by heapprof's handler; NULL for every other signal (the call
 * goes straight through). */
struct sigaction;
struct sigaction *hp_ldv_program_action(int sig);

/* ---- The program's view of its signal mask (hp_ldv_sigview_sigsafe.c):
 * in mode ldv SIGSEGV, SIGTRAP and SIGSYS are never really blocked (a
 * fault on a protected page with them blocked kills the process); the
 * program sees the mask it asked for. Outside ldv each call goes through.
 * Async-signal-safe. ---- */
#include <signal.h>
/* sigprocmask/pthread_sigmask: in mode ldv the system call made here, the
 * kept signals stripped from `set` and the program's view put into `old`
 * (errors as pthread_sigmask returns them when `posix`, else -1 and
 * errno); outside it, `real`. */
int hp_ldv_sigmask(int how, const sigset_t *set, sigset_t *old,
                   int (*real)(int, const sigset_t *, sigset_t *), int posix);
/* sigaction of any other signal: strip the kept signals from the handler's
 * sa_mask (act is the interposer's copy) and remember them; the bits the
 * program gave for sig before (read with hp_ldv_sigaction_kept first) are
 * put back into the old action. */
void hp_ldv_sigaction_in(int sig, struct sigaction *act);
unsigned char hp_ldv_sigaction_kept(int sig);
void hp_ldv_sigaction_out(int sig, struct sigaction *oact, unsigned char before);
/* ---- The program's alternate signal stack (hp_ldv_altstack_sigsafe.c):
 * in mode ldv the kernel holds a stand-in of heapprof's for it, so that
 * heapprof's frequent faults never run on memory the program sized and
 * placed for its own handler; the program sees what it asked for.
 * Async-signal-safe. ---- */
/* sigaltstack, in every mode (outside ldv, the system call): 0, or -1
 * with errno. *register_thread: call hp_ldv_altstack_register once, in
 * this thread. */
int hp_ldv_altstack(const stack_t *ss, stack_t *old, int *register_thread);
/* This thread's stand-in is dropped when it ends (hp_ldv_trap.c: a
 * thread-exit key). */
void hp_ldv_altstack_register(void);
/* A thread that ends: the kernel lets go of its stand-in, then it is
 * unmapped. */
void hp_ldv_altstack_thread_end(void);
/* When the handlers are installed: the calling thread's alternate stack,
 * set before, gets its stand-in. */
void hp_ldv_altstack_adopt(void);
/* A new thread starts (preload's pthread_create interposer, in the new
 * thread): system calls seen from it too (hp_ldv_sud.c). */
void hp_ldv_thread_start(void);
/* A thread is about to be created (1) / has been (0), by pthread_create:
 * the fault handler stops reaching pages through /proc/self/mem, which is
 * safe only while one thread runs (hp_ldv_peek_sigsafe.c). */
void hp_ldv_thread_creating(int phase);
/* This thread's view, and giving a new thread its creator's. */
unsigned hp_ldv_sigview(void);
void hp_ldv_sigview_inherit(unsigned view);
/* Around exec: apply the program's mask for real (failed 0), undo it
 * (failed 1). */
void hp_ldv_sigview_exec(int failed);

#endif
