/* sf_alloc: allocates and collects a few times, keeping some; prints one
 * line. The plain workload of the output-safety tests (full disk, planted
 * links, bad out= paths). */
#include <gc/gc.h>
#include <stdio.h>

typedef struct node { struct node *next; char pad[56]; } node;

int main(void)
{
    GC_INIT();
    node *keep = NULL;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 5000; i++) {
            node *n = GC_MALLOC(sizeof *n);
            if (i % 10 == 0) { n->next = keep; keep = n; }
        }
        GC_gcollect();
    }
    int n = 0;
    for (node *p = keep; p; p = p->next) n++;
    printf("kept %d\n", n);
    return 0;
}
