/* run/samplers.c - what the main thread does during the timed phase besides
 * waiting: a hotspot's moving hot set, and --timeline's samples. */
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include "worker.h"

/* hotspot shift=MS: moves the hot set to the next disjoint block of keys
 * every MS ms of the timed phase; workers read hot_base on every op, so all
 * switch within one op of each other. */
void *run_shifter_main(void *arg)
{
    struct shared *s = arg;
    const struct keygen *g = s->p->keys;
    uint64_t period = g->spec.shift_ms * 1000000ull, t0 = now_ns(), k = 1;
    while (!__atomic_load_n(&s->shifter_stop, __ATOMIC_ACQUIRE)) {
        uint64_t now = now_ns(), due = t0 + k * period;
        if (now >= due) {
            uint64_t b = __atomic_load_n(&s->hot_base, __ATOMIC_RELAXED) + g->hot_n;
            __atomic_store_n(&s->hot_base, b >= g->range ? b - g->range : b, __ATOMIC_RELAXED);
            k++;
            continue;
        }
        uint64_t step = due - now < 1000000ull ? due - now : 1000000ull;
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* --timeline: the main thread reads every worker's published op count each
 * interval (--duration: until d ms, then raises stop; --ops: until every
 * worker has finished). The last row holds the exact remainder, so the rows'
 * ops sum to total_ops. */
void run_timeline_sample(struct shared *s, struct worker *w, unsigned n, struct run_result *r)
{
    const struct bench_config *cfg = s->p->cfg;
    size_t cap = 64;
    r->timeline.samples = malloc(cap * sizeof *r->timeline.samples);
    r->timeline.n = 0;
    uint64_t t0 = now_ns(), prev = 0;
    uint64_t end = cfg->duration_ms ? t0 + cfg->duration_ms * 1000000ull : UINT64_MAX;
    for (uint64_t k = 1;; k++) {
        uint64_t next = t0 + k * cfg->timeline_ms * 1000000ull, now = now_ns();
        uint64_t until = next < end ? next : end;
        bool last = false;
        /* sleep until the interval's end, waking every ms in --ops mode to see the end */
        while (now < until && !runner_interrupted) {
            uint64_t step = until - now;
            if (!cfg->duration_ms && step > 1000000ull)
                step = 1000000ull;
            struct timespec ts = { .tv_sec = (time_t)(step / 1000000000ull), .tv_nsec = (long)(step % 1000000000ull) };
            nanosleep(&ts, NULL);
            now = now_ns();
            if (!cfg->duration_ms) {
                unsigned fin = 0;
                for (unsigned i = 0; i < n; i++)
                    fin += (unsigned)__atomic_load_n(&w[i].finished, __ATOMIC_ACQUIRE);
                if (fin == n) {
                    last = true;
                    break;
                }
            }
        }
        if ((cfg->duration_ms && now >= end) || runner_interrupted) {
            __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
            last = true;
        }
        if (last) {                       /* wait for every worker's final count */
            for (unsigned i = 0; i < n; i++)
                while (!__atomic_load_n(&w[i].finished, __ATOMIC_ACQUIRE))
                    sched_yield();
            now = now_ns();
        }
        uint64_t sum = 0;
        for (unsigned i = 0; i < n; i++)
            sum += __atomic_load_n(&w[i].progress, __ATOMIC_RELAXED);
        if (r->timeline.samples && r->timeline.n == cap) {
            struct tl_sample *nt = realloc(r->timeline.samples, (cap *= 2) * sizeof *nt);
            if (!nt) {
                free(r->timeline.samples);
                r->timeline.samples = NULL;
            }
            r->timeline.samples = nt;
        }
        if (r->timeline.samples)
            r->timeline.samples[r->timeline.n++] = (struct tl_sample){ .t_ms = (double)(now - t0) / 1e6, .ops = sum - prev,
                                                              .hot_base = __atomic_load_n(&s->hot_base, __ATOMIC_RELAXED) };
        prev = sum;
        if (last)
            break;
        while (t0 + (k + 1) * cfg->timeline_ms * 1000000ull <= now)   /* overslept: skip, never an empty row */
            k++;
    }
}
