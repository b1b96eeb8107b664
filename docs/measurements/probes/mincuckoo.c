/* mincuckoo: the least work a pipelined cuckoo get of chtbench's layout can do
 * (DRAMHiT's batches: Narayanan et al., EuroSys 2023; measured in pipeline.md,
 * the 2026-11-28 21:55 section)
 * (2 hashes, 4 ways of 16-byte slots, one 64-byte bucket per line, density
 * 0.5, r = 2i uniform keys, W ops in flight), single-threaded, no driver:
 *   variant 0: first bucket only decides, away flag inside the bucket line
 *              (slot 0's value's top bit), no seqlock: the lines' bound;
 *   variant 1: + a stripe seqlock word read before and after (2048 stripes,
 *              one per 64-byte line), as the table does;
 *   variant 2: + the away bit in a separate bitmap (1 bit per bucket), as
 *              the table does.
 * Keys stored in their second bucket, and absent keys whose first bucket has
 * the away flag, take a second step one lap later (prefetched meanwhile).
 * Build: gcc -O3 -I../../../include -o mincuckoo mincuckoo.c
 * Usage: mincuckoo LOG2_KEYS W VARIANT SECONDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cht_hash.h"
#include "probe.h"

struct slot { uint64_t key, val; };
struct stripe { _Alignas(64) uint64_t seq; };

static struct slot *tab;
static uint64_t *away;
static struct stripe stripes[2048];
static uint64_t mask;

static inline uint64_t step_of(uint64_t k) { return cht_hash_mix(k ^ 0x5bd1e995u) | 1; }

struct op { uint64_t key, h0, val; unsigned stage; };

static inline unsigned match4(const struct slot *s, uint64_t k)
{
    return (s[0].key == k) | (s[1].key == k) << 1 | (s[2].key == k) << 2 | (s[3].key == k) << 3;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    unsigned lg = (unsigned)atoi(argv[1]), W = (unsigned)atoi(argv[2]), var = (unsigned)atoi(argv[3]);
    double secs = atof(argv[4]);
    uint64_t n = 1ull << lg, nb = n / 2;    /* 4 ways at density 0.5: n / 2 buckets */
    mask = nb - 1;
    tab = aligned_alloc(64, nb * 64);
    away = calloc(nb / 64 + 1, 8);
    memset(tab, 0, nb * 64);
    uint64_t dropped = 0, second = 0;
    for (uint64_t k = 1; k <= n; k++) {
        uint64_t h0 = cht_hash_fold(k), b0 = h0 & mask, b1 = (h0 + step_of(k)) & mask;
        struct slot *s0 = &tab[b0 * 4], *s1 = &tab[b1 * 4];
        int placed = 0;
        for (int j = 0; j < 4 && !placed; j++)
            if (!s0[j].key) { s0[j].key = k; s0[j].val = k; placed = 1; }
        for (int j = 0; j < 4 && !placed; j++)
            if (!s1[j].key) { s1[j].key = k; s1[j].val = k; placed = 2; }
        if (placed == 2) {
            second++;
            s0[0].val |= 1ull << 63;   /* variant 0's in-line flag (slot 0 is used: the bucket is full) */
            away[b0 >> 6] |= 1ull << (b0 & 63);
        }
        dropped += !placed;
    }
    struct op ops[2][64];
    uint64_t seed = 12345, done = 0, found = 0, agains = 0, sum = 0;
    unsigned cur = 0, nprev = 0;
    double t0 = now(), t1;
    for (;;) {
        /* step last lap's ops */
        struct op *p = ops[cur ^ 1];
        unsigned keep = 0;
        for (unsigned i = 0; i < nprev; i++) {
            struct op *o = &p[i];
            uint64_t k = o->key, b = o->stage ? (o->h0 + step_of(k)) & mask : o->h0 & mask;
            const struct slot *s = &tab[b * 4];
            uint64_t v1 = 0;
            if (var)
                v1 = __atomic_load_n(&stripes[b & 2047].seq, __ATOMIC_ACQUIRE);
            unsigned m = match4(s, k);
            uint64_t val = __atomic_load_n(&s[__builtin_ctz(m | 8)].val, __ATOMIC_ACQUIRE);
            unsigned fl = var == 2 ? (unsigned)(away[b >> 6] >> (b & 63)) & 1 : (unsigned)(s[0].val >> 63);
            if (var && __atomic_load_n(&stripes[b & 2047].seq, __ATOMIC_RELAXED) != v1)
                abort();
            if (m) {
                found++;
                sum += val;
            } else if (!o->stage && fl) {
                uint64_t b1 = (o->h0 + step_of(k)) & mask;
                __builtin_prefetch(&tab[b1 * 4]);
                if (var)
                    __builtin_prefetch(&stripes[b1 & 2047]);
                o->stage = 1;
                ops[cur ^ 1][keep++] = *o;     /* compacted in place: keep <= i */
                agains++;
                continue;
            }
            done++;
        }
        /* draw and start this lap's ops, after the kept ones */
        struct op *q = ops[cur];
        unsigned nq = 0;
        for (unsigned i = 0; i < keep; i++)
            q[nq++] = p[i];
        if ((done & 0xfff) < W && (t1 = now()) - t0 > secs)
            break;
        for (; nq < W; nq++) {
            uint64_t k = draw_key(&seed, 2 * n);
            uint64_t h0 = cht_hash_fold(k), b = h0 & mask;
            q[nq] = (struct op){ k, h0, 0, 0 };
            __builtin_prefetch(&tab[b * 4]);
            if (var)
                __builtin_prefetch(&stripes[b & 2047]);
            if (var == 2)
                __builtin_prefetch(&away[b >> 6]);
        }
        nprev = nq;
        cur ^= 1;
    }
    printf("lg=%u W=%u var=%u: %.2f ns/op  %.2f Mops/s  found %.3f  second-steps %.3f  stored-second %.3f dropped %lu sum %lu\n",
           lg, W, var, (t1 - t0) / done * 1e9, done / (t1 - t0) / 1e6, (double)found / done, (double)agains / done,
           (double)second / n, dropped, sum & 1);
    return 0;
}
