/* hp_trace_init: the heap traversal's start-up (see hp_trace.h): its memory,
 * and the collector's plausible heap bounds, found with dlsym. The walk
 * itself is hp_trace_sigsafe.c, its indexes hp_trace_index_sigsafe.c. */
#include "retainer/hp_trace.h"
#include "retainer/hp_trace_index.h"
#include "core/hp_helper.h"

#include <dlfcn.h>


int hp_trace_init(void)
{
    if (hp_vec_reserve(&hp_trace_ix_.page_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.uncoll_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.uncoll2_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.uncoll_set_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.pmap_vec, (size_t)1 << 35) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.slot_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.index_vec[0], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.index_vec[1], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.stack_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.pending_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_trace_ix_.queue_vec, (size_t)1 << 38) != 0)
        return -1;
    hp_vec *scc[] = {&hp_trace_ix_.scc_node_vec, &hp_trace_ix_.scc_ubase_vec,
                     &hp_trace_ix_.scc_inject_vec, &hp_trace_ix_.scc_frame_vec,
                     &hp_trace_ix_.scc_tstack_vec, &hp_trace_ix_.scc_start_vec,
                     &hp_trace_ix_.scc_order_vec, &hp_trace_ix_.scc_set_vec,
                     &hp_trace_ix_.scc_edge_vec, &hp_trace_ix_.scc_seen_vec,
                     &hp_trace_ix_.scc_scanq_vec, &hp_trace_ix_.scc_rix_vec,
                     &hp_trace_ix_.scc_dmap_vec, &hp_trace_ix_.scc_dnode_vec,
                     &hp_trace_ix_.scc_head_vec, &hp_trace_ix_.scc_shared_vec,
                     &hp_trace_ix_.scc_shared2_vec,
                     &hp_trace_ix_.scc_rcount_vec, &hp_trace_ix_.scc_redge_vec,
                     &hp_trace_ix_.scc_pair_vec, &hp_trace_ix_.scc_pair2_vec,
                     &hp_trace_ix_.scc_edge2_vec,
                     &hp_trace_ix_.scc_scanq2_vec, &hp_trace_ix_.scc_inject2_vec,
                     &hp_trace_ix_.scc_scanned_vec, &hp_trace_ix_.scc_pool_vec};
    for (size_t i = 0; i < sizeof scc / sizeof scc[0]; i++)
        if (hp_vec_reserve(scc[i], (size_t)1 << 38) != 0) return -1;
    /* Arrays sized by the heap at each census grow by a quarter, not
     * double: committed memory is the .prof's figure, and doubling left
     * up to half of each as slack. */
    for (size_t i = 0; i < sizeof scc / sizeof scc[0]; i++) scc[i]->grow_pct = 25;
    hp_trace_ix_.page_vec.grow_pct = hp_trace_ix_.slot_vec.grow_pct = 25;
    hp_trace_ix_.pmap_vec.grow_pct = 25;
    /* The component walk's second thread (without it, the walk is alone). */
    (void)hp_helper_init();
    /* RTLD_DEFAULT first: a program that names these variables (gc_mark.h's
     * macros do) has them copy-relocated into itself, and that copy is the
     * one the collector updates; RTLD_NEXT would find libgc's unused one. */
    *(void **)&hp_trace_ix_.least_p = dlsym(RTLD_DEFAULT, "GC_least_plausible_heap_addr");
    *(void **)&hp_trace_ix_.greatest_p = dlsym(RTLD_DEFAULT, "GC_greatest_plausible_heap_addr");
    if (!hp_trace_ix_.least_p || !hp_trace_ix_.greatest_p) {
        *(void **)&hp_trace_ix_.least_p = dlsym(RTLD_NEXT, "GC_least_plausible_heap_addr");
        *(void **)&hp_trace_ix_.greatest_p = dlsym(RTLD_NEXT, "GC_greatest_plausible_heap_addr");
    }
    return 0;
}

