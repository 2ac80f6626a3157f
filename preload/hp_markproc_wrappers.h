/* hp_markproc_wrappers: a program's mark procedure, wrapped by a trampoline
 * that records what it pushes (see hp_markproc_wrappers.c). */
#ifndef HP_MARKPROC_WRAPPERS_H
#define HP_MARKPROC_WRAPPERS_H
#include "core/hp_gc.h"

GC_mark_proc hp_markproc_wrap(GC_mark_proc fn);

#endif
