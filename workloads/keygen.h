/*
 * keygen.h - key streams for the timed loop's op sources (opsource.h): a
 * per-thread PRNG, uniform keys, exact Zipf keys with optional scrambling of
 * ranks over the key range, and hotspot keys.
 *
 * Pieces:
 *   struct cht_rng     xoroshiro128++ (Blackman & Vigna, "Scrambled linear
 *                      pseudorandom number generators", 2018/2021). Why this one:
 *                      two words of state (fits the struct), ~1 ns per draw,
 *                      period 2^128 - 1, passes BigCrush/PractRand on all 64 bits.
 *                      The ++ scrambler (vs. the cheaper +) also makes the low bits
 *                      good, and we use them: range reduction of large ranges
 *                      and Zipf dithering (keygen.c) read low-order bits.
 *                      Streams are seeded with splitmix64 (Steele, Lea & Flood,
 *                      "Fast splittable pseudorandom number generators", 2014)
 *                      from (seed, stream), so each thread id gets its own
 *                      reproducible stream; overlap of two streams within any
 *                      realistic run is astronomically unlikely (2^128 period).
 *   cht_rng_below      Lemire's multiply-shift range reduction (D. Lemire, "Fast
 *                      random integer generation in an interval", ACM TOMACS 29(1),
 *                      2019), without its rejection step: one 64x64->128 multiply,
 *                      no division, no loop. Each value of [0,n) is hit by
 *                      floor(2^64/n) or ceil(2^64/n) inputs, so the relative bias
 *                      is at most n/2^64 (2^-34 for n = 2^30); exact for powers of 2.
 *   KEYGEN_UNIFORM     key = 1 + below(next(), range).
 *   KEYGEN_ZIPF        P(rank k) = k^-theta / H(n,theta) on [1,n], any theta > 0
 *                      (1.0 and > 1 included), by rejection-inversion (W. Hörmann &
 *                      G. Derflinger, "Rejection-inversion to generate variates from
 *                      monotone discrete distributions", ACM TOMACS 6(3), 1996):
 *                      O(1) expected, about one log1p + one exp per draw, no tables.
 *   scramble           a keyed Feistel permutation of [0, 2^b) (b = bits of range)
 *                      restricted to [0, range) by cycle-walking (Black & Rogaway,
 *                      "Ciphers with arbitrary finite domains", CT-RSA 2002):
 *                      a bijection of [1, range]; expected walk < 2 steps.
 *
 * Thread model: struct keygen is immutable after keygen_init and shared
 * read-only by all threads; each thread owns its struct cht_rng.
 */
#ifndef CHT_KEYGEN_H
#define CHT_KEYGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cht.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------- PRNG ---------------- */

struct cht_rng { uint64_t s[2]; };

/* Seeds stream `stream` (the thread id) of `seed`: same (seed, stream) -> same
 * sequence on every run and machine; different streams are independent. */
void cht_rng_seed(struct cht_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t cht_rng_rotl_(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* 64 random bits (xoroshiro128++). */
static inline uint64_t cht_rng_next(struct cht_rng *r)
{
    uint64_t s0 = r->s[0], s1 = r->s[1];
    uint64_t out = cht_rng_rotl_(s0 + s1, 17) + s0;
    s1 ^= s0;
    r->s[0] = cht_rng_rotl_(s0, 49) ^ s1 ^ (s1 << 21);
    r->s[1] = cht_rng_rotl_(s1, 28);
    return out;
}

/* Maps 64 random bits x to [0, n) (n >= 1): floor(x * n / 2^64) (Lemire 2019). */
static inline uint64_t cht_rng_below(uint64_t x, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

/* ---------------- --keys sparse ---------------- */

/* --keys sparse: key k of [1, r] becomes keygen_sparse(k), a fixed bijection
 * of [1, 2^61] (an xor with a constant, three xorshift steps and two
 * multiplications by odd constants, each invertible on 61-bit words; the
 * multipliers are splitmix64's, unrelated to cht_hash's). Dense keys 1..r spread over 61 bits with no
 * structure left in their low bits, like real identifiers, so `hash=identity`
 * no longer gets a perfect, collision-free spread (and predictable branches)
 * that no real key set gives it, and the default hash can be compared with it
 * fairly. The driver applies it before the timed phase (prefill, key buffers,
 * final check) and in the untimed warm-up only: the timed loop never pays for
 * it (docs/cli.md "Key layout"). Needs k <= 2^61 (the key buffers' limit). */
#define KEYGEN_SPARSE_BITS 61
static inline cht_key_t keygen_sparse(cht_key_t k)
{
    const uint64_t m = (1ull << KEYGEN_SPARSE_BITS) - 1;
    uint64_t x = (k - 1) ^ 0x0d8e4e27c47d124full;   /* < 2^61; no fixed point at k = 1 */
    x ^= x >> 29;
    x = (x * 0xbf58476d1ce4e5b9ull) & m;
    x ^= x >> 32;
    x = (x * 0x94d049bb133111ebull) & m;
    x ^= x >> 29;
    return x + 1;
}

/* ---------------- distribution spec (--dist) ---------------- */

/* The key distributions; where ops come from (drawn in the loop, a buffer, a
 * trace) and which ops they are is the op source's business (opsource.h). */
enum keygen_dist { KEYGEN_UNIFORM = 0, KEYGEN_ZIPF = 1, KEYGEN_HOTSPOT = 2 };

struct keygen_spec {
    enum keygen_dist dist;
    double theta;     /* zipf exponent, > 0 (ignored for uniform) */
    bool scramble;    /* zipf: spread ranks over the range (ignored for uniform) */
    /* hotspot (HotRing's shifting hotspots, FAST'20 fig. 14): hot_ops percent of
     * the operations go uniformly to a hot set of hot_keys percent of the range,
     * the rest uniformly to the other keys; with shift_ms, the hot set moves to
     * the next disjoint block of keys every shift_ms milliseconds */
    double hot_keys, hot_ops;
    uint64_t shift_ms;
};

/* Parses "uniform" | "zipf:THETA" | "zipf:THETA,scramble" (THETA: any finite
 * double > 0). On error writes a one-line message starting with "--dist:" into
 * err (if err && len) and returns -1; 0 on success. */
int keygen_parse(const char *s, struct keygen_spec *out, char *err, size_t len);

/* Writes the canonical string ("uniform", "zipf:0.99", "zipf:1.22,scramble");
 * THETA is printed with the fewest digits that read back to the same double. */
void keygen_format(const struct keygen_spec *s, char *buf, size_t len);

/* ---------------- the generator ---------------- */

#define KEYGEN_FEISTEL_ROUNDS 4

/* Precomputed constants only; immutable after keygen_init. */
struct keygen {
    /* read on every draw */
    enum keygen_dist dist;
    bool     scramble;
    uint64_t range;          /* keys in [1, range] */
    /* zipf, rejection-inversion (see keygen.c for H, H^-1) */
    double   theta;          /* q */
    double   omq;            /* 1 - q */
    double   inv_omq;        /* 1 / (1 - q) (0 when q == 1; then unused) */
    double   h_x1;           /* H(1.5) - h(1): lower end of the u interval */
    double   h_n;            /* H(n + 0.5):    upper end of the u interval */
    double   u_rank1;        /* H(1.5): u below it is rank 1, accepted at once */
    double   h_span;         /* h_x1 - h_n (<= 0) */
    double   squeeze;        /* s = 2 - H^-1(H(2.5) - h(2)): quick-accept bound */
    double   n_d;            /* (double)range */
    /* hotspot: a draw below hot_thresh picks the hot set of hot_n keys */
    uint64_t hot_n, hot_thresh;
    /* scramble: Feistel network on [0, 2^(fb_hi + fb_lo)) */
    unsigned fb_hi, fb_lo;   /* widths of the two halves, fb_hi <= fb_lo, >= 1 */
    uint64_t fkey[KEYGEN_FEISTEL_ROUNDS];
    /* provenance */
    struct keygen_spec spec;
    uint64_t seed;
} __attribute__((aligned(CHT_CACHE_LINE)));

/* range in [1, 2^62]; seed keys the scramble permutation. On error: one-line
 * message naming the flag ("--range: ..." / "--dist: ..."), returns -1. */
int keygen_init(struct keygen *g, const struct keygen_spec *s, uint64_t range,
                uint64_t seed, char *err, size_t len);

/* The zipf path of keygen_next (out of line: it is ~20x the cost of a uniform
 * draw anyway, and keeping it out keeps the uniform loop tight). */
cht_key_t keygen_next_zipf(const struct keygen *g, struct cht_rng *r);

/* A key in [1, range]. */
static inline cht_key_t keygen_next_hotspot(const struct keygen *g, struct cht_rng *r, uint64_t base, bool *hot);

static inline cht_key_t keygen_next(const struct keygen *g, struct cht_rng *r)
{
    if (g->dist == KEYGEN_UNIFORM)
        return 1 + cht_rng_below(cht_rng_next(r), g->range);
    if (g->dist == KEYGEN_HOTSPOT) {
        bool hot;
        return keygen_next_hotspot(g, r, 0, &hot);
    }
    return keygen_next_zipf(g, r);
}

/* For tests: exact probability of rank k (1-based) under zipf(theta) on [1, n]:
 * k^-theta / H(n, theta). H is summed directly for n <= 2^20, otherwise the
 * first 1023 terms directly plus an Euler-Maclaurin tail (truncation error
 * ~1e-27: accurate to double rounding). Returns 0 for k outside [1, n] or bad
 * arguments. O(min(n, 2^20)) per call. */
double keygen_zipf_pmf(uint64_t n, double theta, uint64_t k);

/* Hotspot: the key for one draw when the hot set starts at base (0 ..
 * range-1; it moves with --dist hotspot:...,shift=MS): with probability
 * hot_ops% a uniform key of [base, base + hot_n), else a uniform key of the
 * rest, all modulo the range, plus 1. *hot says which. Two PRNG steps. */
static inline cht_key_t keygen_next_hotspot(const struct keygen *g, struct cht_rng *r, uint64_t base, bool *hot)
{
    bool h = cht_rng_next(r) < g->hot_thresh;
    uint64_t x = cht_rng_next(r);
    uint64_t off = h ? cht_rng_below(x, g->hot_n) : g->hot_n + cht_rng_below(x, g->range - g->hot_n);
    uint64_t k = base + off;
    k -= k >= g->range ? g->range : 0;
    *hot = h;
    return 1 + k;
}

/* The scramble bijection on [1, range] used by keygen_next (for tests). */
uint64_t keygen_scramble(const struct keygen *g, uint64_t rank);

#ifdef __cplusplus
}
#endif
#endif /* CHT_KEYGEN_H */
