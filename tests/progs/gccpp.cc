// gccpp: a C++ program on bdwgc's gc_cpp (libgccpp), whose collectable
// objects are held only by uncollectable ones, as Inkscape's are:
//  - 1000 nodes held by a Holder made with gc_cpp's NoGC placement
//    (GC_MALLOC_UNCOLLECTABLE) in make_holder;
//  - 2000 nodes held by a std::vector whose buffer comes from
//    traceable_allocator (uncollectable too), the vector itself made by
//    plain new (libgccpp's global operator new: uncollectable).
// Neither is on the stack or in static data when the collection runs:
// their addresses are kept in malloc() memory, which the collector does
// not scan. Prints for tests/integration/test_retainer.py the bytes the
// Holder's retainer must hold (itself and its nodes) and those the
// vector's buffer must (itself and its nodes).
#include <gc/gc_allocator.h>
#include <gc/gc_cpp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct Node : public gc {
    Node *next;
    long v[5];
};

struct Holder : public gc {
    Node *nodes[1000];
};

typedef std::vector<Node *, traceable_allocator<Node *> > NodeVec;

struct Kept { Holder *holder; NodeVec *vec; };

extern "C" __attribute__((noinline)) Holder *make_holder(void)
{
    Holder *h = new (NoGC) Holder;
    for (int i = 0; i < 1000; i++) {
        h->nodes[i] = new Node;
        h->nodes[i]->v[0] = i;
    }
    return h;
}

extern "C" __attribute__((noinline)) NodeVec *make_vec(void)
{
    NodeVec *v = new NodeVec;
    for (int i = 0; i < 2000; i++) {
        Node *n = new Node;
        n->v[0] = i;
        v->push_back(n);
    }
    return v;
}

extern "C" __attribute__((noinline)) void setup(Kept *k)
{
    k->holder = make_holder();
    k->vec = make_vec();
}

extern "C" __attribute__((noinline)) long check(const Kept *k)
{
    long s = 0;
    for (int i = 0; i < 1000; i++) s += k->holder->nodes[i]->v[0];
    for (size_t i = 0; i < k->vec->size(); i++) s += (*k->vec)[i]->v[0];
    return s;
}

int main()
{
    GC_INIT();
    Kept *k = (Kept *)malloc(sizeof *k);   // not scanned by the collector
    setup(k);
    GC_gcollect();
    GC_gcollect();
    size_t holder_band = GC_size(k->holder);
    for (int i = 0; i < 1000; i++) holder_band += GC_size(k->holder->nodes[i]);
    size_t vec_nodes = 0;
    for (size_t i = 0; i < k->vec->size(); i++) vec_nodes += GC_size((*k->vec)[i]);
    printf("HOLDER %zu\n", holder_band);
    printf("VECTOR %zu\n", vec_nodes + GC_size(k->vec->data()));
    printf("check %ld\n", check(k));
    return 0;
}
