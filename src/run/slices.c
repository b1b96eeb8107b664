/*
 * run/slices.c - --ceiling-slices MS (docs/measurement.md "Memory ceiling"): thread 0
 * builds the memory bench's chase buffer before B3; during the timed phase
 * main sets the stop flag to a chase value (STOP_CHASE_K32/K16, in turn)
 * every other MS ms and back to 0 between them. The loops read the flag as
 * always (no new load on the hot path): a nonzero flag leaves the plain
 * loop, or keeps the pipelined loop from drawing, and run_slice_chase
 * runs the chase until the slice ends. Each thread's chase time
 * is left out of its timed time.
 */
#include <time.h>
#include "worker.h"

/* --ceiling-slices: the loop met a nonzero stop flag. While it holds a
 * chase value, this thread chases (the k it names) and counts the loads and
 * the time. Returns whether the timed phase goes on (the flag back at 0);
 * false at 1 (the end, a signal, or the warm-up's flag). */
__attribute__((cold)) bool run_slice_chase(struct worker *w, const int *stop)
{
    for (;;) {
        const int v = __atomic_load_n(stop, __ATOMIC_RELAXED);
        if (v != STOP_CHASE_K32 && v != STOP_CHASE_K16)
            return v == 0;
        const unsigned i = v == STOP_CHASE_K16;
        const uint64_t t0 = now_ns();
        w->chase_loads[i] += ceiling_chase_while(w->chase_q, i ? 16 : 32, stop, v);
        w->chase_ns[i] += now_ns() - t0;
    }
}

/* --ceiling-slices: thread 0, after the prefill (off the clock), builds the
 * chase over ceiling_size(the table's bytes) in the table's pages, as
 * --ceiling measures (tablemode.c); NULL and chase_error when it cannot,
 * NULL alone for a table without stats() (no slices: the run is plain). */
void run_slices_build(struct shared *s)
{
    const struct bench_config *cfg = s->p->cfg;
    if (!cfg->ceiling_slice_ms)
        return;
    const uint64_t bytes = s->table_bytes_after_prefill;
    if (!bytes)                 /* a table without stats(): no size, no ceiling (as --ceiling) */
        return;
    const bool thp = ceiling_on_thp(cfg->hugepages, &s->mem_after_prefill, bytes);
    s->chase = ceiling_chase_new(bytes, thp, s->p->threads, s->chase_error, sizeof s->chase_error);
    s->sliced = s->chase != NULL;
}

/* --ceiling-slices: the timed phase cut into slices of ms, from its start:
 * even slices the table's, odd ones a chase's (k = 32, then 16, in turn),
 * until d ms or a signal; the caller then raises stop. The flag moves by
 * compare-and-swap, so a signal's 1 is never overwritten. */
void run_slice_phase(struct shared *s, uint64_t duration_ms, unsigned ms)
{
    const uint64_t t0 = now_ns(), end = t0 + duration_ms * 1000000ull;
    int flag = 0;
    for (uint64_t j = 1; !runner_interrupted; j++) {
        const uint64_t at = t0 + j * ms * 1000000ull;
        if (at >= end) {
            const uint64_t now = now_ns();
            if (now < end)
                runner_sleep_ms((end - now + 999999) / 1000000);
            return;
        }
        for (uint64_t now; (now = now_ns()) < at && !runner_interrupted;) {
            struct timespec ts = { .tv_sec = (time_t)((at - now) / 1000000000ull),
                                   .tv_nsec = (long)((at - now) % 1000000000ull) };
            nanosleep(&ts, NULL);
        }
        const int next = !(j & 1) ? 0 : (j / 2) & 1 ? STOP_CHASE_K16 : STOP_CHASE_K32;
        if (!__atomic_compare_exchange_n(&s->stop, &flag, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;                     /* a signal raised it */
        flag = next;
    }
}

/* --ceiling-slices: the ceiling is the better k's summed per-thread chase
 * rate (as --bench memory sums its threads), and the timed phase is the
 * table's slices: each thread's chase time leaves elapsed_s (their mean)
 * and cpu_ns (their sum). */
void run_slices_collect(const struct worker *w, unsigned n, struct run_result *r)
{
    double rate[2] = { 0, 0 };
    uint64_t chase_ns = 0;
    for (unsigned t = 0; t < n; t++)
        for (unsigned i = 0; i < 2; i++) {
            chase_ns += w[t].chase_ns[i];
            rate[i] += w[t].chase_ns[i] ? (double)w[t].chase_loads[i] * 1e3 / (double)w[t].chase_ns[i] : 0;
        }
    r->ceiling.ceiling_slices_k = rate[1] > rate[0] ? 16 : 32;
    r->ceiling.ceiling_mops = rate[1] > rate[0] ? rate[1] : rate[0];
    r->ceiling.ceiling_slices_s = (double)chase_ns / n / 1e9;
    r->elapsed_s = r->elapsed_s > r->ceiling.ceiling_slices_s ? r->elapsed_s - r->ceiling.ceiling_slices_s : 0;
    r->cpu_ns = r->cpu_ns > chase_ns ? r->cpu_ns - chase_ns : 0;
}
