/* hp_symbols: names for code addresses, read from each loaded module's ELF
 * symbol table (.symtab, else .dynsym), so that static functions are named
 * too (dladdr sees only exported ones). Used only when output is written,
 * never on the allocation path. Not thread-safe: callers hold the output
 * role (see hp_census.h). */
#ifndef HP_SYMBOLS_H
#define HP_SYMBOLS_H
#include <stdint.h>

int hp_symbols_init(void);
/* Re-read the list of loaded modules (dl_iterate_phdr: not async-signal-safe). */
void hp_symbols_refresh(void);
/* Forbid refreshes (inside a signal handler). */
void hp_symbols_set_signal_context(int in_signal);

typedef struct hp_sym_info {
    const char *function;   /* NULL when no symbol covers the address */
    const char *module;     /* basename of the module, or NULL if unknown */
    int module_index;       /* -1 if unknown */
} hp_sym_info;

/* Resolve a code address (pass a return address minus one). */
hp_sym_info hp_symbols_lookup(uintptr_t pc);
/* Index of the module containing `addr`, or -1. */
int hp_symbols_module_of(uintptr_t addr);

#endif
