/* hp_lifecycle: the process life cycle of the profiler (level 1, entry
 * points): the constructor, reading the configuration, attaching to the
 * collector, fork, exit and SIGINT/SIGTERM. It calls every level below;
 * nothing calls it but the other entry points (preload/). */
#include "hp_writer/hp_srcloc.h"
#include "core/hp_sys.h"
#include "core/hp_assert.h"
#include "core/hp_outfile.h"
#include "core/hp_rt.h"
#include "core/hp_sample.h"
#include "preload/hp_lifecycle.h"
#include "preload/hp_signals.h"
#include "core/hp_capture.h"
#include "core/hp_ccnames.h"
#include "core/hp_real.h"
#include "core/hp_shadow.h"
#include "core/hp_stacks.h"
#include "core/hp_thread.h"
#include "collector_hooks/hp_census.h"
#include "collector_hooks/hp_hooks.h"
#include "hp_writer/hp_names.h"
#include "core/hp_symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int init_state;     /* 0 none, 1 running, 2 done */
static char out_stem[HP_OUT_MAX];
static char start_dir[HP_OUT_MAX];   /* the working directory at start-up */
static int claim_fd = -1;            /* holds the lock on our .hp (hp_outfile_claim) */
static void set_paths(pid_t child_pid);

/* Two processes must never write one .hp: the first to start takes a lock
 * on PROG.hp and keeps it to its end; a second one, while the first runs,
 * writes PROG.PID.hp instead, and says so. (A profile of a run that has
 * ended is replaced by the next run's, as GHC's are.) */
static void claim_output(void)
{
    const char *why = NULL;
    int fd = hp_outfile_claim(hp_rt.hp_file, &why);
    if (fd == -2) {
        char taken[HP_OUT_MAX + 64];
        snprintf(taken, sizeof taken, "%s", hp_rt.hp_path);
        set_paths(hp_rt.pid);
        fd = hp_outfile_claim(hp_rt.hp_file, &why);
        char msg[3 * HP_OUT_MAX];
        snprintf(msg, sizeof msg, "heapprof: %s is being written by another process "
                 "still running; this one writes %s", taken, hp_rt.hp_path);
        hp_say(msg);
    }
    claim_fd = fd >= 0 ? fd : -1;   /* a failure is reported when the .hp is written */
}

static void die(const char *msg, int status)
{
    hp_say(msg);
    _exit(status);
}

/* Program name and command line, from /proc/self/cmdline. */
static void read_command_line(void)
{
    char buf[2048];
    ssize_t n = 0;
    int fd = hp_sys_open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
    if (fd >= 0) {
        n = hp_sys_read(fd, buf, sizeof buf - 1);
        hp_sys_close(fd);
    }
    if (n <= 0) {
        strcpy(hp_rt.program, "program");
        strcpy(hp_rt.job, "program");
        return;
    }
    buf[n] = 0;
    const char *slash = strrchr(buf, '/');
    const char *base = slash ? slash + 1 : buf;
    size_t blen = strnlen(base, sizeof hp_rt.program - 1);
    memcpy(hp_rt.program, base, blen);
    hp_rt.program[blen] = 0;
    for (ssize_t i = 0; i < n - 1; i++)
        if (buf[i] == 0) buf[i] = ' ';
    snprintf(hp_rt.job, sizeof hp_rt.job, "%s", buf);
}

static void set_paths(pid_t child_pid)
{
    if (child_pid)
        snprintf(hp_rt.hp_path, sizeof hp_rt.hp_path, "%s.%d.hp", out_stem, (int)child_pid);
    else
        snprintf(hp_rt.hp_path, sizeof hp_rt.hp_path, "%s.hp", out_stem);
    snprintf(hp_rt.prof_path, sizeof hp_rt.prof_path, "%.*s.prof",
             (int)(strlen(hp_rt.hp_path) - 3), hp_rt.hp_path);
    snprintf(hp_rt.csv_path, sizeof hp_rt.csv_path, "%.*s.alloc.csv",
             (int)(strlen(hp_rt.hp_path) - 3), hp_rt.hp_path);
    const char *dir = hp_rt.hp_path[0] == '/' ? "" : start_dir;
    const char *sep = hp_rt.hp_path[0] == '/' || !start_dir[0] ? "" : "/";
    snprintf(hp_rt.hp_file, sizeof hp_rt.hp_file, "%s%s%s", dir, sep, hp_rt.hp_path);
    snprintf(hp_rt.prof_file, sizeof hp_rt.prof_file, "%s%s%s", dir, sep, hp_rt.prof_path);
    snprintf(hp_rt.csv_file, sizeof hp_rt.csv_file, "%s%s%s", dir, sep, hp_rt.csv_path);
    int stem = (int)(strlen(hp_rt.hp_path) - 3);
    snprintf(hp_rt.pb_path, sizeof hp_rt.pb_path, "%.*s.pb.gz", stem, hp_rt.hp_path);
    snprintf(hp_rt.folded_path, sizeof hp_rt.folded_path, "%.*s.folded", stem,
             hp_rt.hp_path);
    snprintf(hp_rt.live_folded_path, sizeof hp_rt.live_folded_path, "%.*s.live.folded",
             stem, hp_rt.hp_path);
    snprintf(hp_rt.pb_file, sizeof hp_rt.pb_file, "%s%s%s", dir, sep, hp_rt.pb_path);
    snprintf(hp_rt.folded_file, sizeof hp_rt.folded_file, "%s%s%s", dir, sep,
             hp_rt.folded_path);
    snprintf(hp_rt.live_folded_file, sizeof hp_rt.live_folded_file, "%s%s%s", dir, sep,
             hp_rt.live_folded_path);
}

/* Was this process started by a process heapprof profiles (it inherited
 * LD_PRELOAD from a program, not from the user's command line)? Its
 * parent has libheapprof mapped: /proc/PPID/maps names our file. */
static int started_by_profiled_process(void)
{
    Dl_info self;
    if (!dladdr((void *)started_by_profiled_process, &self) || !self.dli_fname) return 0;
    const char *base = strrchr(self.dli_fname, '/');
    base = base ? base + 1 : self.dli_fname;
    /* A whole file name at a line's end: "/c.so" alone would also match
     * the parent's libc.so.6. */
    char name[512];
    if (snprintf(name, sizeof name, "/%s\n", base) >= (int)sizeof name) return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)getppid());
    int fd = hp_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return 0;
    /* Scan in blocks, keeping a name's length of overlap between them. */
    static char buf[65536];
    size_t keep = 0, nlen = strlen(name);
    int found = 0;
    for (;;) {
        ssize_t n = hp_sys_read(fd, buf + keep, sizeof buf - 1 - keep);
        if (n <= 0) break;
        size_t len = keep + (size_t)n;
        buf[len] = 0;
        if (strstr(buf, name)) {
            found = 1;
            break;
        }
        keep = len < nlen ? len : nlen;
        memmove(buf, buf + len - keep, keep);
    }
    hp_sys_close(fd);
    return found;
}

/* The output place must be writable: say so before main rather than lose
 * the profile at the end. Returns 0, or -1 with the reason in msg. */
static int check_output(char *msg, size_t cap)
{
    const char *files[6] = {hp_rt.hp_path, hp_rt.prof_path, hp_rt.csv_path,
                            hp_rt.pb_path, hp_rt.folded_path, hp_rt.live_folded_path};
    for (int i = 0; i < 6; i++) {
        if (hp_sys_access(files[i], F_OK) == 0 && hp_sys_access(files[i], W_OK) != 0) {
            snprintf(msg, cap,
                     "heapprof: cannot write %s: %s; remove it, or choose another place "
                     "with HEAPPROF=...,out=PATH", files[i], strerror(errno));
            return -1;
        }
    }
    char dir[HP_OUT_MAX + 64];
    snprintf(dir, sizeof dir, "%s", hp_rt.hp_path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
    /* access() says yes to root even where nothing can be created (/proc, a
     * read-only file system): create and remove a probe file instead. */
    /* An unnamed file (O_TMPFILE): no name another process could have
     * taken first; where the file system has none, a name of our own that
     * no one has (O_EXCL, a few tries). */
    char probe[HP_OUT_MAX + 128];
    probe[0] = 0;
    int fd = hp_sys_open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    for (int i = 0; fd < 0 && errno != EACCES && errno != EROFS && errno != ENOENT &&
                    errno != ENOTDIR && i < 8; i++) {
        snprintf(probe, sizeof probe, "%s/.heapprof-probe-%d-%llx", dir, (int)getpid(),
                 (unsigned long long)(hp_mono_ns() * 2654435761u >> 8) + (unsigned)i);
        fd = hp_sys_open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
        if (fd < 0) probe[0] = 0;
    }
    if (fd < 0) {
        int err = errno;
        /* The directory by its real name: "." says nothing. */
        char cwd[HP_OUT_MAX];
        const char *shown = dir;
        if (strcmp(dir, ".") == 0 && getcwd(cwd, sizeof cwd)) shown = cwd;
        snprintf(msg, cap,
                 "heapprof: cannot write the profile into directory %s: %s; choose a "
                 "writable place with HEAPPROF=...,out=PATH (e.g. out=/tmp/%s), or the "
                 "launcher's -o (heapprof -o /tmp/%s ...)",
                 shown, strerror(err), hp_rt.program, hp_rt.program);
        return -1;
    }
    hp_sys_close(fd);
    if (probe[0]) hp_sys_unlink(probe);
    return 0;
}

static void install_signal_handlers(void)
{
    int sigs[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        if (hp_sys_sigaction(sigs[i], NULL, &old) != 0) continue;
        /* Only where the program would die anyway: an ignored signal stays
         * ignored, and a handler the program installs later replaces ours. */
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = hp_on_terminate;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        hp_sys_sigaction(sigs[i], &sa, NULL);
    }
}

static void at_exit(void)
{
    if (atomic_load(&init_state) != 2) return;
    if (atomic_load(&hp_rt.attached)) hp_hooks_final_collection();
    /* Source lines of every frame, read now: the writers cannot (they
     * also run in signal handlers). */
    hp_srcloc_prepare();
    hp_census_finish(0);
    /* Claimed but never written (libgc loaded, nothing allocated): leave no
     * empty file behind. */
    if (claim_fd >= 0 && hp_outfile_size(claim_fd) == 0) hp_sys_unlink(hp_rt.hp_file);
}

static void prefork(void)
{
    hp_symbols_prefork();
    hp_stacks_prefork();
    hp_shadow_prefork();
}

static void postfork_parent(void)
{
    hp_shadow_postfork_parent();
    hp_stacks_postfork();
    hp_symbols_postfork();
}

static void postfork_child(void)
{
    hp_shadow_postfork_child(hp_tls.log);
    hp_stacks_postfork();
    hp_symbols_postfork();
    hp_rt.pid = getpid();
    hp_rt.forked_child = 1;
    if (claim_fd >= 0) hp_sys_close(claim_fd);   /* the parent keeps the lock */
    claim_fd = -1;
    hp_rt.start_ns = hp_mono_ns();
    hp_rt_exclude_reset();
    atomic_store(&hp_rt.period, 0);
    set_paths(hp_rt.pid);
    hp_census_postfork_child();
}

void hp_ensure_init(void)
{
    int expect = 0;
    if (atomic_load_explicit(&init_state, memory_order_acquire) == 2) return;
    if (!atomic_compare_exchange_strong(&init_state, &expect, 1)) {
        while (atomic_load(&init_state) != 2) sched_yield();
        return;
    }
    hp_say_init();
    hp_rt.start_ns = hp_mono_ns();
    hp_rt.pid = getpid();
    char err[1024];   /* the longest message lists every key (VALID_KEYS) */
    if (hp_config_parse(getenv("HEAPPROF"), &hp_rt.cfg, err, sizeof err) != 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "heapprof: %s", err);
        die(msg, 2);
    }
    if (hp_rt.cfg.help) {
        hp_say(hp_config_help());
        _exit(0);
    }
    hp_sample_on = hp_rt.cfg.sample != 0;
    hp_rt.entry_frames = hp_rt.cfg.mode == HP_MODE_RETAINER || hp_rt.cfg.mode == HP_MODE_ROOTS ||
                         hp_rt.cfg.filter_rset[0] != 0;
    if (hp_sample_on && !hp_rt.cfg.seed) hp_rt.cfg.seed = hp_mono_ns() ^ (uint64_t)getpid();
    read_command_line();
    const char *stem = hp_rt.cfg.out[0] ? hp_rt.cfg.out : hp_rt.program;
    snprintf(out_stem, sizeof out_stem, "%s", stem);
    size_t len = strlen(out_stem);
    if (len > 3 && strcmp(out_stem + len - 3, ".hp") == 0) out_stem[len - 3] = 0;
    /* A process the profiled program started (it inherited LD_PRELOAD)
     * writes PROG.PID.hp beside its parent's, and never fails because of
     * heapprof: where it cannot write, it runs unprofiled. */
    hp_rt.started_by_profiled = started_by_profiled_process();
    if (!getcwd(start_dir, sizeof start_dir)) start_dir[0] = 0;   /* then as given */
    set_paths(hp_rt.started_by_profiled ? hp_rt.pid : 0);
    char msg[HP_OUT_MAX * 2 + 256];
    if (check_output(msg, sizeof msg) != 0) {
        if (!hp_rt.started_by_profiled) die(msg, 2);
        hp_rt.passive = 1;   /* no profile: every GC_ call goes straight to libgc */
        atomic_store_explicit(&init_state, 2, memory_order_release);
        return;
    }
    if (hp_stacks_init() != 0 || hp_shadow_init() != 0 || hp_ccnames_init() != 0 ||
        hp_census_init() != 0)
        die("heapprof: cannot reserve memory for the profiler (mmap failed); "
            "check ulimit -v", 2);
    /* Modes that read neither a record's birth nor a traversal's label
     * keep 8 to 16 bytes a record (core/hp_shadow_internal.h, Note [The
     * compact table]; sample='s weights are written whole); mode ldv the
     * same and 8 bytes beside it (core/hp_shadow.h, Note [Side entries]). */
    hp_shadow_set_compact(hp_rt.cfg.mode == HP_MODE_LDV ? HP_COMPACT_SIDE
                          : (hp_rt.cfg.mode == HP_MODE_CC || hp_rt.cfg.mode == HP_MODE_MODULE ||
                             hp_rt.cfg.mode == HP_MODE_KIND) && !hp_rt.cfg.filter_rset[0]);
    if (hp_census_start() != 0) _exit(2);   /* a scheme said why it cannot run */
    hp_capture_init(hp_rt.cfg.unwind, hp_rt.cfg.depth, hp_rt.cfg.frames_by_call);
    hp_thread_init_key();
    pthread_atfork(prefork, postfork_parent, postfork_child);
    atexit(at_exit);
    install_signal_handlers();
    atomic_store_explicit(&init_state, 2, memory_order_release);
}

int hp_ensure_attached(void)
{
    if (atomic_load_explicit(&hp_rt.attached, memory_order_acquire)) return 1;
    hp_ensure_init();
    pthread_mutex_lock(&attach_lock);
    if (!atomic_load(&hp_rt.attached) && hp_real_resolve() == 0 && hp_rt.passive) {
        atomic_store_explicit(&hp_rt.attached, 1, memory_order_release);
    } else if (!atomic_load(&hp_rt.attached) && hp_real_resolve() == 0) {
        hp_capture_exclude_module_of((uintptr_t)hp_real.GC_malloc);
        hp_capture_exclude_module_of((uintptr_t)hp_ensure_attached);
        claim_output();   /* libgc is here: this process will write a profile */
        hp_symbols_module_span((uintptr_t)hp_real.GC_malloc, &hp_rt.gc_lo, &hp_rt.gc_hi);
        hp_hooks_install();
        hp_census_attach();
        HP_ASSERT_ARM();
        /* (libgc's text must be known: preload/hp_fast_alloc.h) */
        hp_rt.fast_alloc = (hp_rt.cfg.sample != 0 || hp_rt.cfg.no_stacks) && !hp_rt.entry_frames &&
                           hp_real.GC_malloc_kind != NULL && hp_rt.gc_hi > hp_rt.gc_lo;
        atomic_store_explicit(&hp_rt.attached, 1, memory_order_release);
    }
    pthread_mutex_unlock(&attach_lock);
    return atomic_load(&hp_rt.attached);
}

__attribute__((constructor)) static void hp_start(void)
{
    hp_ensure_init();
    hp_ensure_attached();   /* when libgc is already loaded */
}
