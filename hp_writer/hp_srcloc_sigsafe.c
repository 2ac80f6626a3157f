/* hp_srcloc_sigsafe: the table of source lines hp_srcloc_prepare filled
 * (see hp_srcloc.h), read lock-free: open addressing on the address,
 * published once complete (the count is stored with release order after
 * every entry is written; readers load it with acquire). */
#include "hp_writer/hp_srcloc.h"
#include "hp_writer/hp_srcloc_internal.h"
#include "core/hp_hash.h"

#include <stdatomic.h>

hp_srcloc_table hp_srcloc_;

const char *hp_srcloc_get(uintptr_t pc)
{
    uint64_t cap = atomic_load_explicit(&hp_srcloc_.published_cap, memory_order_acquire);
    if (!cap) return NULL;
    const hp_srcloc_entry *t = (const hp_srcloc_entry *)hp_srcloc_.vec.base;
    for (uint64_t j = hp_mix64(pc) & (cap - 1);; j = (j + 1) & (cap - 1)) {
        if (t[j].pc == pc) return t[j].where;
        if (!t[j].pc) return NULL;
    }
}

const char *hp_srcloc_status(void)
{
    if (hp_srcloc_.status) return hp_srcloc_.status;
    if (!atomic_load_explicit(&hp_srcloc_.published_cap, memory_order_acquire))
        return "no source lines: the profile was finished by a signal handler, where "
               "debug information cannot be read";
    return NULL;
}

uint64_t hp_srcloc_found(void) { return hp_srcloc_.found; }

uint64_t hp_srcloc_c_library(void) { return hp_srcloc_.c_library; }
