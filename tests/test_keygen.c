/*
 * test_keygen.c - tests of workloads/keygen.{h,c}: the PRNG and its seeding,
 * Lemire range reduction, uniform keys, exact Zipf keys (chi-square goodness
 * of fit against keygen_zipf_pmf, with a power check that a wrong theta is
 * rejected), huge ranges, the scramble bijection, and --dist parsing; and of
 * workloads/opsource.{h,c}: the op mixes, each YCSB workload's op shares, a
 * buffer equal to the stream drawn in the loop, and YCSB D's latest keys.
 *
 * Every statistical check uses a fixed seed, so the outcome is deterministic;
 * thresholds are chi-square critical values at alpha = 0.001 (Wilson-Hilferty
 * approximation) or 5-sigma binomial bounds.
 *
 * Prints one line per check (PASS on stdout, FAIL on stderr); exits 1 if any
 * check failed. Also prints the cost of a draw in ns (informational only).
 */
#include "keygen.h"
#include "opsource.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, checks;

__attribute__((format(printf, 3, 4)))
static bool check(bool ok, const char *name, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    checks++;
    if (ok) {
        printf("PASS %-40s %s\n", name, detail);
    } else {
        failures++;
        fflush(stdout);
        fprintf(stderr, "FAIL %-40s %s\n", name, detail);
    }
    return ok;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) {
        fprintf(stderr, "FAIL out of memory\n");
        exit(2);
    }
    return p;
}

static void must_init(struct keygen *g, enum keygen_dist d, double theta, bool scramble,
                      uint64_t range, uint64_t seed)
{
    struct keygen_spec s = { .dist = d, .theta = theta, .scramble = scramble };
    char err[256];
    if (keygen_init(g, &s, range, seed, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL keygen_init(range=%llu, theta=%g): %s\n",
                (unsigned long long)range, theta, err);
        exit(2);
    }
}

/* "<" or ">=": for detail lines that read right whether a check passed or not. */
static const char *lt(double a, double b)
{
    return a < b ? "<" : ">=";
}

/* Upper alpha = 0.001 critical value of chi-square with df degrees of freedom,
 * by Wilson-Hilferty: (X/df)^(1/3) is ~normal with mean 1 - 2/(9df) and
 * variance 2/(9df). Accurate to < 0.5% for df >= 10, and errs high by ~1-2%
 * for small df, which only makes the test slightly more lenient. */
static double chi2_crit_001(double df)
{
    const double z = 3.090232306167813;   /* Phi^-1(1 - 0.001) */
    double a = 2.0 / (9.0 * df);
    double c = 1.0 - a + z * sqrt(a);
    return df * c * c * c;
}

/* ---------------- PRNG ---------------- */

static void test_rng(void)
{
    enum { N = 10000 };
    struct cht_rng a, b, c, d;
    cht_rng_seed(&a, 42, 3);
    cht_rng_seed(&b, 42, 3);
    cht_rng_seed(&c, 42, 4);
    cht_rng_seed(&d, 43, 3);
    int same_ab = 0, same_ac = 0, same_ad = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = cht_rng_next(&a), y = cht_rng_next(&b);
        uint64_t z = cht_rng_next(&c), w = cht_rng_next(&d);
        same_ab += x == y;
        same_ac += x == z;
        same_ad += x == w;
    }
    check(same_ab == N, "rng same seed+stream identical", "%d/%d equal", same_ab, N);
    check(same_ac == 0, "rng different streams differ", "%d/%d equal (stream 3 vs 4)", same_ac, N);
    check(same_ad == 0, "rng different seeds differ", "%d/%d equal (seed 42 vs 43)", same_ad, N);

    /* Neighbouring streams should look independent: bit agreement ~ 50%. */
    cht_rng_seed(&a, 7, 0);
    cht_rng_seed(&b, 7, 1);
    long agree = 0;
    for (int i = 0; i < N; i++)
        agree += 64 - __builtin_popcountll(cht_rng_next(&a) ^ cht_rng_next(&b));
    double frac = agree / (64.0 * N), sd = 0.5 / sqrt(64.0 * N);
    check(fabs(frac - 0.5) < 5 * sd, "rng streams 0,1 uncorrelated bits",
          "bit agreement %.4f (5 sigma = %.4f)", frac, 5 * sd);

    /* Each output bit is set half the time. */
    cht_rng_seed(&a, 1, 0);
    long ones[64] = { 0 };
    enum { M = 100000 };
    for (int i = 0; i < M; i++) {
        uint64_t x = cht_rng_next(&a);
        for (int j = 0; j < 64; j++)
            ones[j] += (x >> j) & 1;
    }
    double worst = 0;
    for (int j = 0; j < 64; j++)
        worst = fmax(worst, fabs(ones[j] / (double)M - 0.5));
    check(worst < 5 * 0.5 / sqrt(M), "rng every bit balanced", "worst |p-0.5| = %.5f", worst);

    bool ok = cht_rng_below(0, 100) == 0 && cht_rng_below(UINT64_MAX, 100) == 99 &&
              cht_rng_below(UINT64_MAX, 1) == 0 && cht_rng_below(1ull << 63, 10) == 5 &&
              cht_rng_below(UINT64_MAX, CHT_KEY_MAX) == CHT_KEY_MAX - 1 &&
              cht_rng_below(0x123456789abcdef0ull, 1ull << 20) == 0x12345;
    check(ok, "cht_rng_below endpoints", "below(0,100)=%llu below(max,100)=%llu below(2^63,10)=%llu",
          (unsigned long long)cht_rng_below(0, 100), (unsigned long long)cht_rng_below(UINT64_MAX, 100),
          (unsigned long long)cht_rng_below(1ull << 63, 10));
}

/* ---------------- uniform ---------------- */

static void test_uniform(void)
{
    enum { R = 100, N = 1000000 };
    struct keygen g;
    struct cht_rng r;
    must_init(&g, KEYGEN_UNIFORM, 0, false, R, 1);
    cht_rng_seed(&r, 1, 0);
    long cnt[R + 2] = { 0 };
    long outside = 0;
    for (int i = 0; i < N; i++) {
        cht_key_t k = keygen_next(&g, &r);
        if (k < 1 || k > R)
            outside++;
        else
            cnt[k]++;
    }
    int missed = 0;
    for (int k = 1; k <= R; k++)
        missed += cnt[k] == 0;
    check(outside == 0, "uniform r=100 in range", "%ld draws outside [1,100]", outside);
    check(missed == 0, "uniform r=100 covers every key", "%d keys never drawn", missed);
    double e = (double)N / R, chi = 0;
    for (int k = 1; k <= R; k++)
        chi += (cnt[k] - e) * (cnt[k] - e) / e;
    double crit = chi2_crit_001(R - 1);
    check(chi < crit, "uniform r=100 chi-square", "chi2 = %.1f %s %.1f (df %d, alpha 0.001)",
          chi, lt(chi, crit), crit, R - 1);

    /* Power: the same uniform sample is rejected against a mildly skewed pmf. */
    double chi_bad = 0, hn = 0;
    for (int k = 1; k <= R; k++)
        hn += pow(k, -0.1);
    for (int k = 1; k <= R; k++) {
        double eb = N * pow(k, -0.1) / hn;
        chi_bad += (cnt[k] - eb) * (cnt[k] - eb) / eb;
    }
    check(chi_bad >= crit, "uniform chi-square has power", "vs zipf(0.1) pmf: chi2 = %.1f %s %.1f (must be >=)",
          chi_bad, lt(chi_bad, crit), crit);

    must_init(&g, KEYGEN_UNIFORM, 0, false, 1, 1);
    long not1 = 0;
    for (int i = 0; i < 1000; i++)
        not1 += keygen_next(&g, &r) != 1;
    check(not1 == 0, "uniform r=1 always 1", "%ld draws != 1", not1);

    must_init(&g, KEYGEN_UNIFORM, 0, false, CHT_KEY_MAX, 1);
    long bad = 0, high = 0;
    for (int i = 0; i < 100000; i++) {
        cht_key_t k = keygen_next(&g, &r);
        bad += k < 1 || k > CHT_KEY_MAX;
        high += k > CHT_KEY_MAX / 2;
    }
    check(bad == 0 && fabs(high / 1e5 - 0.5) < 5 * 0.5 / sqrt(1e5), "uniform r=2^62 in range",
          "%ld outside, upper half %.4f", bad, high / 1e5);
}

/* ---------------- zipf goodness of fit ---------------- */

struct fit {
    double chi, crit;       /* all ranks, tail bins merged to expected >= 5 */
    int df;
    double chi_head, crit_head;  /* ranks 1..HEAD one bin each + one bin for the rest */
    int df_head;
    long outside;
};
enum { HEAD = 10 };

/* Draws N keys from zipf(theta_sample) on [1, n] (unscrambled, or mapped back
 * through the scramble inverse) and computes chi-square statistics against
 * keygen_zipf_pmf(n, theta_test, .). The full test bins ranks so that every
 * expected count is >= 5; the head test (ranks 1..10 and the rest) has few
 * degrees of freedom, so it catches small relative errors on the hot ranks
 * (e.g. a missing rejection step) that drown in the noise of 1000 bins. */
static struct fit zipf_fit(uint64_t n, double theta_sample, double theta_test, bool scramble,
                           long N, uint64_t seed)
{
    struct keygen g;
    struct cht_rng r;
    struct fit f = { 0 };
    must_init(&g, KEYGEN_ZIPF, theta_sample, scramble, n, seed);
    cht_rng_seed(&r, seed, 0);

    uint64_t *inv = NULL;
    if (scramble) {
        inv = xcalloc(n + 1, sizeof *inv);
        for (uint64_t k = 1; k <= n; k++)
            inv[keygen_scramble(&g, k)] = k;
    }
    long *cnt = xcalloc(n + 1, sizeof *cnt);
    for (long i = 0; i < N; i++) {
        cht_key_t k = keygen_next(&g, &r);
        if (k < 1 || k > n) {
            f.outside++;
            continue;
        }
        cnt[inv ? inv[k] : k]++;
    }

    /* Normalizer once (keygen_zipf_pmf is O(n) per call). */
    double p1 = keygen_zipf_pmf(n, theta_test, 1);
    double eacc = 0, oacc = 0, elast = 0, olast = 0, erest = 0, orest = 0;
    int bins = 0;
    for (uint64_t k = 1; k <= n; k++) {
        double e = N * p1 * exp(-theta_test * log((double)k));
        if (k <= HEAD)
            f.chi_head += (cnt[k] - e) * (cnt[k] - e) / e;
        else {
            erest += e;
            orest += cnt[k];
        }
        eacc += e;
        oacc += cnt[k];
        if (eacc >= 5 || k == n) {
            if (eacc < 5 && bins > 0) {   /* a short last bin joins the previous one */
                f.chi -= (olast - elast) * (olast - elast) / elast;
                eacc += elast;
                oacc += olast;
                bins--;
            }
            f.chi += (oacc - eacc) * (oacc - eacc) / eacc;
            elast = eacc;
            olast = oacc;
            bins++;
            eacc = oacc = 0;
        }
    }
    if (erest > 0)
        f.chi_head += (orest - erest) * (orest - erest) / erest;
    free(cnt);
    free(inv);
    f.df = bins - 1;
    f.crit = chi2_crit_001(f.df);
    f.df_head = n > HEAD ? HEAD : (int)n - 1;
    f.crit_head = chi2_crit_001(f.df_head);
    return f;
}

static void test_zipf_fit(void)
{
    const long N = 1000000;
    const uint64_t n = 1000;
    /* theta: the required 0.5, 0.99, 1.0, 1.22, plus the numerically delicate
     * neighbourhood of 1 (series branch of the helpers) and the extremes. */
    const double thetas[] = { 0.5, 0.99, 1.0, 1.22, 1.0 - 1e-9, 1.0 + 1e-6, 0.01, 3.0 };
    for (size_t i = 0; i < sizeof thetas / sizeof thetas[0]; i++) {
        struct fit f = zipf_fit(n, thetas[i], thetas[i], false, N, 100 + i);
        char name[64];
        snprintf(name, sizeof name, "zipf:%.10g n=1000 chi-square", thetas[i]);
        check(f.outside == 0 && f.chi < f.crit && f.chi_head < f.crit_head, name,
              "all ranks: chi2 = %.1f %s %.1f (df %d); ranks 1..10+rest: %.1f %s %.1f (df %d); "
              "alpha 0.001; %ld outside", f.chi, lt(f.chi, f.crit), f.crit, f.df,
              f.chi_head, lt(f.chi_head, f.crit_head), f.crit_head, f.df_head, f.outside);
    }

    /* Power: a sample of one theta must FAIL the same test against a nearby
     * wrong theta. */
    const double pairs[][2] = { { 0.99, 0.90 }, { 1.22, 1.15 }, { 1.0, 0.97 } };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct fit f = zipf_fit(n, pairs[i][0], pairs[i][1], false, N, 200 + i);
        char name[64];
        snprintf(name, sizeof name, "zipf power: %g tested as %g", pairs[i][0], pairs[i][1]);
        check(f.chi >= f.crit && f.chi_head >= f.crit_head, name,
              "chi2 = %.1f %s %.1f (df %d), head %.1f %s %.1f: wrong theta must be rejected",
              f.chi, lt(f.chi, f.crit), f.crit, f.df, f.chi_head, lt(f.chi_head, f.crit_head), f.crit_head);
    }

    /* Scrambled keys, mapped back to ranks, still follow the pmf. */
    {
        struct fit f = zipf_fit(n, 0.99, 0.99, true, N, 300);
        check(f.outside == 0 && f.chi < f.crit && f.chi_head < f.crit_head,
              "zipf:0.99,scramble n=1000 chi-square",
              "chi2 = %.1f %s %.1f (df %d); head %.1f %s %.1f; %ld outside", f.chi, lt(f.chi, f.crit),
              f.crit, f.df, f.chi_head, lt(f.chi_head, f.crit_head), f.crit_head, f.outside);
    }
    /* Scrambling moves the hot key away from 1. */
    {
        struct keygen g;
        struct cht_rng r;
        must_init(&g, KEYGEN_ZIPF, 0.99, true, 1000000, 5);
        cht_rng_seed(&r, 5, 0);
        long hot = 0, one = 0;
        uint64_t s1 = keygen_scramble(&g, 1);
        for (int i = 0; i < 100000; i++) {
            cht_key_t k = keygen_next(&g, &r);
            hot += k == s1;
            one += k == 1;
        }
        double p = keygen_zipf_pmf(1000000, 0.99, 1);
        check(s1 != 1 && fabs(hot / 1e5 - p) < 5 * sqrt(p * (1 - p) / 1e5),
              "zipf scramble: hot key is scramble(1)", "scramble(1) = %llu, freq %.4f (pmf %.4f), key 1 freq %.5f",
              (unsigned long long)s1, hot / 1e5, p, one / 1e5);
    }
}

/* ---------------- zipf on huge ranges ---------------- */

static void test_zipf_huge(void)
{
    const long N = 1000000;
    const uint64_t n = 1ull << 40;
    const double thetas[] = { 0.99, 1.0, 1.22 };
    for (size_t i = 0; i < 3; i++) {
        for (int scr = 0; scr <= 1; scr++) {
            struct keygen g;
            struct cht_rng r;
            must_init(&g, KEYGEN_ZIPF, thetas[i], scr, n, 11 + i);
            cht_rng_seed(&r, 11 + i, 2 + scr);
            uint64_t k1 = scr ? keygen_scramble(&g, 1) : 1;
            uint64_t k2 = scr ? keygen_scramble(&g, 2) : 2;
            long outside = 0, c1 = 0, c2 = 0;
            for (long j = 0; j < N; j++) {
                cht_key_t k = keygen_next(&g, &r);
                outside += k < 1 || k > n;
                c1 += k == k1;
                c2 += k == k2;
            }
            double p1 = keygen_zipf_pmf(n, thetas[i], 1), p2 = keygen_zipf_pmf(n, thetas[i], 2);
            double s1 = sqrt(p1 * (1 - p1) / N), s2 = sqrt(p2 * (1 - p2) / N);
            char name[64];
            snprintf(name, sizeof name, "zipf:%g%s n=2^40 rank 1,2", thetas[i], scr ? ",scramble" : "");
            check(outside == 0 && fabs(c1 / (double)N - p1) < 5 * s1 && fabs(c2 / (double)N - p2) < 5 * s2,
                  name, "%ld outside; rank1 %.5f vs pmf %.5f, rank2 %.5f vs %.5f (5 sigma %.5f)",
                  outside, c1 / (double)N, p1, c2 / (double)N, p2, 5 * s1);
        }
    }

    /* Range 2^62 with theta < 1: most mass lies past 2^53, where ranks are
     * dithered below the double's resolution. Check range, the coarse CDF,
     * and that odd keys occur (without dithering every key past 2^53 would be
     * even). P(K <= m) = H(m)/H(n) = pmf(n,.,1) / pmf(m,.,1). */
    {
        struct keygen g;
        struct cht_rng r;
        const uint64_t big = CHT_KEY_MAX, m = 1ull << 60;
        must_init(&g, KEYGEN_ZIPF, 0.5, false, big, 21);
        cht_rng_seed(&r, 21, 0);
        long outside = 0, below = 0, odd = 0, past53 = 0, odd53 = 0;
        const long M = 200000;
        for (long j = 0; j < M; j++) {
            cht_key_t k = keygen_next(&g, &r);
            outside += k < 1 || k > big;
            below += k <= m;
            odd += k & 1;
            if (k > (1ull << 54)) {
                past53++;
                odd53 += k & 1;
            }
        }
        double pc = keygen_zipf_pmf(big, 0.5, 1) / keygen_zipf_pmf(m, 0.5, 1);
        double sc = sqrt(pc * (1 - pc) / M);
        check(outside == 0 && fabs(below / (double)M - pc) < 5 * sc, "zipf:0.5 n=2^62 range and CDF",
              "%ld outside; P(K<=2^60) %.4f vs %.4f (5 sigma %.4f)", outside, below / (double)M, pc, 5 * sc);
        double fo = past53 ? odd53 / (double)past53 : 0;
        check(past53 > M / 2 && fabs(fo - 0.5) < 5 * 0.5 / sqrt((double)past53),
              "zipf:0.5 n=2^62 low bits dithered", "%ld draws > 2^54, odd fraction %.4f", past53, fo);

        must_init(&g, KEYGEN_ZIPF, 1.22, true, big, 22);
        outside = 0;
        for (long j = 0; j < M; j++) {
            cht_key_t k = keygen_next(&g, &r);
            outside += k < 1 || k > big;
        }
        check(outside == 0, "zipf:1.22,scramble n=2^62 in range", "%ld outside", outside);
    }

    /* Tiny ranges. */
    {
        struct keygen g;
        struct cht_rng r;
        cht_rng_seed(&r, 3, 0);
        long bad = 0;
        for (uint64_t n2 = 1; n2 <= 3; n2++)
            for (int scr = 0; scr <= 1; scr++) {
                must_init(&g, KEYGEN_ZIPF, 1.0, scr, n2, 3);
                for (int j = 0; j < 10000; j++) {
                    cht_key_t k = keygen_next(&g, &r);
                    bad += k < 1 || k > n2;
                }
            }
        check(bad == 0, "zipf n=1,2,3 in range", "%ld outside", bad);
    }

    /* Extreme exponents: no NaN/inf leaks into keys. theta 50 and 1e6 put
     * (essentially) all mass on rank 1; theta 1e-6 is nearly uniform. */
    {
        const double th[] = { 1e-6, 50, 1e6 };
        struct keygen g;
        struct cht_rng r;
        cht_rng_seed(&r, 4, 0);
        long bad = 0, rank1[3] = { 0 }, upper[3] = { 0 };
        for (int i = 0; i < 3; i++) {
            must_init(&g, KEYGEN_ZIPF, th[i], false, 1000, 4);
            for (int j = 0; j < 100000; j++) {
                cht_key_t k = keygen_next(&g, &r);
                bad += k < 1 || k > 1000;
                rank1[i] += k == 1;
                upper[i] += k > 500;
            }
        }
        check(bad == 0 && rank1[1] == 100000 && rank1[2] == 100000 &&
              fabs(upper[0] / 1e5 - 0.5) < 5 * 0.5 / sqrt(1e5), "zipf extreme theta",
              "%ld outside; theta 50, 1e6: %ld, %ld of 100000 are rank 1; theta 1e-6: %.4f above 500",
              bad, rank1[1], rank1[2], upper[0] / 1e5);
    }
}

/* ---------------- pmf ---------------- */

static void test_pmf(void)
{
    const double thetas[] = { 0.5, 0.99, 1.0, 1.22 };
    double worst_sum = 0, worst_em = 0;
    for (size_t i = 0; i < 4; i++) {
        double q = thetas[i], sum = 0;
        double p1 = keygen_zipf_pmf(1000, q, 1);
        for (uint64_t k = 1; k <= 1000; k++)
            sum += p1 * pow((double)k, -q);
        worst_sum = fmax(worst_sum, fabs(sum - 1));
        /* n = 2^20 is summed directly, 2^20 + 1 by Euler-Maclaurin: they must agree. */
        double hd = 1 / keygen_zipf_pmf(1u << 20, q, 1) + pow((double)((1u << 20) + 1), -q);
        double he = 1 / keygen_zipf_pmf((1u << 20) + 1, q, 1);
        worst_em = fmax(worst_em, fabs(he / hd - 1));
    }
    check(worst_sum < 1e-12, "pmf sums to 1 (n=1000)", "worst |sum-1| = %.2e", worst_sum);
    check(worst_em < 1e-12, "pmf Euler-Maclaurin tail matches direct", "worst rel diff = %.2e", worst_em);
    bool ok = keygen_zipf_pmf(10, 1, 0) == 0 && keygen_zipf_pmf(10, 1, 11) == 0 &&
              keygen_zipf_pmf(10, 0, 1) == 0 && keygen_zipf_pmf(1, 2, 1) == 1 &&
              fabs(keygen_zipf_pmf(2, 1, 1) - 2.0 / 3.0) < 1e-15;
    check(ok, "pmf edge cases", "k=0,k>n,theta=0 -> 0; n=1 -> 1; n=2,q=1 -> 2/3");
}

/* ---------------- scramble ---------------- */

/* --keys sparse: a bijection of [1, 2^61]: distinct images of 1..2^20 and of
 * the top 2^16 keys below 2^61, all inside [1, 2^61], few fixed points, and
 * their low bits no longer dense (the point of the mapping) */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_sparse(void)
{
    const uint64_t n = (1u << 20), top = (1u << 16), max = 1ull << KEYGEN_SPARSE_BITS;
    uint64_t *v = xcalloc(n + top, sizeof *v);
    long outside = 0, fixed = 0, low_hits = 0;
    for (uint64_t k = 1; k <= n + top; k++) {
        uint64_t key = k <= n ? k : max - (k - n - 1);
        uint64_t y = keygen_sparse(key);
        outside += y < 1 || y > max;
        fixed += y == key;
        low_hits += k <= n && y <= n;     /* dense keys that stay in [1, n]: ~ n * n / 2^61 = 0 */
        v[k - 1] = y;
    }
    qsort(v, n + top, sizeof *v, cmp_u64);
    long dup = 0;
    for (uint64_t i = 1; i < n + top; i++)
        dup += v[i] == v[i - 1];
    free(v);
    check(outside == 0 && dup == 0 && fixed <= 2 && low_hits == 0, "sparse bijection",
          "%ld outside [1, 2^61], %ld duplicates, %ld fixed points, %ld keys of [1, 2^20] left there", outside, dup,
          fixed, low_hits);
    /* the low 10 bits of the images of 1..2^16: uniform (chi-square, 1023 df) */
    uint32_t cnt[1024] = { 0 };
    for (uint64_t k = 1; k <= (1u << 16); k++)
        cnt[keygen_sparse(k) & 1023]++;
    double chi = 0;
    for (unsigned b = 0; b < 1024; b++)
        chi += (cnt[b] - 64.0) * (cnt[b] - 64.0) / 64.0;
    check(chi < chi2_crit_001(1023) && chi > 1023 - 6 * 45.2, "sparse low bits",
          "chi2 %.0f over 1023 df: the low bits of mapped dense keys look random", chi);
}

static void test_scramble(void)
{
    const uint64_t ranges[] = { 1, 2, 3, 4, 5, 7, 1000, 1024, 1025, 12345, 65536, (1u << 20) + 7 };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        uint64_t n = ranges[i];
        struct keygen g;
        must_init(&g, KEYGEN_ZIPF, 0.99, true, n, 77 + i);
        unsigned char *seen = xcalloc(n + 1, 1);
        long outside = 0, dup = 0, fixed = 0;
        for (uint64_t k = 1; k <= n; k++) {
            uint64_t y = keygen_scramble(&g, k);
            if (y < 1 || y > n) {
                outside++;
                continue;
            }
            dup += seen[y];
            seen[y] = 1;
            fixed += y == k;
        }
        free(seen);
        char name[64];
        snprintf(name, sizeof name, "scramble bijection r=%llu", (unsigned long long)n);
        /* A random permutation has ~1 fixed point (Poisson(1)): > 10 means no mixing. */
        check(outside == 0 && dup == 0 && (n < 100 || fixed <= 10), name,
              "%ld outside, %ld duplicates, %ld fixed points", outside, dup, fixed);
    }

    /* The hot ranks are spread: ranks 1..1000 land in the lower half ~half the time. */
    {
        struct keygen g;
        const uint64_t n = (1u << 20) + 7;
        must_init(&g, KEYGEN_ZIPF, 0.99, true, n, 9);
        long lower = 0, adjacent = 0;
        uint64_t prev = 0;
        for (uint64_t k = 1; k <= 1000; k++) {
            uint64_t y = keygen_scramble(&g, k);
            lower += y <= n / 2;
            adjacent += prev && (y == prev + 1 || y + 1 == prev);
            prev = y;
        }
        check(fabs(lower - 500.0) < 5 * sqrt(250.0) && adjacent < 5, "scramble spreads hot ranks",
              "%ld/1000 of ranks 1..1000 in lower half, %ld adjacent pairs", lower, adjacent);
    }

    /* Keyed by seed: same seed -> same permutation, other seed -> other one. */
    {
        struct keygen a, b, c;
        must_init(&a, KEYGEN_ZIPF, 1.0, true, 12345, 1);
        must_init(&b, KEYGEN_ZIPF, 1.0, true, 12345, 1);
        must_init(&c, KEYGEN_ZIPF, 1.0, true, 12345, 2);
        long same_ab = 0, same_ac = 0;
        for (uint64_t k = 1; k <= 12345; k++) {
            same_ab += keygen_scramble(&a, k) == keygen_scramble(&b, k);
            same_ac += keygen_scramble(&a, k) == keygen_scramble(&c, k);
        }
        check(same_ab == 12345 && same_ac < 20, "scramble keyed by seed",
              "seed 1 vs 1: %ld/12345 equal; seed 1 vs 2: %ld equal", same_ab, same_ac);
    }
}

/* ---------------- reproducibility of key streams ---------------- */

static void test_repro(void)
{
    const char *dists[] = { "uniform", "zipf:0.99", "zipf:1.22,scramble" };
    for (int d = 0; d < 3; d++) {
        struct keygen_spec s;
        char err[256];
        if (keygen_parse(dists[d], &s, err, sizeof err) != 0) {
            check(false, "repro parse", "%s", err);
            continue;
        }
        struct keygen g1, g2;
        keygen_init(&g1, &s, 1000000, 99, err, sizeof err);
        keygen_init(&g2, &s, 1000000, 99, err, sizeof err);
        struct cht_rng a, b, c;
        cht_rng_seed(&a, 99, 5);
        cht_rng_seed(&b, 99, 5);
        cht_rng_seed(&c, 99, 6);
        long same = 0, same_other = 0;
        for (int i = 0; i < 10000; i++) {
            cht_key_t x = keygen_next(&g1, &a), y = keygen_next(&g2, &b), z = keygen_next(&g1, &c);
            same += x == y;
            same_other += x == z;
        }
        /* With zipf, keys collide across streams as often as the hot keys are hot. */
        double p_coll = 0;
        if (s.dist == KEYGEN_UNIFORM)
            p_coll = 1e-6;
        else {
            double p1 = keygen_zipf_pmf(1000000, s.theta, 1);
            for (uint64_t k = 1; k <= 1000; k++) {
                double p = p1 * pow((double)k, -s.theta);
                p_coll += p * p;
            }
        }
        char name[64];
        snprintf(name, sizeof name, "repro %s", dists[d]);
        check(same == 10000 && same_other < 10000 * p_coll * 1.5 + 20, name,
              "same seed+stream: %ld/10000 equal; stream 5 vs 6: %ld equal", same, same_other);
    }
}

/* ---------------- parsing ---------------- */

static void test_parse(void)
{
    struct good { const char *s; enum keygen_dist d; double theta; bool scr; const char *canon; };
    const struct good goods[] = {
        { "uniform", KEYGEN_UNIFORM, 0, false, "uniform" },
        { "zipf:0.99", KEYGEN_ZIPF, 0.99, false, "zipf:0.99" },
        { "zipf:1", KEYGEN_ZIPF, 1.0, false, "zipf:1" },
        { "zipf:1.0", KEYGEN_ZIPF, 1.0, false, "zipf:1" },
        { "zipf:1.22", KEYGEN_ZIPF, 1.22, false, "zipf:1.22" },
        { "zipf:0.99,scramble", KEYGEN_ZIPF, 0.99, true, "zipf:0.99,scramble" },
        { "zipf:2e-3", KEYGEN_ZIPF, 0.002, false, "zipf:0.002" },
        { "zipf:.5,scramble", KEYGEN_ZIPF, 0.5, true, "zipf:0.5,scramble" },
    };
    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        struct keygen_spec s;
        char err[256] = "", buf[64] = "";
        int rc = keygen_parse(goods[i].s, &s, err, sizeof err);
        if (rc == 0)
            keygen_format(&s, buf, sizeof buf);
        char name[64];
        snprintf(name, sizeof name, "parse '%s'", goods[i].s);
        check(rc == 0 && s.dist == goods[i].d && (s.dist == KEYGEN_UNIFORM || s.theta == goods[i].theta) &&
              (s.dist == KEYGEN_UNIFORM || s.scramble == goods[i].scr) && strcmp(buf, goods[i].canon) == 0,
              name, "rc %d, formats as '%s'%s%s", rc, buf, *err ? ", err: " : "", err);
    }

    /* Canonical form round-trips exactly even for ugly doubles. */
    {
        struct keygen_spec s = { .dist = KEYGEN_ZIPF, .theta = 0.1 + 0.2, .scramble = true }, t;
        char buf[64];
        keygen_format(&s, buf, sizeof buf);
        int rc = keygen_parse(buf, &t, NULL, 0);
        check(rc == 0 && t.theta == s.theta && t.scramble, "format/parse round trip",
              "0.1+0.2 -> '%s'", buf);
    }

    const char *bads[] = { "zipf:0", "zipf:-1", "zipf:abc", "zipf", "foo", "zipf:0.9,bogus",
                           "", "zipf:", "zipf:0.9,", "zipf:inf", "zipf:nan", "zipf:1e999",
                           "uniform,scramble", "zipf:0.9x", "zipf: 0.9", "zipfx", "zipf:,scramble",
                           "Uniform", "zipf:0.9,scramble,scramble" };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        struct keygen_spec s;
        char err[256] = "";
        int rc = keygen_parse(bads[i], &s, err, sizeof err);
        char name[64];
        snprintf(name, sizeof name, "parse rejects '%s'", bads[i]);
        check(rc == -1 && strncmp(err, "--dist:", 7) == 0 && !strchr(err, '\n'), name, "rc %d, \"%s\"", rc, err);
    }
    {
        struct keygen_spec s;
        check(keygen_parse(NULL, &s, NULL, 0) == -1, "parse NULL, no err buffer", "rejected");
    }

    /* keygen_init validation. */
    {
        struct keygen g;
        struct keygen_spec u = { .dist = KEYGEN_UNIFORM }, z0 = { .dist = KEYGEN_ZIPF };
        char e1[256] = "", e2[256] = "", e3[256] = "";
        int r1 = keygen_init(&g, &u, 0, 1, e1, sizeof e1);
        int r2 = keygen_init(&g, &u, CHT_KEY_MAX + 1, 1, e2, sizeof e2);
        int r3 = keygen_init(&g, &z0, 100, 1, e3, sizeof e3);
        int r4 = keygen_init(&g, &u, CHT_KEY_MAX, 1, NULL, 0);
        check(r1 == -1 && r2 == -1 && r3 == -1 && r4 == 0 && strncmp(e1, "--range:", 8) == 0 &&
              strncmp(e2, "--range:", 8) == 0 && strncmp(e3, "--dist:", 7) == 0,
              "keygen_init validates", "\"%s\" / \"%s\"", e2, e3);
    }
}

/* ---------------- cost (informational) ---------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);   /* robust to a busy machine */
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(const char *dist, long n)
{
    struct keygen_spec s;
    struct keygen g;
    struct cht_rng r;
    keygen_parse(dist, &s, NULL, 0);
    keygen_init(&g, &s, 1ull << 30, 1, NULL, 0);
    cht_rng_seed(&r, 1, 0);
    uint64_t acc = 0;
    for (long i = 0; i < n / 10; i++)     /* warm up */
        acc += keygen_next(&g, &r);
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        acc += keygen_next(&g, &r);
    double t1 = now_ns();
    printf("INFO cost %-22s %6.2f ns/draw (thread CPU time, range 2^30, %ld draws, checksum %llx)\n",
           dist, (t1 - t0) / n, n, (unsigned long long)(acc & 0xffff));
}

/* Hotspot (Chen et al., HotRing, FAST 2020, fig. 14): the hot fraction within 1% of ops=PCT, hot keys
 * uniform over exactly the hot set (chi-square over its keys), cold keys
 * never in it, the set wrapping around the range when it moves; and a
 * malformed spec refused. */
static void test_hotspot(void)
{
    struct keygen_spec sp;
    char err[256];
    check(keygen_parse("hotspot:keys=5,ops=80,shift=100", &sp, err, sizeof err) == 0 && sp.dist == KEYGEN_HOTSPOT &&
              sp.hot_keys == 5 && sp.hot_ops == 80 && sp.shift_ms == 100, "hotspot", "hotspot spec parses");
    static const char *bad[] = { "hotspot", "hotspot:", "hotspot:keys=5", "hotspot:keys=0,ops=50",
                                 "hotspot:keys=5,ops=100", "hotspot:keys=5,ops=50,shift=0", "hotspot:keys=x,ops=5",
                                 "hotspot:keys=5,ops=50,foo=1", "hotspot:keys=5,ops=50,shift=-3" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        check(keygen_parse(bad[i], &sp, err, sizeof err) != 0 && strncmp(err, "--dist", 6) == 0, "hotspot",
              "hotspot spec '%s' refused naming --dist", bad[i]);
    }
    char buf[128];
    keygen_parse("hotspot:keys=5,ops=80,shift=100", &sp, err, sizeof err);
    keygen_format(&sp, buf, sizeof buf);
    check(strcmp(buf, "hotspot:keys=5,ops=80,shift=100") == 0, "hotspot", "formats back (%s)", buf);

    const uint64_t range = 100000, n = 4000000;
    struct keygen g;
    check(keygen_parse("hotspot:keys=2,ops=90", &sp, err, sizeof err) == 0 &&
              keygen_init(&g, &sp, range, 7, err, sizeof err) == 0 && g.hot_n == 2000, "hotspot", "hotspot keys=2%% of 100000 is 2000 hot keys");
    uint64_t *hits = calloc(g.hot_n, sizeof *hits), hot = 0, misplaced = 0, base = range - 500;  /* wraps */
    struct cht_rng r;
    cht_rng_seed(&r, 11, 0);
    for (uint64_t i = 0; i < n; i++) {
        bool h;
        cht_key_t k = keygen_next_hotspot(&g, &r, base, &h);
        uint64_t pos = (k - 1 + range - base) % range;   /* position relative to the hot set's start */
        if (h) {
            hot++;
            if (pos < g.hot_n)
                hits[pos]++;
            else
                misplaced++;
        } else if (pos < g.hot_n || k < 1 || k > range) {
            misplaced++;
        }
    }
    double frac = (double)hot / (double)n;
    check(fabs(frac - 0.90) < 0.01 * 0.90, "hotspot", "hot fraction %.4f within 1%% of 0.90", frac);
    check(misplaced == 0, "hotspot", "hot draws fall in the (wrapped) hot set, cold ones outside it (%llu misplaced)",
          (unsigned long long)misplaced);
    double expect = (double)hot / (double)g.hot_n, chi = 0;
    for (uint64_t i = 0; i < g.hot_n; i++)
        chi += ((double)hits[i] - expect) * ((double)hits[i] - expect) / expect;
    /* df = 1999: mean 1999, sd ~63; 6 sd */
    check(chi < 1999 + 6 * 63.2, "hotspot", "hot keys uniform over the hot set (chi2 %.0f, df 1999)", chi);
    free(hits);
}

/* ---------------- op sources (opsource.h) ---------------- */

static const char *const op_names[] = { "get", "insert", "remove", "update", "rmw" };

/* The die maps to the mix exactly: -u's insert/remove/get bands and each YCSB
 * workload's read band then its other op; an unknown workload is refused. */
static void test_op_mix(void)
{
    struct op_mix m = op_mix_basic(5, 7);
    unsigned n[5] = { 0 };
    bool order = true;
    for (unsigned c = 0; c < 100; c++) {
        enum op_kind k = op_mix_pick(&m, c);
        n[k]++;
        order &= k == (c < 5 ? OP_INSERT : c < 12 ? OP_REMOVE : OP_GET);
    }
    check(order && n[OP_INSERT] == 5 && n[OP_REMOVE] == 7 && n[OP_GET] == 88 && !n[OP_UPDATE] && !n[OP_RMW],
          "op mix -u: bands", "insert %u remove %u get %u", n[OP_INSERT], n[OP_REMOVE], n[OP_GET]);
    static const struct { const char *name; unsigned reads; enum op_kind other; } want[] = {
        { "ycsb-a", 50, OP_UPDATE }, { "ycsb-b", 95, OP_UPDATE }, { "ycsb-c", 100, OP_UPDATE },
        { "ycsb-d", 95, OP_INSERT }, { "ycsb-f", 50, OP_RMW },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool known = op_mix_ycsb(want[i].name, &m) == 0, exact = known;
        for (unsigned c = 0; c < 100; c++)
            exact &= op_mix_pick(&m, c) == (c < want[i].reads ? OP_GET : want[i].other);
        char name[48];
        snprintf(name, sizeof name, "op mix %s: bands", want[i].name);
        check(exact, name, "reads c < %u, then %s", want[i].reads, op_names[want[i].other]);
    }
    check(op_mix_ycsb("ycsb-e", &m) == -1 && op_mix_ycsb("", &m) == -1, "op mix: unknown workload refused",
          "ycsb-e (scans) and the empty name");
    /* op_mix_reads_only (the pipeline's clash test is skipped on it) against every die: each -u split,
     * each YCSB workload, and mixes whose bands are empty or cover all 100 */
    unsigned wrong = 0, ro = 0, mixes = 0;
    struct op_mix all[5200 + 8];
    for (unsigned ins = 0; ins <= 100; ins++)
        for (unsigned rem = 0; ins + rem <= 100; rem++)
            all[mixes++] = op_mix_basic(ins, rem);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        op_mix_ycsb(want[i].name, &all[mixes++]);
    all[mixes++] = (struct op_mix){ 100, 100, OP_UPDATE, OP_GET, OP_GET };
    all[mixes++] = (struct op_mix){ 0, 100, OP_UPDATE, OP_GET, OP_REMOVE };
    all[mixes++] = (struct op_mix){ 40, 40, OP_GET, OP_INSERT, OP_GET };
    for (unsigned i = 0; i < mixes; i++) {
        bool gets = true;
        for (unsigned c = 0; c < 100; c++)
            gets &= op_mix_pick(&all[i], c) == OP_GET;
        wrong += op_mix_reads_only(&all[i]) != gets;
        ro += gets;
    }
    check(wrong == 0 && ro == 4, "op mix: reads only exactly when every die picks a get", "%u of %u mixes "
          "wrong; %u reads-only (-u 0, ycsb-c, two hand-made)", wrong, mixes, ro);
}

/* Each YCSB workload's drawn stream (scrambled Zipf keys, a fixed seed): every
 * op share within 5 binomial sd of the mix, the ops outside it exactly 0, and
 * every key in [1, range]. */
static void test_ycsb_streams(void)
{
    const uint64_t n = 200000, range = 100000;
    static const char *const names[] = { "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-f" };
    struct keygen g;
    must_init(&g, KEYGEN_ZIPF, 0.99, true, range, 3);
    uint64_t *buf = xcalloc(n, sizeof *buf);
    for (size_t w = 0; w < sizeof names / sizeof names[0]; w++) {
        struct op_mix m;
        op_mix_ycsb(names[w], &m);
        struct opsrc src;
        opsrc_init(&src, &g, &m, 42, w, NULL, 0, NULL, NULL, NULL);
        static const int no = 0;
        uint64_t got = opsrc_fill(&src, OPSRC_KEYGEN, buf, n, &no), cnt[5] = { 0 }, bad_key = 0;
        for (uint64_t j = 0; j < n; j++) {
            cnt[buf[j] >> OPBUF_OP_SHIFT]++;
            uint64_t k = (buf[j] & OPBUF_KEY_MASK) + 1;
            bad_key += k < 1 || k > range;
        }
        double p = m.below1 / 100.0, sd = sqrt(n * p * (1 - p)), reads = (double)cnt[OP_GET];
        uint64_t others = 0;
        for (int k = 0; k < 5; k++)
            if (k != OP_GET && k != (int)m.second)
                others += cnt[k];
        char name[48];
        snprintf(name, sizeof name, "op stream %s: mix", names[w]);
        check(got == n && fabs(reads - n * p) <= 5 * sd && cnt[OP_GET] + cnt[m.second] == n &&
              !others && !bad_key, name, "gets %llu (expect %.0f +- %.0f), %s %llu, others %llu, keys out %llu",
              (unsigned long long)cnt[OP_GET], n * p, 5 * sd, op_names[m.second],
              (unsigned long long)cnt[m.second], (unsigned long long)others, (unsigned long long)bad_key);
    }
    free(buf);
}

/* A buffer filled by a drawn kind, read back, is the stream the same kind
 * draws in the loop with the same seed, op for op (uniform with -u; Zipf;
 * sparse keys); a power-of-two buffer cycles; a trace share (length all
 * ones) is read once, in order. */
static void test_buffered_equals_drawn(void)
{
    const uint64_t n = 4096;
    uint64_t *buf = xcalloc(n, sizeof *buf);
    static const struct { unsigned kind; enum keygen_dist d; const char *name; } cases[] = {
        { OPSRC_UNIFORM, KEYGEN_UNIFORM, "uniform" },
        { OPSRC_KEYGEN, KEYGEN_ZIPF, "zipf" },
        { OPSRC_KEYGEN | OPSRC_MAP, KEYGEN_ZIPF, "zipf, sparse keys" },
        { OPSRC_UNIFORM | OPSRC_MAP, KEYGEN_UNIFORM, "uniform, sparse keys" },
    };
    static const int no = 0;
    struct op_mix m = op_mix_basic(20, 30);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct keygen g;
        must_init(&g, cases[i].d, 0.99, false, 3000, 1);
        struct opsrc fill, drawn, read;
        opsrc_init(&fill, &g, &m, 9, 2, NULL, 0, NULL, NULL, NULL);
        opsrc_init(&drawn, &g, &m, 9, 2, NULL, 0, NULL, NULL, NULL);
        opsrc_init(&read, &g, &m, 1234, 5, buf, n, NULL, NULL, NULL);   /* a buffer: its seed is not used */
        opsrc_fill(&fill, cases[i].kind, buf, n, &no);
        uint64_t diff = 0, kinds[5] = { 0 };
        for (uint64_t j = 0; j < n; j++) {
            struct op a, b = opsrc_next(&read, OPSRC_BUFFER);
            switch (cases[i].kind) {
            case OPSRC_UNIFORM: a = opsrc_next(&drawn, OPSRC_UNIFORM); break;
            case OPSRC_KEYGEN: a = opsrc_next(&drawn, OPSRC_KEYGEN); break;
            case OPSRC_KEYGEN | OPSRC_MAP: a = opsrc_next(&drawn, OPSRC_KEYGEN | OPSRC_MAP); break;
            default: a = opsrc_next(&drawn, OPSRC_UNIFORM | OPSRC_MAP); break;
            }
            diff += a.kind != b.kind || a.key != b.key;
            kinds[b.kind]++;
        }
        struct op again = opsrc_next(&read, OPSRC_BUFFER);   /* entry n: the buffer's first again */
        bool cycles = again.key == (buf[0] & OPBUF_KEY_MASK) + 1 && again.kind == buf[0] >> OPBUF_OP_SHIFT;
        char name[64];
        snprintf(name, sizeof name, "op buffer = drawn: %s", cases[i].name);
        check(!diff && cycles && kinds[OP_INSERT] && kinds[OP_REMOVE] && kinds[OP_GET], name,
              "%llu of %llu ops differ; cycles %d", (unsigned long long)diff, (unsigned long long)n, cycles);
    }
    uint64_t trace[3] = { opbuf_entry(OP_UPDATE, 7), opbuf_entry(OP_GET, 1ull << 61), opbuf_entry(OP_REMOVE, 1) };
    struct opsrc t;
    struct op_mix none = op_mix_basic(0, 0);
    opsrc_init(&t, NULL, &none, 0, 0, trace, UINT64_MAX, NULL, NULL, NULL);
    struct op a = opsrc_next(&t, OPSRC_BUFFER), b = opsrc_next(&t, OPSRC_BUFFER), c = opsrc_next(&t, OPSRC_BUFFER);
    check(a.kind == OP_UPDATE && a.key == 7 && b.kind == OP_GET && b.key == 1ull << 61 && c.kind == OP_REMOVE &&
          c.key == 1 && t.pos == 3, "op buffer: a trace share", "update 7, get 2^61, remove 1, in order");
    static const int stop = 1;
    struct opsrc f;
    opsrc_init(&f, NULL, &m, 0, 0, NULL, 0, NULL, NULL, NULL);
    check(opsrc_fill(&f, OPSRC_UNIFORM, buf, n, &stop) == 0, "op buffer: fill stops when interrupted", "0 written");
    free(buf);
}

/* OPSRC_SHIFT: a buffer's first round is read as it is; in each later round
 * every write's key (opsrc_write_key) has one shift s in [0, r), the same
 * for all writes of the round: 1 + ((k - 1 + s) mod r) for the buffer's key
 * k; gets keep their keys, the op kinds are unchanged. Rounds draw their
 * shifts (not all 0, not all equal); without the flag every round's
 * writes keep their keys; r = 1 keeps key 1. */
static void test_buffer_shift_rounds(void)
{
    const uint64_t n = 1024, r = 3000, nrounds = 6;
    uint64_t *buf = xcalloc(n, sizeof *buf);
    static const int no = 0;
    struct op_mix m = op_mix_basic(25, 25);
    struct keygen g;
    must_init(&g, KEYGEN_UNIFORM, 0, false, r, 1);
    struct opsrc fill, read;
    struct opsrc_rounds rounds;
    opsrc_init(&fill, &g, &m, 9, 2, NULL, 0, NULL, NULL, NULL);
    opsrc_fill(&fill, OPSRC_UNIFORM, buf, n, &no);
    opsrc_init(&read, &g, &m, 77, 3, buf, n, NULL, NULL, &rounds);
    uint64_t bad = 0, gets_moved = 0, writes = 0, shift[6], distinct = 0;
    for (uint64_t p = 0; p < nrounds; p++) {
        shift[p] = UINT64_MAX;
        for (uint64_t j = 0; j < n; j++) {
            const unsigned kind = OPSRC_BUFFER | OPSRC_SHIFT;
            struct op o = opsrc_next(&read, kind);
            const uint64_t k = (buf[j] & OPBUF_KEY_MASK) + 1;
            bad += o.key != k || o.kind != (enum op_kind)(buf[j] >> OPBUF_OP_SHIFT);
            if (o.kind == OP_GET) {
                gets_moved += o.key != k;
                continue;
            }
            const uint64_t w = opsrc_write_key(&read, kind, o.key), s = (w + r - k) % r;
            writes++;
            if (shift[p] == UINT64_MAX)
                shift[p] = s;
            bad += w < 1 || w > r || s != shift[p];
        }
        bool fresh = true;
        for (uint64_t q = 0; q < p; q++)
            fresh &= shift[q] != shift[p];
        distinct += fresh;
    }
    check(!bad && !gets_moved && writes > n && shift[0] == 0 && distinct == nrounds && read.pos == n * nrounds,
          "op buffer: rounds shifted",
          "%llu of %llu ops off their key, kind or round's shift; %llu gets moved; round 0 shift %llu; "
          "%llu distinct shifts of %llu", (unsigned long long)bad, (unsigned long long)(n * nrounds),
          (unsigned long long)gets_moved, (unsigned long long)shift[0], (unsigned long long)distinct,
          (unsigned long long)nrounds);
    /* without the flag, every round's writes keep the buffer's keys */
    opsrc_init(&read, &g, &m, 77, 3, buf, n, NULL, NULL, &rounds);
    uint64_t kept = 0;
    for (uint64_t j = 0; j < 3 * n; j++) {
        struct op o = opsrc_next(&read, OPSRC_BUFFER);
        kept += opsrc_write_key(&read, OPSRC_BUFFER, o.key) == (buf[j % n] & OPBUF_KEY_MASK) + 1;
    }
    check(kept == 3 * n, "op buffer: no OPSRC_SHIFT, no shift", "%llu of %llu keys as in the buffer",
          (unsigned long long)kept, (unsigned long long)(3 * n));
    struct keygen one;
    must_init(&one, KEYGEN_UNIFORM, 0, false, 1, 1);
    for (uint64_t j = 0; j < 4; j++)
        buf[j] = opbuf_entry(OP_INSERT, 1);
    opsrc_init(&read, &one, &m, 5, 0, buf, 4, NULL, NULL, &rounds);
    uint64_t off = 0;
    for (uint64_t j = 0; j < 12; j++)
        off += opsrc_write_key(&read, OPSRC_BUFFER | OPSRC_SHIFT, opsrc_next(&read, OPSRC_BUFFER | OPSRC_SHIFT).key) != 1;
    check(!off, "op buffer: rounds shifted, r = 1", "%llu of 12 keys not 1", (unsigned long long)off);
    free(buf);
}

/* YCSB D: an insert claims the next new key; a read's rank r is the r-th
 * newest *acknowledged* key, never one claimed but not yet acknowledged. A
 * fixed sequence checks the arithmetic; then a stream of D ops whose inserts
 * complete out of order (up to 8 in flight, acknowledged in a random order)
 * checks every read against the set of keys in flight. */
static void test_ycsb_latest(void)
{
    struct ycsb_latest *y = aligned_alloc(CHT_CACHE_LINE, sizeof *y);
    if (!y)
        exit(2);
    ycsb_latest_init(y, 100);
    uint64_t script[] = { opbuf_entry(OP_INSERT, 1), opbuf_entry(OP_GET, 1), opbuf_entry(OP_GET, 5),
                          opbuf_entry(OP_GET, 200), opbuf_entry(OP_INSERT, 3), opbuf_entry(OP_INSERT, 9) };
    struct op_mix none = op_mix_basic(0, 0);
    struct opsrc s;
    opsrc_init(&s, NULL, &none, 0, 0, script, UINT64_MAX, NULL, y, NULL);
    const unsigned D = OPSRC_BUFFER | OPSRC_LATEST;
    struct op i1 = opsrc_next(&s, D), g1 = opsrc_next(&s, D), g5 = opsrc_next(&s, D), g200 = opsrc_next(&s, D);
    bool ok = i1.kind == OP_INSERT && i1.key == 101 && g1.key == 100 && g5.key == 96 && g200.key == 1;
    opsrc_done(&s, D, i1);
    struct op i2 = opsrc_next(&s, D), i3 = opsrc_next(&s, D);
    ok &= y->acked == 101 && i2.key == 102 && i3.key == 103;
    opsrc_done(&s, D, i3);                 /* 103 before 102: the mark waits for 102 */
    ok &= y->acked == 101 && ycsb_latest_key(y, 1) == 101;
    opsrc_done(&s, D, i2);
    ok &= y->acked == 103 && ycsb_latest_key(y, 1) == 103 && y->next == 103;
    check(ok, "ycsb-d: claim, acknowledge, read the latest", "new keys 101..103, acked %llu, next %llu",
          (unsigned long long)y->acked, (unsigned long long)y->next);

    struct keygen g;
    must_init(&g, KEYGEN_ZIPF, 0.99, false, 1000, 1);
    struct op_mix m;
    op_mix_ycsb("ycsb-d", &m);
    ycsb_latest_init(y, 1000);
    opsrc_init(&s, &g, &m, 17, 0, NULL, 0, NULL, y, NULL);
    struct cht_rng order;
    cht_rng_seed(&order, 5, 0);
    uint64_t flight[8], nflight = 0, reads = 0, inserts = 0, bad = 0;
    for (int j = 0; j < 200000; j++) {
        struct op op = opsrc_next(&s, OPSRC_KEYGEN | OPSRC_LATEST);
        if (op.kind == OP_INSERT) {
            inserts++;
            flight[nflight++] = op.key;
        } else {
            reads++;
            bool in_flight = false;
            for (uint64_t f = 0; f < nflight; f++)
                in_flight |= flight[f] == op.key;
            bad += in_flight || op.key < 1 || op.key > y->acked;
        }
        if (nflight == 8 || (nflight && cht_rng_next(&order) % 4 == 0)) {   /* one completes, any of them */
            uint64_t f = cht_rng_below(cht_rng_next(&order), nflight);
            opsrc_done(&s, OPSRC_KEYGEN | OPSRC_LATEST, (struct op){ OP_INSERT, flight[f] });
            flight[f] = flight[--nflight];
        }
    }
    while (nflight)
        ycsb_ack(y, flight[--nflight]);
    check(!bad && inserts > 0 && y->acked == 1000 + inserts && y->next == y->acked, "ycsb-d: reads see acked keys only",
          "%llu reads, %llu inserts (out of order), %llu reads of a key in flight or beyond the mark",
          (unsigned long long)reads, (unsigned long long)inserts, (unsigned long long)bad);
    free(y);
}

/* Two threads claiming and acknowledging at once: the mark ends at the last key claimed, none lost. */
static void *claim_ack_thread(void *arg)
{
    struct ycsb_latest *y = arg;
    for (int j = 0; j < 50000; j++) {
        uint64_t k = ycsb_claim(y);
        if (ycsb_latest_key(y, 1) >= k)      /* the mark never passes a key whose insert is not done */
            return (void *)1;
        ycsb_ack(y, k);
    }
    return NULL;
}

static void test_ycsb_latest_threads(void)
{
    struct ycsb_latest *y = aligned_alloc(CHT_CACHE_LINE, sizeof *y);
    if (!y)
        exit(2);
    ycsb_latest_init(y, 7);
    pthread_t th[2];
    void *r0 = NULL, *r1 = NULL;
    pthread_create(&th[0], NULL, claim_ack_thread, y);
    pthread_create(&th[1], NULL, claim_ack_thread, y);
    pthread_join(th[0], &r0);
    pthread_join(th[1], &r1);
    check(!r0 && !r1 && y->next == 7 + 100000 && y->acked == y->next, "ycsb-d: 2 threads claim and acknowledge",
          "next %llu, acked %llu (expect %d)", (unsigned long long)y->next, (unsigned long long)y->acked, 7 + 100000);
    free(y);
}

int main(void)
{
    test_rng();
    test_parse();
    test_pmf();
    test_uniform();
    test_zipf_fit();
    test_zipf_huge();
    test_scramble();
    test_sparse();
    test_repro();
    test_hotspot();
    test_op_mix();
    test_ycsb_streams();
    test_buffered_equals_drawn();
    test_buffer_shift_rounds();
    test_ycsb_latest();
    test_ycsb_latest_threads();

    /* informational (no check): a tenth of the draws gives the same ns/draw to ~2% */
    bench("uniform", 5000000);
    bench("zipf:0.99", 500000);
    bench("zipf:1.22", 500000);
    bench("zipf:0.99,scramble", 500000);

    if (failures) {
        fprintf(stderr, "test_keygen: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_keygen: all %d checks passed\n", checks);
    return 0;
}
