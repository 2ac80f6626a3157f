/* names_cpp: C++ names a profile must show demangled
 * (tests/integration/test_names.py). On gc_cpp (libgccpp):
 *
 *   geo::Mesh::grow(unsigned long)      new (GC) geo::Mesh::Cell, NCELL times
 *   geo::Store<geo::Point>::add(...)    new (GC) geo::Point, NPOINT times
 *   operator new (gc_cpp's gc::operator new) is where both allocate.
 *
 * Prints "CELLS n bytes" and "POINTS n bytes" (what it allocated). */
#include <gc/gc_cpp.h>
#include <stdio.h>

#define NCELL 3000
#define NPOINT 2000

namespace geo {

struct Point : public gc {
    double x, y;
};

template <typename T> class Store {
public:
    T *items[NPOINT];
    int n = 0;
    __attribute__((noinline)) T *add(double x, double y)
    {
        T *p = new (GC) T;
        p->x = x;
        p->y = y;
        items[n++] = p;
        return p;
    }
};

class Mesh {
public:
    struct Cell : public gc {
        long a[5];
    };
    Cell *cells[NCELL];
    __attribute__((noinline)) void grow(unsigned long k)
    {
        for (unsigned long i = 0; i < k; i++) cells[i] = new (GC) Cell;
    }
};

}  // namespace geo

static geo::Mesh mesh;
static geo::Store<geo::Point> store;

int main()
{
    GC_INIT();
    mesh.grow(NCELL);
    for (int i = 0; i < NPOINT; i++) store.add(i, -i);
    GC_gcollect();
    printf("CELLS %d %zu\n", NCELL, (size_t)NCELL * GC_size(mesh.cells[0]));
    printf("POINTS %d %zu\n", NPOINT, (size_t)NPOINT * GC_size(store.items[0]));
    return 0;
}
