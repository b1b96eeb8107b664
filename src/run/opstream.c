/* run/opstream.c - which op source a loop reads (workloads/opsource.h), and
 * the per-thread op buffers drawn before the start barrier. */
#include <stdlib.h>
#include "worker.h"
#include "trace.h"

/* ---------------- the op stream (workloads/opsource.h; docs/cli.md "What is timed") ----------------
 * A costly key distribution (Zipf: ~35 ns a draw, more than many tables'
 * whole operation) would make the timed loop measure the generator. So each
 * worker draws its ops before the start barrier, with the same PRNG stream
 * and draw order as the in-loop source (same seed, same ops), into a buffer
 * of opbuf_len entries that the loop reads in order, cycling when an op
 * count exceeds it. */

/* The source that draws this run's ops in the loop (or into its buffers). */
static unsigned drawn_kind(const struct run_params *p)
{
    if (p->cfg->workload == WL_NONE && p->keys->dist == KEYGEN_UNIFORM)
        return OPSRC_UNIFORM;   /* YCSB's uniform keys take two PRNG steps, as they always did */
    return p->keys->dist == KEYGEN_HOTSPOT ? OPSRC_HOTSPOT : OPSRC_KEYGEN;
}

/* The source of this worker's timed loop, or of its warm-up, which draws its
 * own ops in the loop, except YCSB's and a trace's (read from the buffer). */
unsigned run_source_kind(const struct worker *w, bool warm)
{
    const struct bench_config *cfg = w->s->p->cfg;
    unsigned kind;
    if (w->opbuf && (cfg->workload || w->s->p->trace || !warm)) {
        kind = OPSRC_BUFFER;
        /* uniform dense keys with writes: each round of the buffer shifted (opsource.h) */
        if (!w->s->p->trace && drawn_kind(w->s->p) == OPSRC_UNIFORM && !cfg->keys_sparse &&
            !op_mix_reads_only(&w->s->mix))
            kind |= OPSRC_SHIFT;
    } else
        kind = drawn_kind(w->s->p) | (warm && cfg->keys_sparse ? OPSRC_MAP : 0);
    return kind | (cfg->workload == WL_YCSB_D ? OPSRC_LATEST : 0);
}

void run_source_init(struct worker *w, uint64_t seed)
{
    struct shared *s = w->s;
    uint64_t len = s->p->trace ? UINT64_MAX : s->p->opbuf_len;
    opsrc_init(&w->src, s->p->keys, &s->mix, seed, w->tid, w->opbuf, len, &s->hot_base, &s->ycsb, &w->rounds);
}

/* This thread's ops, drawn off the clock (and NUMA-local): --keybuf, or its share of a --trace. */
void run_opbuf_prepare(struct worker *w)
{
    const struct run_params *p = w->s->p;
    const struct bench_config *cfg = p->cfg;
    if (p->trace) {                          /* t, t+n, t+2n, ... */
        const struct trace *tr = p->trace;
        uint64_t share = tr->n / p->threads + (w->tid < tr->n % p->threads);
        w->opbuf = malloc((share ? share : 1) * sizeof *w->opbuf);
        if (!w->opbuf) {
            w->opbuf_failed = true;
            return;
        }
        for (uint64_t j = 0; j < share; j++)
            w->opbuf[j] = tr->op[w->tid + j * p->threads];
        w->ops_limit = share;                /* 0: more threads than operations, this one does nothing */
    } else if (p->opbuf_len) {
        w->opbuf = malloc(p->opbuf_len * sizeof *w->opbuf);
        if (!w->opbuf) {
            w->opbuf_failed = true;
            return;
        }
        struct opsrc fill;
        opsrc_init(&fill, p->keys, &w->s->mix, cfg->seed + p->rep, w->tid, NULL, 0, NULL, NULL, NULL);
        uint64_t t0 = now_ns();
        opsrc_fill(&fill, drawn_kind(p) | (cfg->keys_sparse ? OPSRC_MAP : 0), w->opbuf, p->opbuf_len,
                   &runner_interrupted);
        w->opbuf_ns = now_ns() - t0;
    }
}
