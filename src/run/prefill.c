/* run/prefill.c - the prefill: i distinct keys, by thread 0 or a slice per
 * thread (--prefill), off the clock. */
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
