/* hp_symbols: start-up of the symbol tables and the iteration over loaded
 * modules (dl_iterate_phdr, which takes the dynamic loader's lock: never in
 * a signal handler). The tables and lookups are in hp_symbols_sigsafe.c. */
#include "core/hp_symbols.h"
#include "core/hp_symbols_internal.h"

#include <link.h>
#include <stddef.h>

static int on_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (hi == 0) return 0;
    return hp_symbols_add_module(info->dlpi_addr, lo, hi, info->dlpi_name ? info->dlpi_name : "");
}

static void iterate(void) { dl_iterate_phdr(on_module, NULL); }

int hp_symbols_init(void)
{
    if (hp_symbols_init_tables() != 0) return -1;
    hp_symbols_set_iterate(iterate);
    return 0;
}
