/* hp_lifecycle: start-up and attaching to the collector, for the other
 * entry points (level 1). */
#ifndef HP_LIFECYCLE_H
#define HP_LIFECYCLE_H

/* Read the configuration and set the profiler up (once; every entry point
 * may be the first call into heapprof). */
void hp_ensure_init(void);
/* Install the collector hooks if libgc is present. Returns 1 when attached. */
int hp_ensure_attached(void);

#endif
