/* run/watched.c - --verify history's side of the run: the watched keys'
 * buffers before it, their initial states at the start, the check after it
 * (the recording is in the loops; the checker in src/history.c). */
#include <stdio.h>
#include <stdlib.h>
#include "worker.h"

/* --verify history: the watched keys' states as the timed phase starts
 * (thread 0, between barriers: nothing else runs). Keys of the range, and
 * YCSB-D's new keys so far above it. */
void run_hist_read_initial(struct shared *s)
{
    const struct run_params *p = s->p;
    uint64_t max = p->range;
    if (p->cfg->workload == WL_YCSB_D && s->ycsb.next > max)
        max = s->ycsb.next;
    size_t n = 0;
    cht_key_t *keys = hist_watched_keys(&s->hist_watch, max, p->cfg->keys_sparse, &n);
    struct hist_init *init = keys ? malloc((n ? n : 1) * sizeof *init) : NULL;
    if (!init) {
        free(keys);
        s->hist_init_failed = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        init[i] = (struct hist_init){ .key = keys[i] };
        init[i].present = s->ops->get(s->table, keys[i], &init[i].val);
    }
    free(keys);
    s->hist_init = init;
    s->hist_ninit = n;
}

/* --verify history: the watched keys, and each thread's buffer (its share
 * of HIST_BYTES), allocated and touched before the threads start. */
int run_hist_prepare(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r)
{
    const uint64_t keys = p->cfg->history_keys;
    if (!keys)
        return 0;
    s->hist_on = true;
    hist_watch_init(&s->hist_watch, p->range, keys);
    const uint64_t cap = HIST_BYTES / sizeof(struct hist_rec) / p->threads;
    for (unsigned i = 0; i < p->threads; i++)
        if (hist_buf_init(&w[i].hist, cap ? cap : 1) != 0) {
            snprintf(r->error, sizeof r->error, "--verify history: out of memory for the records");
            return -1;
        }
    return 0;
}

/* --verify history, after the run: every watched key's history checked. */
int run_hist_collect(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r)
{
    if (s->hist_init_failed) {
        snprintf(r->error, sizeof r->error, "--verify history: out of memory for the watched keys' states");
        return -1;
    }
    struct hist_buf *bufs = malloc(p->threads * sizeof *bufs);
    if (!bufs) {
        snprintf(r->error, sizeof r->error, "--verify history: out of memory");
        return -1;
    }
    uint64_t t_start = UINT64_MAX, t_end = 0;
    for (unsigned i = 0; i < p->threads; i++) {
        bufs[i] = w[i].hist;
        t_start = w[i].t_start < t_start ? w[i].t_start : t_start;
        t_end = w[i].t_end > t_end ? w[i].t_end : t_end;
    }
    r->history.hist_on = true;
    r->history.hist_watch_every = s->hist_watch.d;
    r->history.hist_watched = s->hist_ninit;
    const int rc = hist_check(bufs, p->threads, s->hist_init, s->hist_ninit, t_start, t_end, &r->history.hist);
    free(bufs);
    if (rc != 0)
        snprintf(r->error, sizeof r->error, "--verify history: out of memory for the checker");
    return rc;
}
