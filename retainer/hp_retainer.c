/* hp_retainer: the retainer profile's start-up and its preparation before
 * the world stops (see hp_retainer.h): memory, and the classification of
 * new stacks against retainers= (names are read from the symbol tables,
 * which may be re-read here: not at MARK_END). */
#include "retainer/hp_retainer.h"
#include "retainer/hp_retainer_internal.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "core/hp_real.h"
#include "core/hp_stacks.h"
#include "core/hp_symbols.h"
#include "core/hp_thread.h"
#include "hp_writer/hp_names.h"

#include <string.h>

hp_retainer_state hp_ret_ = {.nsets = 1, .bound = 8, .next_scc = 1};

int hp_retainer_init(void)
{
    hp_ret_.bound = hp_rt.cfg.bound > 0 ? hp_rt.cfg.bound : 8;
    if (hp_vec_reserve(&hp_ret_.ident_vec, (size_t)1 << 34) || hp_vec_reserve(&hp_ret_.ident_index.vec, (size_t)1 << 32) ||
        hp_vec_reserve(&hp_ret_.set_words_vec, (size_t)1 << 36) || hp_vec_reserve(&hp_ret_.set_off_vec, (size_t)1 << 34) ||
        hp_vec_reserve(&hp_ret_.set_index.vec, (size_t)1 << 32) || hp_vec_reserve(&hp_ret_.set_label_vec, (size_t)1 << 32) ||
        hp_vec_reserve(&hp_ret_.set_bytes_vec, (size_t)1 << 34) || hp_vec_reserve(&hp_ret_.set_seen_vec, (size_t)1 << 32) ||
        hp_vec_reserve(&hp_ret_.ccs_class_vec, (size_t)1 << 32) || hp_vec_reserve(&hp_ret_.unreached_vec, (size_t)1 << 35) ||
        hp_vec_reserve(&hp_ret_.touched_vec, (size_t)1 << 34) || hp_vec_reserve(&hp_ret_.rset_match_vec, (size_t)1 << 32) ||
        hp_vec_reserve(&hp_ret_.noroot_label_vec, (size_t)1 << 32) ||
        hp_buf_init(&hp_ret_.prof_lines, (size_t)1 << 32) || hp_buf_init(&hp_ret_.text, (size_t)1 << 24))
        return -1;
    /* Set 0 is MANY: no members. */
    if (hp_vec_ensure(&hp_ret_.set_off_vec, sizeof(uint64_t)) || hp_vec_ensure(&hp_ret_.set_words_vec, 64))
        return -1;
    ((uint64_t *)hp_ret_.set_off_vec.base)[0] = 0;
    ((uint32_t *)hp_ret_.set_words_vec.base)[0] = 0;
    ((uint32_t *)hp_ret_.set_words_vec.base)[1] = 0;
    hp_ret_.set_words_used = 2;
    memset(hp_ret_.add_cache, 0xff, sizeof hp_ret_.add_cache);
    return 0;
}

/* ---- Designated retainers: stacks classified against retainers= ---- */

static int ccs_matches(uint32_t ccs)
{
    const char *p = hp_rt.cfg.retainers;
    char name[HP_FILTER_MAX];
    while (*p) {
        size_t n = strcspn(p, "+");
        memcpy(name, p, n);
        name[n] = 0;
        if (hp_names_has_function(ccs, name)) return 1;
        p += n;
        if (*p == '+') p++;
    }
    return 0;
}

void hp_retainer_prepare(void)
{
    hp_symbols_refresh();
    if (!hp_ret_has_retainers()) return;
    uint32_t n = hp_stacks_count();
    if (hp_vec_ensure(&hp_ret_.ccs_class_vec, n)) return;
    uint8_t *cls = hp_ret_.ccs_class_vec.base;
    for (uint32_t c = hp_ret_.ccs_classified; c < n; c++) cls[c] = ccs_matches(c) ? 1 : 2;
    hp_ret_.ccs_classified = n;
}

