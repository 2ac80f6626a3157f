/* hp_signals: heapprof's SIGINT/SIGTERM handler (level 1), installed by
 * the life cycle where the signal's disposition is the default. */
#ifndef HP_SIGNALS_H
#define HP_SIGNALS_H

/* Finish the files (closing sample, .prof), then let the signal act as it
 * would have without heapprof. Async-signal-safe. */
void hp_on_terminate(int sig);

#endif
