/*
 * keygen.c - key streams: PRNG seeding, --dist parsing, exact Zipf sampling by
 * rejection-inversion, and the rank scrambling permutation. See keygen.h for
 * the overview and the references.
 *
 * Zipf by rejection-inversion (Hörmann & Derflinger 1996, ACM TOMACS 6(3)).
 * Target: P(k) proportional to h(k) = k^-q on k = 1..n. Take the continuous,
 * decreasing, convex hat h(x) = x^-q and its antiderivative
 *     H(x) = (x^(1-q) - 1) / (1-q)        (q != 1),     H(x) = log x (q == 1),
 * with inverse H^-1(y) = (1 + (1-q) y)^(1/(1-q)) (resp. exp y). Draw u uniformly
 * from [H(1.5) - h(1), H(n + 0.5)], set x = H^-1(u) and k = round(x). Rank k >= 2
 * owns the u-interval [H(k-0.5), H(k+0.5)], whose length is >= h(k) because h
 * is convex; accepting iff u >= H(k+0.5) - h(k) keeps exactly a length-h(k)
 * piece of it, so accepted ranks have probability proportional to h(k) exactly.
 * Rank 1 owns [H(1.5) - h(1), H(1.5)], of length h(1), and is always accepted.
 * Most draws are accepted without evaluating H by the squeeze
 * k - x <= s, s = 2 - H^-1(H(2.5) - h(2)) (the bound is tightest at k = 2).
 * Rejections are rare (measured: 0.08% of tries at q = 0.99, 0.4% at 1.22,
 * 1.3% at 2; squeeze misses 0.7-2%), so a draw costs O(1) expected time: one
 * log1p + one exp, plus a log/expm1/log/exp on a squeeze miss. Rank 1, the
 * most frequent one, owns its u-interval whole, so u < H(1.5) returns rank 1
 * at once without any exp/log (the same outcome the general path computes).
 *
 * Near q = 1 the textbook formulas cancel catastrophically, so H and H^-1 are
 * written as  H(x) = log(x) * E((1-q) log x),   H^-1(y) = exp(y * L((1-q) y)),
 * with E(t) = expm1(t)/t and L(t) = log1p(t)/t, both -> 1 as t -> 0 and both
 * replaced by their Taylor series for |t| < 1e-8; q == 1 is then not a special
 * case at all.
 *
 * Floating point: x is a double, so past 2^53 it cannot name every rank. For
 * such x the rank is dithered uniformly over the ulp of x with otherwise unused
 * low bits of the draw, so every key of a 2^62 range stays reachable and
 * per-rank masses are right at the resolution the double can express.
 *
 * Scramble: a 4-round unbalanced Feistel network on b = ceil(log2 range) bits
 * (halves of floor(b/2) and ceil(b/2) bits, whose widths swap every round),
 * round function = a keyed 64-bit multiply-xorshift mixer, keys from
 * splitmix64(seed). Restricted to [0, range) by cycle-walking (Black & Rogaway
 * 2002): re-apply the permutation until the value lands in range. Since
 * 2^b < 2 * range (for range >= 3; b >= 2 so both halves are non-empty), the
 * expected number of applications is < 2.
 */
#include "keygen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------- PRNG seeding ---------------- */

static uint64_t splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* splitmix64 (Steele, Lea & Flood 2014): one step of the generator. */
static uint64_t splitmix64_next(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ull;
    return splitmix64_mix(*x);
}

void cht_rng_seed(struct cht_rng *r, uint64_t seed, uint64_t stream)
{
    /* mix(seed) is a bijection of seed, and adding (stream+1) * odd is injective
     * in stream, so distinct streams of one seed start from distinct splitmix
     * states; the two splitmix outputs fill the xoroshiro state. */
    uint64_t x = splitmix64_mix(seed ^ 0x6a09e667f3bcc908ull) + (stream + 1) * 0xd1b54a32d192ed03ull;
    r->s[0] = splitmix64_next(&x);
    r->s[1] = splitmix64_next(&x);
    if ((r->s[0] | r->s[1]) == 0)     /* the one forbidden state */
        r->s[0] = 1;
}

/* ---------------- --dist parsing / formatting ---------------- */

#define DIST_USAGE "expected uniform|zipf:THETA[,scramble]|hotspot:keys=PCT,ops=PCT[,shift=MS]"

static void set_err(char *err, size_t len, const char *fmt, const char *a, int alen)
{
    if (err && len)
        snprintf(err, len, fmt, alen, a);
}

/* "hotspot:keys=PCT,ops=PCT[,shift=MS]" */
static int parse_hotspot(const char *s, struct keygen_spec *out, char *err, size_t len)
{
    double keys = -1, ops = -1;
    uint64_t shift = 0;
    char buf[256];
    if (s[7] != ':' || strlen(s + 8) >= sizeof buf) {
        set_err(err, len, "--dist: hotspot needs keys=PCT,ops=PCT[,shift=MS], e.g. hotspot:keys=10,ops=90 (got '%.*s')",
                s, (int)strlen(s));
        return -1;
    }
    strcpy(buf, s + 8);
    /* the list grammar of --table: no empty item, no key twice */
    size_t bl = strlen(buf);
    if (!bl || buf[0] == ',' || buf[bl - 1] == ',' || strstr(buf, ",,")) {
        set_err(err, len, "--dist: hotspot: an empty item in '%.*s' (expected keys=PCT,ops=PCT[,shift=MS])", s,
                (int)strlen(s));
        return -1;
    }
    bool seen[3] = { false, false, false };
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end = NULL;
        size_t kl = eq ? (size_t)(eq - tok) : strlen(tok);
        int which = kl == 4 && strncmp(tok, "keys", 4) == 0 ? 0 : kl == 3 && strncmp(tok, "ops", 3) == 0 ? 1
                  : kl == 5 && strncmp(tok, "shift", 5) == 0 ? 2 : -1;
        if (which >= 0 && seen[which]) {
            set_err(err, len, "--dist: hotspot option '%.*s' given twice (each key at most once)", tok, (int)kl);
            return -1;
        }
        if (which >= 0)
            seen[which] = true;
        if (!eq) {
            set_err(err, len, "--dist: hotspot option '%.*s' is not key=value (keys=PCT,ops=PCT,shift=MS)", tok,
                    (int)strlen(tok));
            return -1;
        }
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp(tok, "keys") == 0 || strcmp(tok, "ops") == 0) {
            double d = (*v >= '0' && *v <= '9') || *v == '.' ? strtod(v, &end) : -1;
            if (!end || *end || !(d > 0 && d < 100)) {
                if (err && len)
                    snprintf(err, len, "--dist: hotspot %s=%s: expected a percentage strictly between 0 and 100", tok, v);
                return -1;
            }
            *(strcmp(tok, "keys") == 0 ? &keys : &ops) = d;
        } else if (strcmp(tok, "shift") == 0) {
            unsigned long long ms = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
            if (!end || *end || ms == 0 || ms > 86400000) {
                set_err(err, len, "--dist: hotspot shift=%.*s: expected milliseconds 1..86400000", v, (int)strlen(v));
                return -1;
            }
            shift = ms;
        } else {
            set_err(err, len, "--dist: unknown hotspot option '%.*s' (expected keys, ops, shift)", tok, (int)strlen(tok));
            return -1;
        }
    }
    if (keys < 0 || ops < 0) {
        set_err(err, len, "--dist: hotspot needs both keys=PCT and ops=PCT (got '%.*s')", s, (int)strlen(s));
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->dist = KEYGEN_HOTSPOT;
    out->hot_keys = keys;
    out->hot_ops = ops;
    out->shift_ms = shift;
    return 0;
}

int keygen_parse(const char *s, struct keygen_spec *out, char *err, size_t len)
{
    if (!s)
        s = "";
    if (strcmp(s, "uniform") == 0) {
        out->dist = KEYGEN_UNIFORM;
        out->theta = 0;
        out->scramble = false;
        return 0;
    }
    if (strncmp(s, "hotspot", 7) == 0 && (s[7] == ':' || s[7] == '\0'))
        return parse_hotspot(s, out, err, len);
    if (strncmp(s, "zipf", 4) != 0 || (s[4] != '\0' && s[4] != ':')) {
        set_err(err, len, "--dist: " DIST_USAGE " (got '%.*s')", s, (int)strlen(s));
        return -1;
    }
    if (s[4] == '\0' || s[5] == '\0' || s[5] == ',') {
        set_err(err, len, "--dist: zipf needs a theta > 0, e.g. zipf:0.99 (got '%.*s')",
                s, (int)strlen(s));
        return -1;
    }
    const char *t = s + 5;
    const char *comma = strchr(t, ',');
    int tlen = comma ? (int)(comma - t) : (int)strlen(t);
    char *end = NULL;
    double theta = 0;
    /* strtod would skip leading blanks; insist the number starts at once. */
    if ((*t >= '0' && *t <= '9') || *t == '.')   /* no sign: the number grammar of every flag */
        theta = strtod(t, &end);
    if (!end || end != t + tlen) {
        set_err(err, len, "--dist: zipf theta must be a number > 0 (got '%.*s')", t, tlen);
        return -1;
    }
    if (!isfinite(theta)) {
        set_err(err, len, "--dist: zipf theta must be a finite number > 0 (got %.*s)", t, tlen);
        return -1;
    }
    if (!(theta > 0)) {
        set_err(err, len, "--dist: zipf theta must be > 0 (got %.*s)", t, tlen);
        return -1;
    }
    bool scramble = false;
    if (comma) {
        if (strcmp(comma + 1, "scramble") != 0) {
            set_err(err, len, "--dist: unknown zipf option '%.*s' (expected scramble)",
                    comma + 1, (int)strlen(comma + 1));
            return -1;
        }
        scramble = true;
    }
    out->dist = KEYGEN_ZIPF;
    out->theta = theta;
    out->scramble = scramble;
    return 0;
}

void keygen_format(const struct keygen_spec *s, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    if (s->dist == KEYGEN_HOTSPOT) {
        int n = snprintf(buf, len, "hotspot:keys=%g,ops=%g", s->hot_keys, s->hot_ops);
        if (s->shift_ms && n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, ",shift=%llu", (unsigned long long)s->shift_ms);
        return;
    }
    if (s->dist != KEYGEN_ZIPF) {
        snprintf(buf, len, "uniform");
        return;
    }
    char num[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(num, sizeof num, "%.*g", prec, s->theta);
        if (strtod(num, NULL) == s->theta)
            break;
    }
    snprintf(buf, len, "zipf:%s%s", num, s->scramble ? ",scramble" : "");
}

/* ---------------- Zipf: H, H^-1, h ---------------- */

/* L(t) = log1p(t) / t, continuous at 0. */
static inline double log1p_over(double t)
{
    if (fabs(t) > 1e-8)
        return log1p(t) / t;
    return 1.0 - t * (0.5 - t * (1.0 / 3.0 - 0.25 * t));
}

/* E(t) = expm1(t) / t, continuous at 0. */
static inline double expm1_over(double t)
{
    if (fabs(t) > 1e-8)
        return expm1(t) / t;
    return 1.0 + t * 0.5 * (1.0 + t * (1.0 / 3.0) * (1.0 + 0.25 * t));
}

/* h(x) = x^-q */
static inline double zipf_h(double q, double x)
{
    return exp(-q * log(x));
}

/* H(x) = integral of h: (x^(1-q) - 1) / (1-q), log x at q = 1. */
static inline double zipf_H(double omq, double x)
{
    double lx = log(x);
    return lx * expm1_over(omq * lx);
}

/* H^-1(y) = (1 + (1-q) y)^(1/(1-q)), exp y at q = 1. Past the top of H's range
 * (possible only by rounding, for q > 1) it returns +inf, i.e. "rank n". */
static inline double zipf_Hinv(double omq, double inv_omq, double y)
{
    double t = omq * y;
    if (t < -1.0)
        t = -1.0;
    if (fabs(t) > 1e-8)
        return exp(log1p(t) * inv_omq);
    return exp(y * (1.0 - t * (0.5 - t * (1.0 / 3.0 - 0.25 * t))));
}

/* ---------------- scramble ---------------- */

/* Keyed round function: a multiply-xorshift mixer of (r ^ key); the caller
 * takes its top bits. */
static inline uint64_t feistel_f(uint64_t r, uint64_t key)
{
    uint64_t z = (r ^ key) * 0x9e3779b97f4a7c15ull;
    z ^= z >> 32;
    z *= 0xd6e8feb86659fd93ull;
    return z;
}

/* A permutation of [0, 2^(fb_hi+fb_lo)). x = L.R with L of wl bits on top;
 * a round maps (L, R) -> (R, L ^ F(R)), so the widths swap each round, and
 * each round is invertible: L = R' ^ F(L'). */
static inline uint64_t feistel(const struct keygen *g, uint64_t x)
{
    unsigned wl = g->fb_hi, wr = g->fb_lo;
    uint64_t L = x >> wr, R = x & ((1ull << wr) - 1);
    for (int i = 0; i < KEYGEN_FEISTEL_ROUNDS; i++) {
        uint64_t f = feistel_f(R, g->fkey[i]) >> (64 - wl);
        uint64_t nl = R;
        R = L ^ f;
        L = nl;
        unsigned w = wl;
        wl = wr;
        wr = w;
    }
    return (L << wr) | R;
}

uint64_t keygen_scramble(const struct keygen *g, uint64_t rank)
{
    uint64_t x = rank - 1;
    /* Cycle-walking: the permutation's cycle through x returns to [0, range)
     * (at x itself at the latest), so this terminates; expected < 2 steps. */
    do
        x = feistel(g, x);
    while (x >= g->range);
    return x + 1;
}

/* ---------------- init ---------------- */

int keygen_init(struct keygen *g, const struct keygen_spec *s, uint64_t range,
                uint64_t seed, char *err, size_t len)
{
    if (range < 1 || range > CHT_KEY_MAX) {
        if (err && len)
            snprintf(err, len, "--range: must be in 1..2^62 (got %llu)", (unsigned long long)range);
        return -1;
    }
    if (s->dist != KEYGEN_UNIFORM && s->dist != KEYGEN_ZIPF && s->dist != KEYGEN_HOTSPOT) {
        if (err && len)
            snprintf(err, len, "--dist: unknown distribution %d; " DIST_USAGE, (int)s->dist);
        return -1;
    }
    if (s->dist == KEYGEN_ZIPF && !(s->theta > 0 && isfinite(s->theta))) {
        if (err && len)
            snprintf(err, len, "--dist: zipf theta must be a finite number > 0 (got %g)", s->theta);
        return -1;
    }

    memset(g, 0, sizeof *g);
    g->dist = s->dist;
    g->scramble = s->dist == KEYGEN_ZIPF && s->scramble;
    g->range = range;
    g->spec = *s;
    g->seed = seed;
    g->n_d = (double)range;

    if (s->dist == KEYGEN_HOTSPOT) {
        double n = floor(s->hot_keys / 100.0 * (double)range + 0.5);
        g->hot_n = n < 1 ? 1 : (uint64_t)n;
        if (g->hot_n >= range) {
            if (err && len)
                snprintf(err, len, "--dist: hotspot keys=%g%% of a range of %llu leaves no cold key", s->hot_keys,
                         (unsigned long long)range);
            return -1;
        }
        /* P(hot) = hot_ops%: a 64-bit draw below hot_ops/100 * 2^64 */
        g->hot_thresh = (uint64_t)ldexp(s->hot_ops / 100.0, 64);
    }
    if (s->dist == KEYGEN_ZIPF) {
        double q = s->theta, omq = 1.0 - q;
        g->theta = q;
        g->omq = omq;
        g->inv_omq = omq != 0 ? 1.0 / omq : 0;   /* unused at q == 1 (series branch) */
        g->h_x1 = zipf_H(omq, 1.5) - 1.0;
        g->h_n = zipf_H(omq, g->n_d + 0.5);
        g->h_span = g->h_x1 - g->h_n;
        g->u_rank1 = zipf_H(omq, 1.5);
        g->squeeze = 2.0 - zipf_Hinv(omq, g->inv_omq, zipf_H(omq, 2.5) - zipf_h(q, 2.0));
    }

    /* The scramble permutation exists for every generator: the driver and the
     * tests use keygen_scramble on uniform generators too. */
    unsigned b = range <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(range - 1);
    if (b < 2)
        b = 2;
    g->fb_hi = b / 2;
    g->fb_lo = b - b / 2;
    uint64_t x = seed ^ 0x5ca1ab1e0ddba11ull;
    for (int i = 0; i < KEYGEN_FEISTEL_ROUNDS; i++)
        g->fkey[i] = splitmix64_next(&x);
    return 0;
}

/* ---------------- Zipf draw ---------------- */

cht_key_t keygen_next_zipf(const struct keygen *g, struct cht_rng *r)
{
    for (;;) {
        uint64_t bits = cht_rng_next(r);
        /* u in (h_x1, h_n]: top 53 bits give a uniform double in [0, 1). */
        double u = g->h_n + (double)(bits >> 11) * 0x1p-53 * g->h_span;
        uint64_t k;
        if (u < g->u_rank1) {
            /* rank 1 owns [H(1.5) - h(1), H(1.5)] whole (no rejection part):
             * the same outcome as the general path below, without exp/log;
             * it is the most frequent rank (19% of draws at theta 1.22). */
            k = 1;
        } else {
            double x = zipf_Hinv(g->omq, g->inv_omq, u);
            /* round half up; past 2^52 a double is already an integer (and
             * x + 0.5 would round to even) */
            double kd = x < 0x1p52 ? floor(x + 0.5) : x;
            if (kd < 1.0)
                kd = 1.0;
            else if (kd > g->n_d)
                kd = g->n_d;
            if (kd - x > g->squeeze &&
                u < zipf_H(g->omq, kd + 0.5) - zipf_h(g->theta, kd))
                continue;                                   /* rejected */
            k = (uint64_t)kd;
            if (kd >= 0x1p53) {
                /* kd stands for the ulp(kd) ranks around it: pick one uniformly
                 * with the low bits not used for u (ulp <= 2^10 below 2^63). */
                int e = ilogb(kd);
                uint64_t w = 1ull << (e - 52);
                k = k - w / 2 + (bits & (w - 1));
            }
        }
        if (k > g->range)
            k = g->range;
        if (g->scramble)
            k = keygen_scramble(g, k);
        return k;
    }
}

/* ---------------- exact pmf (tests) ---------------- */

/* Generalized harmonic number H(n, q) = sum_{i=1}^n i^-q. */
static double harmonic(uint64_t n, double q)
{
    const uint64_t direct = 1u << 20, head = 1024;
    if (n <= direct) {
        double sum = 0;
        for (uint64_t i = n; i >= 1; i--)       /* smallest terms first */
            sum += exp(-q * log((double)i));
        return sum;
    }
    /* sum_{i<M} i^-q directly, then Euler-Maclaurin for sum_{i=M}^{n} f(i):
     * int_M^n f + (f(M) + f(n))/2 + sum_j B_2j/(2j)! (f^(2j-1)(n) - f^(2j-1)(M)),
     * f(x) = x^-q, f' = -q x^-(q+1), f''' = -q(q+1)(q+2) x^-(q+3),
     * f^(5) = -q(q+1)(q+2)(q+3)(q+4) x^-(q+5). The remainder is of order
     * f^(7)(M)/1209600 ~ 1e-27 at M = 1024: far below double precision. */
    double sum = 0;
    for (uint64_t i = head - 1; i >= 1; i--)
        sum += exp(-q * log((double)i));
    double M = (double)head, N = (double)n, omq = 1.0 - q;
    double lr = log(N / M);
    double integral = exp(omq * log(M)) * lr * expm1_over(omq * lr);
    double fM = exp(-q * log(M)), fN = exp(-q * log(N));
    double d1 = -q;
    double d3 = -q * (q + 1) * (q + 2);
    double d5 = d3 * (q + 3) * (q + 4);
    double em = (fM + fN) / 2
              + (1.0 / 12.0) * d1 * (fN / N - fM / M)
              - (1.0 / 720.0) * d3 * (fN / (N * N * N) - fM / (M * M * M))
              + (1.0 / 30240.0) * d5 * (fN / (N * N * N * N * N) - fM / (M * M * M * M * M));
    return sum + integral + em;
}

double keygen_zipf_pmf(uint64_t n, double theta, uint64_t k)
{
    if (n < 1 || k < 1 || k > n || !(theta > 0) || !isfinite(theta))
        return 0;
    return exp(-theta * log((double)k)) / harmonic(n, theta);
}
