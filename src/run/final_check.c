/*
 * run/final_check.c - the final check (docs/cli.md "The final check").
 *
 * size() of most tables is a sum of per-thread counters, so
 * size()==i+ins-rem holds by construction even if a table loses keys. The
 * verify sweep counts the keys get() finds over the whole key range (or a
 * uniform sample of it when the range is too large to sweep in about a
 * second) and compares with what must be there; it also checks every found
 * value (a hash of the key, its writer and a write sequence, run_val) and,
 * in a full sweep, the sum of the keys found (run_verify_contents).
 */
#include <math.h>
#include "worker.h"

/* This worker's share of the final check: keys first+1..first+n of the
 * range (VERIFY_FULL) or of the sample bijection (VERIFY_SAMPLE). */
void run_verify_slice(struct worker *w)
{
    const struct shared *s = w->s;
    if (s->verify == VERIFY_OFF)
        return;
    unsigned n = s->p->threads;
    uint64_t per = s->verify_n / n, extra = s->verify_n % n;
    uint64_t first = w->tid * per + (w->tid < extra ? w->tid : extra), cnt = per + (w->tid < extra);
    bool (*get)(void *, cht_key_t, cht_val_t *) = s->ops->get;
    const uint64_t *wrote = s->wrote;
    const bool check_values = !s->shadow;       /* a filter stores no values */
    uint64_t found = 0, present = 0, present_found = 0, ks = 0, bad = 0;
    for (uint64_t j = first + 1; j <= first + cnt; j++) {
        if (!(j & 4095) && stop_requested())
            break;
        cht_key_t k = s->verify == VERIFY_FULL ? j : keygen_scramble(s->verify_perm, j);
        if (s->p->cfg->keys_sparse)
            k = keygen_sparse(k);
        cht_val_t v = 0;
        bool f = get(s->table, k, &v);
        found += f;
        ks += k & -(uint64_t)f;
        if (f && check_values) {
            const unsigned wr = run_val_writer(v);
            /* its key's hash, a writer of the run, a sequence that writer used (all, once past 2^32) */
            if ((v & (RUN_VAL_KEY_MASK | 1ull << 63)) != run_val_keybits(k) || wr > n ||
                (run_val_seq(v) >= wrote[wr] && wrote[wr] <= RUN_VAL_SEQ_MASK)) {
                if (!bad++) {
                    w->bad_key = k;
                    w->bad_value = v;
                }
            }
        }
        if (s->shadow && k <= s->p->range) {
            bool in = shadow_test(s->shadow, k);
            present += in;
            present_found += in && f;
        }
    }
    w->verify_keysum = ks;
    w->verify_bad = bad;
    w->verify_found = found;
    w->verify_present = present;
    w->verify_present_found = present_found;
}

/* The final check's extent (docs/cli.md "The final check"): the whole key
 * range when it is at most VERIFY_FULL_MAX keys (about a second of get()s at
 * the slowest tables' rates on 2 threads), else a uniform sample of
 * VERIFY_SAMPLE_KEYS distinct keys. Tables that store nothing are not checked. */
#define VERIFY_FULL_MAX (1ull << 24)
#define VERIFY_SAMPLE_KEYS (1ull << 20)

void run_choose_verify(const struct run_params *p, struct shared *s)
{
    enum verify_mode m = p->cfg->verify;
    uint64_t range = p->range;
    if (s->ops->caps & CHT_CAP_NO_DATA)
        m = VERIFY_OFF;
    if (m == VERIFY_AUTO)
        m = range <= VERIFY_FULL_MAX ? VERIFY_FULL : VERIFY_SAMPLE;
    if (m == VERIFY_SAMPLE && (range <= VERIFY_SAMPLE_KEYS || !p->verify_perm))
        m = range <= VERIFY_SAMPLE_KEYS ? VERIFY_FULL : VERIFY_OFF;   /* a "sample" that is the whole range */
    s->verify = m;
    s->verify_n = m == VERIFY_FULL ? range : m == VERIFY_SAMPLE ? VERIFY_SAMPLE_KEYS : 0;
    s->verify_perm = p->verify_perm;
}

/* Full: exactly the keys that must be present are found (a filter,
 * CHT_CAP_APPROXIMATE, may find more, never fewer). Sample of m of the r
 * keys, P present: the count found is hypergeometric with mean m*P/r; it
 * must lie within 6 standard deviations (+1) of it: that catches losing a
 * fraction above about 6*sqrt((1-q)/(m*q)) of the keys, q = P/r (0.6% at
 * q = 1/2, 3.3% at q = 1/32 with m = 2^20), never one key in a million. */
void run_verify_judge(const struct shared *s, struct run_result *r, uint64_t found, uint64_t present_seen,
                         uint64_t present_found)
{
    bool approx = s->ops->caps & CHT_CAP_APPROXIMATE;
    uint64_t present = r->check.expected_size, range = s->p->range;
    if (s->p->cfg->workload == WL_YCSB_D && s->verify == VERIFY_SAMPLE)
        present = r->check.prefilled;       /* D never removes; its inserts lie above the sampled range */
    r->check.verify_mode = s->verify;
    r->check.verified_keys = s->verify_n;
    r->check.verify_found = found;
    r->check.verify_ok = true;
    if (s->verify == VERIFY_FULL) {
        r->check.verify_expected = present;
        r->check.verify_ok = approx ? found >= present : found == present;
    } else if (s->verify == VERIFY_SAMPLE) {
        double m = (double)s->verify_n, q = range ? (double)present / (double)range : 0;
        double mu = m * q, var = m * q * (1 - q) * (range > 1 ? ((double)range - m) / ((double)range - 1) : 0);
        double tol = 6 * sqrt(var > 0 ? var : 0) + 1, f = (double)found;
        r->check.verify_expected = (uint64_t)llround(mu);
        r->check.verify_ok = approx ? f + tol >= mu : fabs(f - mu) <= tol;
    }
    if (s->shadow && s->verify != VERIFY_OFF) {
        /* a filter: every key the harness knows present must be found (no false negative, exactly), the
         * harness' count must be the expected one (full) or plausible (sample); the absent keys found are
         * the false positives */
        uint64_t absent = s->verify_n - present_seen, absent_found = found - present_found;
        r->filter.fp_checked = absent;
        r->filter.fp_rate = absent ? (double)absent_found / (double)absent : 0;
        r->filter.false_negatives = present_seen - present_found;
        if (s->verify == VERIFY_FULL) {
            r->check.verify_expected = present;
            r->check.verify_ok = present_found == present_seen && present_seen == present;
        } else {
            double m = (double)s->verify_n, q = range ? (double)present / (double)range : 0;
            double sd = sqrt(m * q * (1 - q) > 0 ? m * q * (1 - q) : 0);
            r->check.verify_ok = present_found == present_seen && fabs((double)present_seen - m * q) <= 6 * sd + 1;
        }
    }
}

/* Values and the key sum (docs/cli.md "The final check"). Every found key's
 * value must be one the run wrote for it (run_val): its hash, a writer that
 * wrote (0, or t + 1 for a worker t that inserted or updated), and a
 * sequence that writer used. A value of another key, one never written,
 * garbage, or CHT_VAL_TORN (bit 63) fails.
 * A full sweep of an exact table also sums the keys found: that must be the
 * prefill's keys + the inserted - the removed ones (mod 2^64), so a lost key
 * and a key that should be gone cannot cancel in the count. */
void run_verify_contents(const struct shared *s, struct run_result *r, const struct worker *w, unsigned n)
{
    uint64_t expect = 0, got = 0;
    for (unsigned i = 0; i < n; i++) {
        expect += w[i].keysum;
        got += w[i].verify_keysum;
        if (w[i].verify_bad && !r->check.verify_bad_values) {
            r->check.bad_key = w[i].bad_key;
            r->check.bad_value = w[i].bad_value;
            const unsigned wr = run_val_writer(r->check.bad_value);
            r->check.bad_writer_seqs = wr <= n ? s->wrote[wr] : 0;
        }
        r->check.verify_bad_values += w[i].verify_bad;
        if (s->wrote[i + 1])
            r->check.max_version = i + 1;
    }
    r->check.keysum_checked = s->verify == VERIFY_FULL && !s->shadow;
    r->check.keysum_expected = expect;
    r->check.keysum_found = got;
    r->check.keysum_ok = !r->check.keysum_checked || got == expect;
}

/* A filter's false positives (docs/measurement.md "The cuckoo filter"): with f-bit
 * fingerprints (values 1 .. 2^f - 1) and b slots in each of an absent key's
 * two buckets, at most 2b fingerprints can match it, each with probability
 * 1/(2^f - 1): rate p <= 1 - (1 - 1/(2^f - 1))^(2b), about 2b/2^f. Of the
 * m absent keys looked up, more than m p + 6 sqrt(m p (1 - p)) + 3 answered
 * "present" fails the run: 6 binomial standard deviations, and 3 keys more so
 * that a tiny m p (where the binomial is far from normal) cannot fail a
 * correct filter by chance (P(Poisson(0.1) >= 4) ~ 4e-6, >= 6 ~ 1e-9). */
#define FP_SD 6
#define FP_SLACK 3
void run_filter_bound(struct run_result *r)
{
    const struct cht_stats *st = &r->memory.stats;
    if (!st->fp_bits || !st->fp_bucket_slots || !r->filter.fp_checked)
        return;
    double q = 1.0 / (ldexp(1.0, (int)st->fp_bits) - 1);
    double p = 1 - pow(1 - q, 2.0 * st->fp_bucket_slots), m = (double)r->filter.fp_checked;
    double limit = m * p + FP_SD * sqrt(m * p * (1 - p)) + FP_SLACK;
    r->filter.fp_bound = p;
    r->filter.fp_limit = limit / m;
    r->filter.fp_excess = r->filter.fp_rate * m > limit;
}

/* What the repetition amounts to; of several failed checks, the last in enum run_outcome's order. */
enum run_outcome run_outcome_of(const struct run_result *r, bool prefill_full)
{
    if (r->pipe.pipe_bad)
        return OUTCOME_BAD_ANSWER;
    if (r->history.hist_on && r->history.hist.violations)
        return OUTCOME_NOT_LINEARIZABLE;
    if (!r->check.size_ok || !r->check.verify_ok)
        return OUTCOME_MISMATCH;
    if (r->check.verify_bad_values)
        return OUTCOME_VALUE_MISMATCH;
    if (!r->check.keysum_ok)
        return OUTCOME_KEYSUM_MISMATCH;
    if (r->filter.fp_excess)
        return OUTCOME_FP_EXCESS;
    if (r->memory.stats.alloc_failures)
        return OUTCOME_OOM;
    if (prefill_full || r->memory.stats.full_failures)
        return OUTCOME_FULL;
    return OUTCOME_OK;
}
