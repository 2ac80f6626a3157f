/* Binary trees on the Boehm GC heap: one long-lived tree, many short-lived
   ones (the reference workload, ../shared/workloads/trees.c, with the
   long-lived tree in a static variable rather than main's frame: it is
   live until exit, so the census heapprof takes at exit, after main has
   returned, still finds it -- a profile by biography shows it LAG until
   its walk, then DRAG). */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct T { struct T *l, *r; long i; } T;
static T *make(long i, int d) {
  T *t = GC_malloc(sizeof *t);
  if (d == 0) { t->i = i; return t; }
  t->l = make(i, d - 1); t->r = make(i + 1, d - 1); return t;
}
static T *longlived;
static long check(T *t) { return t->l ? 1 + check(t->l) + check(t->r) : t->i; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 18;
  GC_INIT();
  longlived = make(0, n);
  for (int d = 4; d <= n; d += 2) {
    long s = 0, it = 1L << (n - d + 4);
    for (long i = 1; i <= it; i++) s += check(make(i, d));
    printf("%ld\n", s);
  }
  printf("%ld\n", check(longlived));
  return 0;
}
