/* history.c - see history.h. The checker runs after the workers are joined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"
#include "keygen.h"
#include "runner.h"
#include "util.h"

void hist_watch_init(struct hist_watch *w, uint64_t range, uint64_t keys)
{
    uint64_t d = keys && range > keys ? range / keys : 1;
    d |= 1;                          /* odd: invertible mod 2^64 */
    uint64_t x = d;                  /* d * d = 1 mod 8: 3 bits right; each Newton step doubles them */
    for (int i = 0; i < 5; i++)
        x *= 2 - d * x;
    w->d = d;
    w->inv = x;
    w->lim = UINT64_MAX / d;
}

int hist_buf_init(struct hist_buf *b, uint64_t cap)
{
    *b = (struct hist_buf){ .cap = cap };
    b->rec = malloc(cap * sizeof *b->rec);
    if (!b->rec)
        return -1;
    memset(b->rec, 0, cap * sizeof *b->rec);     /* its pages faulted in now, not in the timed loop */
    return 0;
}

void hist_buf_free(struct hist_buf *b)
{
    free(b->rec);
    *b = (struct hist_buf){ 0 };
}

static int key_cmp(const void *a, const void *b)
{
    const cht_key_t x = *(const cht_key_t *)a, y = *(const cht_key_t *)b;
    return (x > y) - (x < y);
}

cht_key_t *hist_watched_keys(const struct hist_watch *w, uint64_t max, bool sparse, size_t *n)
{
    size_t cap = max / w->d + 16, m = 0;
    cht_key_t *k = malloc(cap * sizeof *k);
    if (!k)
        return NULL;
    if (!sparse) {
        for (uint64_t x = w->d; x <= max; x += w->d)
            k[m++] = x;
    } else {                         /* the mapped keys' multiples of d: about as many, anywhere in 1..max */
        for (uint64_t x = 1; x <= max; x++) {
            const cht_key_t s = keygen_sparse(x);
            if (!hist_watched(w, s))
                continue;
            if (m == cap) {
                cht_key_t *g = realloc(k, (cap *= 2) * sizeof *k);
                if (!g) {
                    free(k);
                    return NULL;
                }
                k = g;
            }
            k[m++] = s;
        }
        qsort(k, m, sizeof *k, key_cmp);
    }
    *n = m;
    return k;
}

/* ---------------- the checker ---------------- */

/* A state of the search: the register, and which open ops (by slot) it has
 * already linearized ahead of their return. */
struct cfg {
    uint64_t lin;
    cht_val_t val;
    bool present;
};

/* A set of configurations: its members in order, and an open-addressed index
 * cleared by a generation bump (one set serves millions of events). */
struct cfgset {
    struct cfg *item;
    size_t n, item_cap;
    struct { uint32_t gen, idx; } *tab;
    size_t tab_cap;
    uint32_t gen;
};

#define HIST_MAX_STATES 100000   /* states per key and event before the key is "undecided" */

static uint64_t cfg_hash(const struct cfg *c)
{
    uint64_t h = (c->lin ^ c->val * 0x9e3779b97f4a7c15ull ^ (uint64_t)c->present << 63) * 0xff51afd7ed558ccdull;
    return h ^ h >> 29;
}

static void cfgset_clear(struct cfgset *s)
{
    s->n = 0;
    if (++s->gen == 0) {             /* wrapped: stale stamps could match */
        memset(s->tab, 0, s->tab_cap * sizeof *s->tab);
        s->gen = 1;
    }
}

static bool cfg_eq(const struct cfg *a, const struct cfg *b)
{
    return a->lin == b->lin && a->present == b->present && (!a->present || a->val == b->val);
}

static int cfgset_index(struct cfgset *s, size_t cap)
{
    void *t = calloc(cap, sizeof *s->tab);
    if (!t)
        return -1;
    free(s->tab);
    s->tab = t;
    s->tab_cap = cap;
    s->gen = 1;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = cfg_hash(&s->item[i]) & (cap - 1);
        while (s->tab[j].gen == s->gen)
            j = (j + 1) & (cap - 1);
        s->tab[j].gen = s->gen;
        s->tab[j].idx = (uint32_t)i;
    }
    return 0;
}

/* Adds c; 1 if it is new, 0 if there already, -1 out of memory. */
static int cfgset_add(struct cfgset *s, struct cfg c)
{
    if (!c.present)
        c.val = 0;
    if (2 * (s->n + 1) > s->tab_cap && cfgset_index(s, s->tab_cap ? 2 * s->tab_cap : 16) != 0)
        return -1;
    size_t j = cfg_hash(&c) & (s->tab_cap - 1);
    for (; s->tab[j].gen == s->gen; j = (j + 1) & (s->tab_cap - 1))
        if (cfg_eq(&s->item[s->tab[j].idx], &c))
            return 0;
    if (s->n == s->item_cap) {
        size_t cap = s->item_cap ? 2 * s->item_cap : 16;
        struct cfg *g = realloc(s->item, cap * sizeof *g);
        if (!g)
            return -1;
        s->item = g;
        s->item_cap = cap;
    }
    s->tab[j].gen = s->gen;
    s->tab[j].idx = (uint32_t)s->n;
    s->item[s->n++] = c;
    return 1;
}

static void cfgset_free(struct cfgset *s)
{
    free(s->item);
    free(s->tab);
}

/* The sequential register: whether op may run on state c (its recorded
 * answer the one the state gives; an op without an answer may run anywhere),
 * and the state after it. */
static bool hist_apply(const struct hist_rec *o, struct cfg *c)
{
    const bool ans = o->ok, any = !o->known;
    switch ((enum hist_op)o->op) {
    case HIST_GET:
        return c->present ? any || (ans && o->val == c->val) : any || !ans;
    case HIST_INSERT:
        if (c->present)
            return any || !ans;
        if (!any && !ans)
            return false;
        c->present = true;
        c->val = o->val;
        return true;
    case HIST_REMOVE:
        if (!c->present)
            return any || !ans;
        if (!any && !ans)
            return false;
        c->present = false;
        return true;
    case HIST_UPDATE:
        if (!c->present)
            return any || !ans;
        if (!any && !ans)
            return false;
        c->val = o->val;
        return true;
    }
    return false;
}

static const char *const op_names[] = { "get", "insert", "remove", "update" };

static int describe_val(char *b, size_t n, cht_val_t v)
{
    const unsigned w = run_val_writer(v);
    if (w == 0)
        return snprintf(b, n, "0x%016llx (the prefill's)", (unsigned long long)v);
    return snprintf(b, n, "0x%016llx (thread %u's write %llu)", (unsigned long long)v, w - 1,
                    (unsigned long long)run_val_seq(v));
}

static int describe_op(char *b, size_t n, const struct hist_rec *o, uint64_t t_start)
{
    char v[80] = "";
    int k = snprintf(b, n, "thread %u %s", o->thread, op_names[o->op]);
    if (o->op == HIST_INSERT || o->op == HIST_UPDATE) {
        describe_val(v, sizeof v, o->val);
        k += snprintf(b + k, n > (size_t)k ? n - k : 0, " %s", v);
    }
    const char *ans = !o->known ? "no answer (cut)" : o->op == HIST_GET && o->ok ? NULL : o->op == HIST_GET ?
                      "absent" : o->ok ? "true" : "false";
    if (!ans)
        describe_val(v, sizeof v, o->val);
    k += snprintf(b + k, n > (size_t)k ? n - k : 0, " -> %s, [+%.3f, +%.3f] us", ans ? ans : v,
                  (double)(o->t0 - t_start) / 1e3, (double)(o->t1 - t_start) / 1e3);
    return k;
}

struct key_check {
    const struct hist_rec *op;
    size_t m;
    struct cfg init;
    uint64_t t_start;
    uint32_t *ret;                  /* the answered ops by return time */
    struct cfgset cur, next, seen;
    struct cfg *stack;
    size_t stack_cap;
    char *window;
    size_t window_len;
};

static int by_return(const void *a, const void *b, void *ctx)
{
    const struct hist_rec *o = ctx;
    const struct hist_rec *x = &o[*(const uint32_t *)a], *y = &o[*(const uint32_t *)b];
    return x->t1 != y->t1 ? (x->t1 > y->t1) - (x->t1 < y->t1) : (x->t0 > y->t0) - (x->t0 < y->t0);
}

static void window_of(struct key_check *kc, size_t r_at, uint64_t used, const uint32_t *slot_op, unsigned r_slot)
{
    const struct hist_rec *o = kc->op, *r = &o[kc->ret[r_at]];
    char *b = kc->window, line[256], iv[80];
    size_t n = kc->window_len, k = 0;
    if (kc->init.present)
        describe_val(iv, sizeof iv, kc->init.val);
    else
        snprintf(iv, sizeof iv, "absent");
    describe_op(line, sizeof line, r, kc->t_start);
    k += snprintf(b + k, n - k, "key %llu (at the start %s): no order of its ops explains %s", (unsigned long long)r->key,
                  iv, line);
    for (unsigned s = 0; s < 64 && k < n; s++)
        if ((used >> s & 1) && s != r_slot) {
            describe_op(line, sizeof line, &o[slot_op[s]], kc->t_start);
            k += snprintf(b + k, n - k, "\n    open then:   %s", line);
        }
    for (size_t i = r_at > 4 ? r_at - 4 : 0; i < r_at && k < n; i++) {
        describe_op(line, sizeof line, &o[kc->ret[i]], kc->t_start);
        k += snprintf(b + k, n - k, "\n    done before: %s", line);
    }
}

/* One key's ops (sorted by call time): 0 linearizable, 1 not (the window
 * written), 2 undecided, -1 out of memory. */
static int check_key(struct key_check *kc)
{
    const struct hist_rec *o = kc->op;
    size_t nret = 0;
    for (size_t i = 0; i < kc->m; i++)
        if (o[i].known)
            kc->ret[nret++] = (uint32_t)i;
    qsort_r(kc->ret, nret, sizeof *kc->ret, by_return, (void *)o);
    uint32_t slot_op[64];
    uint8_t *slot_of = malloc(kc->m ? kc->m : 1);
    if (!slot_of)
        return -1;
    uint64_t used = 0;
    size_t call = 0;
    int rc = 0;
    cfgset_clear(&kc->cur);
    if (cfgset_add(&kc->cur, kc->init) < 0)
        rc = -1;
    for (size_t ri = 0; ri < nret && rc == 0; ri++) {
        const uint32_t r = kc->ret[ri];
        /* calls at the return's tick or before it: at one tick, the order is unknown */
        for (; call < kc->m && o[call].t0 <= o[r].t1; call++) {
            if (used == UINT64_MAX) {
                rc = 2;
                break;
            }
            const unsigned s = (unsigned)__builtin_ctzll(~used);
            used |= 1ull << s;
            slot_op[s] = (uint32_t)call;
            slot_of[call] = (uint8_t)s;
        }
        if (rc)
            break;
        const unsigned rs = slot_of[r];
        const uint64_t rbit = 1ull << rs;
        cfgset_clear(&kc->next);
        cfgset_clear(&kc->seen);
        for (size_t ci = 0; ci < kc->cur.n && rc == 0; ci++) {
            struct cfg c = kc->cur.item[ci];
            if (c.lin & rbit) {      /* linearized already: it returns */
                c.lin &= ~rbit;
                if (cfgset_add(&kc->next, c) < 0)
                    rc = -1;
                continue;
            }
            /* depth first: linearize open ops ahead of r, then r */
            size_t sp = 0;
            int a = cfgset_add(&kc->seen, c);
            if (a < 0) {
                rc = -1;
                break;
            }
            if (a)
                kc->stack[sp++] = c;
            while (sp && rc == 0) {
                const struct cfg x = kc->stack[--sp];
                struct cfg y = x;
                if (hist_apply(&o[r], &y) && cfgset_add(&kc->next, y) < 0) {
                    rc = -1;
                    break;
                }
                for (uint64_t free_ops = used & ~x.lin & ~rbit; free_ops; free_ops &= free_ops - 1) {
                    const unsigned p = (unsigned)__builtin_ctzll(free_ops);
                    struct cfg z = x;
                    if (!hist_apply(&o[slot_op[p]], &z))
                        continue;
                    z.lin |= 1ull << p;
                    a = cfgset_add(&kc->seen, z);
                    if (a < 0 || kc->seen.n > HIST_MAX_STATES) {
                        rc = a < 0 ? -1 : 2;
                        break;
                    }
                    if (!a)
                        continue;
                    if (sp == kc->stack_cap) {
                        size_t cap = kc->stack_cap * 2;
                        struct cfg *g = realloc(kc->stack, cap * sizeof *g);
                        if (!g) {
                            rc = -1;
                            break;
                        }
                        kc->stack = g;
                        kc->stack_cap = cap;
                    }
                    kc->stack[sp++] = z;
                }
            }
        }
        if (rc)
            break;
        if (kc->next.n == 0) {
            window_of(kc, ri, used, slot_op, rs);
            rc = 1;
            break;
        }
        used &= ~rbit;
        struct cfgset t = kc->cur;
        kc->cur = kc->next;
        kc->next = t;
    }
    free(slot_of);
    return rc;
}

static int by_key_time(const void *a, const void *b)
{
    const struct hist_rec *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    if (x->t0 != y->t0)
        return (x->t0 > y->t0) - (x->t0 < y->t0);
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static struct cfg initial_state(const struct hist_init *init, size_t ninit, cht_key_t k)
{
    size_t lo = 0, hi = ninit;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (init[mid].key < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ninit && init[lo].key == k)
        return (struct cfg){ .present = init[lo].present, .val = init[lo].present ? init[lo].val : 0 };
    return (struct cfg){ .present = false };     /* above the range at the start (YCSB-D's new keys) */
}

int hist_check(struct hist_buf *bufs, unsigned nthreads, const struct hist_init *init, size_t ninit,
               uint64_t t_start, uint64_t t_end, struct hist_result *out)
{
    const uint64_t t_check = now_ns();
    *out = (struct hist_result){ 0 };
    /* A thread that ran out of room recorded nothing after its last record's
     * end: past the earliest such end nothing is complete, so ops called
     * after it are dropped and ops it cuts keep no answer (they may have
     * taken effect or not: sound either way). */
    uint64_t cut = UINT64_MAX, total = 0;
    for (unsigned t = 0; t < nthreads; t++) {
        total += bufs[t].n;
        out->lost += bufs[t].lost;
        if (bufs[t].lost && bufs[t].n && bufs[t].rec[bufs[t].n - 1].t1 < cut)
            cut = bufs[t].rec[bufs[t].n - 1].t1;
        else if (bufs[t].lost && !bufs[t].n)
            cut = t_start;
    }
    out->covered_ns = (cut == UINT64_MAX ? t_end : cut) - t_start;
    struct hist_rec *all = malloc((total ? total : 1) * sizeof *all);
    if (!all)
        return -1;
    size_t m = 0;
    for (unsigned t = 0; t < nthreads; t++)
        for (uint64_t i = 0; i < bufs[t].n; i++) {
            struct hist_rec r = bufs[t].rec[i];
            if (r.t0 >= cut)
                continue;
            r.known = r.t1 < cut;
            if (!r.known && r.op == HIST_GET)
                continue;
            out->unanswered += !r.known;
            all[m++] = r;
        }
    out->ops = m;
    qsort(all, m, sizeof *all, by_key_time);
    char scratch[sizeof out->window];
    struct key_check kc = { .t_start = t_start, .window_len = sizeof out->window, .stack_cap = 64 };
    size_t max_group = 0;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i; j < m && all[j].key == all[i].key; j++)
            ;
        if (j - i > max_group)
            max_group = j - i;
    }
    kc.ret = malloc((max_group ? max_group : 1) * sizeof *kc.ret);
    kc.stack = malloc(kc.stack_cap * sizeof *kc.stack);
    int rc = kc.ret && kc.stack ? 0 : -1;
    for (size_t i = 0, j; i < m && rc == 0; i = j) {
        for (j = i; j < m && all[j].key == all[i].key; j++)
            ;
        kc.op = &all[i];
        kc.m = j - i;
        kc.init = initial_state(init, ninit, all[i].key);
        kc.window = out->violations ? scratch : out->window;     /* the first violation's window is kept */
        out->keys++;
        const int k = check_key(&kc);
        if (k < 0)
            rc = -1;
        out->violations += k == 1;
        out->undecided += k == 2;
    }
    cfgset_free(&kc.cur);
    cfgset_free(&kc.next);
    cfgset_free(&kc.seen);
    free(kc.stack);
    free(kc.ret);
    free(all);
    out->check_s = (double)(now_ns() - t_check) / 1e9;
    return rc;
}
