/* hp_census_enum_sigsafe: the census of mode kind without records
 * (HEAPPROF=kind,stacks=no; the launcher's -hT, as GHC's): nothing is
 * recorded per object, so an allocation costs what it costs without
 * heapprof; at a census the collector's own walk of the objects the
 * collection has just marked (GC_enumerate_reachable_objects_inner:
 * allocation lock held, mark bits valid until the next collection clears
 * them) adds each object's bytes to its (kind, size) band, as the kind
 * scheme labels records. Objects heapprof would not track are counted too
 * (every marked object is). Typed and gcj objects, whose category comes
 * from the call that made them, show under their collector kind
 * (`kindN`).
 *
 * A heap block's objects share kind and size: the label of the last
 * block seen is kept, and bytes are added to a label when the walk leaves
 * its run of objects, not per object. Collector callback: no lock, no
 * allocation (the labels are heapprof's memory). */
#include "collector_hooks/hp_census_enum.h"
#include "collector_hooks/hp_census_output.h"
#include "collector_hooks/hp_schemes.h"
#include "core/hp_real.h"
#include "core/hp_shadow.h"

#include <string.h>

typedef struct walk {
    uintptr_t block;          /* page of the last object labelled */
    size_t size;              /* its size */
    uint32_t label;           /* its band */
    uint64_t run;             /* bytes of this label not yet added */
    uint64_t bytes, objects;
} walk;

static void flush(walk *w)
{
    if (w->run) hp_output_add_label(w->label, w->run);
    w->run = 0;
}

static void GC_CALLBACK visit(void *obj, size_t bytes, void *data)
{
    walk *w = data;
    uintptr_t block = (uintptr_t)obj >> 12;
    if (block != w->block || bytes != w->size) {
        flush(w);
        size_t sz = 0;
        int kind = hp_real.GC_get_kind_and_size(obj, &sz);
        hp_rec r;
        memset(&r, 0, sizeof r);
        r.base = (uintptr_t)obj;
        r.granted = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
        r.kind = (uint8_t)kind;
        r.how = HP_HOW_NORMAL;
        const hp_scheme *p = hp_schemes_primary();
        w->label = p->label_of ? p->label_of(&r, 0) : UINT32_MAX;
        w->block = block;
        w->size = bytes;
    }
    w->run += bytes;
    w->bytes += bytes;
    w->objects++;
}

int hp_census_enumerate(uint64_t *bytes, uint64_t *objects)
{
    *bytes = *objects = 0;
    if (!hp_real.GC_enumerate_reachable_objects_inner) return -1;
    walk w;
    memset(&w, 0, sizeof w);
    w.block = UINTPTR_MAX;
    hp_real.GC_enumerate_reachable_objects_inner(visit, &w);
    flush(&w);
    *bytes = w.bytes;
    *objects = w.objects;
    return 0;
}
/* ---- end of collector-callback code ---- */
