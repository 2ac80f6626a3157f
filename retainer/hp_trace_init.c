/* hp_trace_init: the heap traversal's start-up (see hp_trace.h): its memory,
 * and the collector's plausible heap bounds, found with dlsym. The walk
 * itself is hp_trace_sigsafe.c, its indexes hp_trace_index_sigsafe.c. */
#include "retainer/hp_trace.h"
#include "retainer/hp_trace_index.h"

#include <dlfcn.h>

#define page_vec hp_trace_ix_.page_vec
#define slot_vec hp_trace_ix_.slot_vec
#define pages hp_trace_ix_.pages
#define page_cap hp_trace_ix_.page_cap
#define pages_used hp_trace_ix_.pages_used
#define slots hp_trace_ix_.slots
#define slots_used hp_trace_ix_.slots_used
#define slots_cap hp_trace_ix_.slots_cap
#define index_vec hp_trace_ix_.index_vec
#define cur_index hp_trace_ix_.cur_index
#define table hp_trace_ix_.table
#define cap hp_trace_ix_.cap
#define used hp_trace_ix_.used
#define last_page hp_trace_ix_.last_page
#define stack_vec hp_trace_ix_.stack_vec
#define pending_vec hp_trace_ix_.pending_vec
#define queue_vec hp_trace_ix_.queue_vec
#define least_p hp_trace_ix_.least_p
#define greatest_p hp_trace_ix_.greatest_p

int hp_trace_init(void)
{
    if (hp_vec_reserve(&page_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&slot_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&index_vec[0], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&index_vec[1], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&stack_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&pending_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&queue_vec, (size_t)1 << 38) != 0)
        return -1;
    /* RTLD_DEFAULT first: a program that names these variables (gc_mark.h's
     * macros do) has them copy-relocated into itself, and that copy is the
     * one the collector updates; RTLD_NEXT would find libgc's unused one. */
    *(void **)&least_p = dlsym(RTLD_DEFAULT, "GC_least_plausible_heap_addr");
    *(void **)&greatest_p = dlsym(RTLD_DEFAULT, "GC_greatest_plausible_heap_addr");
    if (!least_p || !greatest_p) {
        *(void **)&least_p = dlsym(RTLD_NEXT, "GC_least_plausible_heap_addr");
        *(void **)&greatest_p = dlsym(RTLD_NEXT, "GC_greatest_plausible_heap_addr");
    }
    return 0;
}

