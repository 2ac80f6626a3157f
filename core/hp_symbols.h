/* hp_symbols: names for code addresses, read from each loaded module's ELF
 * symbol table (.symtab, else .dynsym), so that static functions are named
 * too (dladdr sees only exported ones). Used only when output is written,
 * except hp_symbols_function_start, which the allocation path calls once per
 * distinct return address. Thread-safe (one mutex; in a signal handler the
 * functions only try it and report "unknown" when it is taken). */
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
    uintptr_t start, end;   /* the function's bytes (when function is set) */
    const char *module;     /* basename of the module, or NULL if unknown */
    int module_index;       /* -1 if unknown */
    uintptr_t bias;         /* the module's load bias: pc - bias is the
                               address in its ELF file (when module is set) */
    int synthesized;        /* function is "module+0xVADDR": a function of a
                               module without symbols, told apart by its
                               unwind tables (hp_fde.h) */
} hp_sym_info;

/* Resolve a code address (pass a return address minus one). */
hp_sym_info hp_symbols_lookup(uintptr_t pc);
/* The bytes of the program's (not a library's) function `name`: 0, or -1
 * when it has no such symbol. */
int hp_symbols_program_function(const char *name, uintptr_t *start, uintptr_t *end);
/* Index of the module containing `addr`, or -1. */
int hp_symbols_module_of(uintptr_t addr);
/* Start of the function containing `pc`: its symbol's, else its span's
 * in the module's unwind tables, else the module's start; 0 when no
 * module contains it. */
uintptr_t hp_symbols_function_start(uintptr_t pc);
/* The address span of the module containing `addr`: 0, or -1 if none. */
int hp_symbols_module_span(uintptr_t addr, uintptr_t *lo, uintptr_t *hi);
/* The data object (global or static variable) at `addr`, for naming
 * static-data roots: returns 0 when no known module holds addr. Takes no
 * lock: for a caller holding the collector's lock (even with the world
 * stopped); such callers are serialised by that lock. */
typedef struct hp_data_sym {
    const char *name;         /* NULL when no symbol covers addr */
    uintptr_t start, end;     /* the symbol's span (or [addr, addr+8)) */
    int module;
    const char *module_base;  /* basename of the module */
    uintptr_t module_lo;      /* where the module is mapped */
} hp_data_sym;
int hp_symbols_data_at(uintptr_t addr, hp_data_sym *out);
/* How many functions have been named "module+0xVADDR" (no symbol). */
uint64_t hp_symbols_synthesized(void);
/* The module index of the program (the executable), its file's base name
 * in *name; -1 when unknown. */
int hp_symbols_program_module(const char **name);
/* A loaded module, for profiles that list them (pprof's mappings): its
 * file, where it is mapped, its load bias and its GNU build id (hex, ""
 * when none; read from the file on first use). 0, or -1 when there is no
 * module i. Takes no lock (the owner's, or the finisher's, serialised). */
typedef struct hp_module_info {
    const char *path, *base, *build_id;
    uintptr_t lo, hi, bias;
} hp_module_info;
int hp_symbols_module_info(int i, hp_module_info *out);
int hp_symbols_module_count(void);
/* Around fork(). */
void hp_symbols_prefork(void);
void hp_symbols_postfork(void);

#endif
