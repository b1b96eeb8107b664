/* counters.h - hardware counters through PAPI (--counters): per-thread event
 * sets, summed over threads, reported per operation. */
#ifndef CHT_COUNTERS_H
#define CHT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CNT_MAX_EVENTS 8

struct counter_set {
    bool requested;             /* --counters given */
    bool active;                /* events usable on this machine */
    unsigned n;
    char names[CNT_MAX_EVENTS][64];
    int codes[CNT_MAX_EVENTS];
    char joined[CNT_MAX_EVENTS * 65];   /* names joined with ';' (for CSV) */
};

/* Parses SPEC (a group: cache, tlb, ipc; or EVENT[,EVENT...]). Returns 0,
 * or -1 with a usage message in err (unknown name, PAPI not built in).
 * Events the machine cannot count are dropped; when none remains, cs->active
 * is false and *warning says why (the caller prints it once). */
int counters_setup(const char *spec, struct counter_set *cs, char *err, size_t len, char *warning, size_t wlen);

/* Per worker thread. A failure turns the thread's handle off (values unset). */
struct counter_thread {
    int eventset;
    bool running, ok;
    long long v[CNT_MAX_EVENTS];
};
void counters_thread_init(const struct counter_set *cs, struct counter_thread *ct);
void counters_thread_start(struct counter_thread *ct);
void counters_thread_stop(struct counter_thread *ct);
void counters_thread_exit(struct counter_thread *ct);

#endif
