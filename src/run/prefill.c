/* run/prefill.c - the prefill: i distinct keys, by thread 0 or a slice per
 * thread (--prefill), off the timed phase's clock but on its own: the build
 * phase (build_ms, build_mops, build_resizes, alloc_bytes_per_key). */
#include <string.h>
#include "worker.h"

/* Prefill keys perm(first+1 .. first+n): distinct by construction, so each
 * insert must succeed; a refusal means a fixed-capacity table is full. */
static void prefill_slice(struct worker *w, uint64_t first, uint64_t n)
{
    const struct shared *s = w->s;
    bool (*insert)(void *, cht_key_t, cht_val_t) = s->ops->insert;
    uint64_t done = 0, ks = 0;
    for (uint64_t j = first + 1; j <= first + n; j++) {
        if (!(j & 4095) && stop_requested())
            break;
        cht_key_t k = keygen_scramble(s->p->perm, j);
        if (s->p->cfg->keys_sparse)
            k = keygen_sparse(k);
        bool ok = insert(s->table, k, run_val(k, 0, 0));   /* the prefill's keys are distinct: seq 0 */
        if (!ok) {                   /* full or out of memory: the outcome says which; no point going on */
            w->prefill_full = true;
            break;
        }
        done++;
        ks += k;
        if (s->shadow)
            shadow_set(s->shadow, k, true);
    }
    w->prefilled = done;
    w->keysum += ks;
}

void run_prefill(struct worker *w)
{
    const struct run_params *p = w->s->p;
    uint64_t i = p->cfg->initial;
    if (p->cfg->prefill == PREFILL_SINGLE) {
        if (w->tid == 0)
            prefill_slice(w, 0, i);
        return;
    }
    uint64_t per = i / p->threads, extra = i % p->threads;
    uint64_t first = w->tid * per + (w->tid < extra ? w->tid : extra);
    prefill_slice(w, first, per + (w->tid < extra));
}

/* The build phase's measures: its time from the first prefill thread's start (right after
 * the barrier that releases them all) to the last one's end; the resizes it saw; the bytes
 * the allocator handed out to create() and to the prefill (two differences, so that what
 * the driver allocates between them is left out). */
void run_build_collect(const struct shared *s, const struct worker *w, unsigned n, struct run_build *b)
{
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (unsigned i = 0; i < n; i++) {
        t0 = w[i].build_start < t0 ? w[i].build_start : t0;
        t1 = w[i].build_end > t1 ? w[i].build_end : t1;
    }
    b->build_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
    b->has_resizes = s->ops->stats != NULL;
    b->build_resizes = s->resizes_after_prefill - s->resizes_at_create;
    const struct alloc_count *a0 = &s->alloc_before_create, *a1 = &s->alloc_after_create,
                             *a2 = &s->alloc_before_prefill, *a3 = &s->alloc_after_prefill;
    b->has_alloc = a0->ok && a1->ok && a2->ok && a3->ok;
    b->alloc_source = a0->source;
    b->alloc_bytes = ((double)a1->bytes - (double)a0->bytes) + ((double)a3->bytes - (double)a2->bytes);
    /* a table whose own count is more than twice what malloc handed out allocates elsewhere (tbb's
     * scalable allocator): its RSS is the truer figure */
    if (b->has_alloc && strcmp(b->alloc_source, "rss") != 0 && b->alloc_bytes * 2 < (double)s->table_bytes_after_prefill &&
        a0->rss_ok && a1->rss_ok && a2->rss_ok && a3->rss_ok) {
        b->alloc_source = "rss";
        b->alloc_bytes = ((double)a1->rss - (double)a0->rss) + ((double)a3->rss - (double)a2->rss);
    }
}
