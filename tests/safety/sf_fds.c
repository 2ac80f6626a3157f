/* sf_fds: a program that closes every descriptor from 3 to 1023 (as daemons
 * and shells do), then opens its own data file, allocates for a while (so
 * censuses are written), writes its data and checks it. Prints its
 * descriptors above 2 before and after. Issue: safe on any program,
 * point 3. */
#include <gc/gc.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void list_fds(const char *when)
{
    printf("%s:", when);
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1) printf(" %d", fd);
    printf("\n");
}

typedef struct node { struct node *next; char pad[40]; } node;

int main(void)
{
    GC_INIT();
    list_fds("at start");
    for (int fd = 3; fd < 1024; fd++) close(fd);
    int fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    list_fds("after open");
    node *keep = NULL;
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 20000; i++) {
            node *n = GC_MALLOC(sizeof *n);
            if (i % 50 == 0) { n->next = keep; keep = n; }
        }
        GC_gcollect();
        char line[64];
        int len = snprintf(line, sizeof line, "round %d\n", round);
        if (write(fd, line, (size_t)len) != len) { perror("write"); return 1; }
    }
    close(fd);
    FILE *f = fopen("data.txt", "r");
    char buf[64];
    int lines = 0, bad = 0;
    while (fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "round ", 6) != 0) bad++;
        lines++;
    }
    fclose(f);
    printf("data.txt: %d lines, %d not the program's\n", lines, bad);
    list_fds("at exit");
    return bad != 0;
}
