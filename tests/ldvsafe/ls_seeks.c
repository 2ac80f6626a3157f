/* ls_seeks: seeks and tells under mode ldv. GNU poke reads its file
 * through ftello and fseeko, ten million lseeks a run; each was a SIGSYS
 * of system call dispatch until heapprof's interposers ran them
 * undispatched (preload/hp_libc_wrappers.c). The stream here reads through
 * a buffer the program gave it with setvbuf on the GC heap -- protected
 * after each collection, and filled by the kernel on a refill inside
 * fseeko or fread; a second stream writes through a heap buffer of its
 * own, each fseeko flushing the write before it from there (a write the
 * kernel would refuse, EFAULT, from a protected page: the data lost); and
 * a raw descriptor is read with lseek and read into heap objects. The
 * program prints what it read and a checksum of what it wrote, which must
 * be what they are without heapprof. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ls_common.h"

#define SIZE 65536
#define ROUNDS 20

int main(void)
{
    GC_INIT();
    char path[] = "/tmp/ls_seeks_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    unsigned char *data = malloc(SIZE);
    for (int i = 0; i < SIZE; i++) data[i] = (unsigned char)(i * 131 + (i >> 8));
    if (write(fd, data, SIZE) != SIZE) return 1;
    FILE *f = fopen(path, "r");
    unlink(path);
    if (!f) return 1;
    char *buf = GC_MALLOC_ATOMIC(4096);   /* the stream's buffer, on the GC heap */
    if (setvbuf(f, buf, _IOFBF, 4096) != 0) return 1;
    char wpath[] = "/tmp/ls_seeks_w_XXXXXX";
    int wfd = mkstemp(wpath);
    FILE *g = wfd >= 0 ? fdopen(wfd, "w+") : NULL;
    if (!g) return 1;
    unlink(wpath);
    char *gbuf = GC_MALLOC_ATOMIC(4096);   /* the writing stream's buffer, on the GC heap */
    if (setvbuf(g, gbuf, _IOFBF, 4096) != 0) return 1;
    unsigned long sum = 0, tells = 0, seeks = 0;
    unsigned seed = 1;
    for (int r = 0; r < ROUNDS; r++) {
        ls_node *keep = ls_build(200);   /* a collection: the heap pages protected */
        for (int k = 0; k < 1000; k++) {
            seed = seed * 1103515245u + 12345u;
            off_t at = (off_t)((seed >> 8) % (SIZE - 8));
            if (fseeko(f, at, SEEK_SET) != 0) return 2;
            if (ftello(f) != at) return 3;
            unsigned char b[8];
            if (fread(b, 1, 8, f) != 8) return 4;
            for (int i = 0; i < 8; i++) sum = sum * 31 + b[i];
            tells += (unsigned long)ftell(f);
            /* The raw descriptor: lseek, then a read into a heap object. */
            unsigned char *h = GC_MALLOC_ATOMIC(16);
            if (lseek(fd, at, SEEK_SET) != at) return 5;
            if (read(fd, h, 8) != 8) return 6;
            if (memcmp(h, b, 8) != 0) return 7;
            seeks += (unsigned long)lseek(fd, 0, SEEK_CUR);
            /* The writing stream: each seek flushes the bytes before. */
            if (fseeko(g, (off_t)((seed >> 4) % 4096) * 8, SEEK_SET) != 0) return 9;
            if (fwrite(h, 1, 8, g) != 8) return 10;
        }
        sum += (unsigned long)ls_touch(keep);
    }
    if (fseek(f, 0, SEEK_END) != 0 || ftell(f) != SIZE) return 8;
    if (fflush(g) != 0) return 11;
    unsigned long wsum = 0;
    off_t wsize = lseek(wfd, 0, SEEK_END);
    unsigned char *back = malloc((size_t)wsize + 1);
    if (pread(wfd, back, (size_t)wsize, 0) != wsize) return 12;
    for (off_t i = 0; i < wsize; i++) wsum = wsum * 131 + back[i];
    printf("sum %lu tells %lu seeks %lu; written %ld bytes, checksum %lu\n", sum, tells, seeks,
           (long)wsize, wsum);
    fclose(g);
    fclose(f);
    close(fd);
    return 0;
}
