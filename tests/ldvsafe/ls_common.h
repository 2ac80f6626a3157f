/* ls_common: what the ldv safety programs share: a list of GC objects
 * made before a collection (so that under ldv their pages are protected
 * afterwards) and a walk that reads and writes every one. */
#ifndef LS_COMMON_H
#define LS_COMMON_H
#include <gc/gc.h>

typedef struct ls_node { struct ls_node *next; long value; char pad[48]; } ls_node;

static ls_node *ls_build(int n)
{
    ls_node *head = NULL;
    for (int i = 0; i < n; i++) {
        ls_node *x = GC_MALLOC(sizeof *x);
        x->value = i;
        x->next = head;
        head = x;
    }
    GC_gcollect();   /* a census: under ldv the objects' pages are protected now */
    return head;
}

/* Read every object and write it (+1): returns the sum read. */
static long ls_touch(ls_node *head)
{
    long sum = 0;
    for (ls_node *x = head; x; x = x->next) sum += x->value++;
    return sum;
}
#endif
