/* hp_symbols_internal: what the two files of hp_symbols share: the
 * signal-safe tables (hp_symbols_sigsafe.c) and the module iteration that
 * is not signal-safe (hp_symbols.c). */
#ifndef HP_SYMBOLS_INTERNAL_H
#define HP_SYMBOLS_INTERNAL_H
#include <stdint.h>

int hp_symbols_init_tables(void);
/* Record a loaded module (tables' lock held): 0 to go on, 1 when full. */
int hp_symbols_add_module(uintptr_t bias, uintptr_t lo, uintptr_t hi, const char *path);
/* The function that re-reads the module list, called with the lock held. */
void hp_symbols_set_iterate(void (*fn)(void));

#endif
