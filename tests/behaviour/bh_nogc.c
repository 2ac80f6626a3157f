/* bh_nogc: a tiny program that never uses libgc (not even linked with it),
 * for the behaviour tests: heapprof must leave it unchanged and write no
 * profile. Prints its arguments and a malloc'd line, exits with status 4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) printf("arg %d: %s\n", i, argv[i]);
    char *p = malloc(64);
    if (!p) return 1;
    strcpy(p, "plain malloc works");
    printf("%s\n", p);
    free(p);
    return 4;
}
