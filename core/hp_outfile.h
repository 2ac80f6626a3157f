/* hp_outfile: opening heapprof's output files safely (level 7, base).
 *
 * Every .hp, .prof and .alloc.csv is opened here, and only so:
 *   - a symbolic link is never followed (O_NOFOLLOW), so a link planted at
 *     prog.hp cannot make heapprof overwrite its target;
 *   - open never blocks (O_NONBLOCK: a FIFO planted there fails at once)
 *     and only a regular file is written;
 *   - a file that exists must be owned by heapprof's user (a file another
 *     user created, mode 0666, would let that user read the profile);
 *   - the descriptor is close-on-exec, moved to a high number out of the
 *     program's way, and held only while heapprof writes: it is opened
 *     again for each census (append), after checking it is still the file
 *     heapprof created (a program that closes every descriptor, or another
 *     process that replaces the file, never receives heapprof's writes).
 * Failures give a reason a user can act on. Async-signal-safe: raw system
 * calls only. */
#ifndef HP_OUTFILE_H
#define HP_OUTFILE_H
#include <stdint.h>

typedef struct hp_outfile {
    uint64_t dev, ino;     /* the file created (for later opens) */
    int made;              /* created by hp_outfile_create */
} hp_outfile;

/* Create `path` (or truncate the regular file heapprof's user owns there).
 * Returns a descriptor, or -1 with *why set to the reason. */
int hp_outfile_create(const char *path, hp_outfile *f, const char **why);
/* Claim `path` for this process before anything is written: open it
 * (created empty if missing; never emptied here) and take an exclusive
 * advisory lock (flock) without waiting. Returns the locked descriptor
 * (high, close-on-exec: keep it open to keep the claim), -1 with *why when
 * it cannot be opened safely, or -2 when another live process holds it. */
int hp_outfile_claim(const char *path, const char **why);

/* Open the file created before, to append: -1 with *why when it is gone or
 * is no longer that file. */
int hp_outfile_append(const char *path, const hp_outfile *f, const char **why);
/* The file's size (to cut back to after a write that failed), or -1. */
int64_t hp_outfile_size(int fd);
/* Cut the file back to `size` bytes (a sample half-written). */
void hp_outfile_cut(int fd, int64_t size);

/* Move fd out of the program's way: the lowest free descriptor 64 below
 * the soft limit, close-on-exec (fd itself is closed). Signal-safe. */
int hp_fd_move_high(int fd);

#endif
