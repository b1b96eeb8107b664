/* mindense: a plain pipelined get of chtbench's dense layout (DRAMHiT's
 * batches: Narayanan et al., EuroSys 2023), meant as a bound but slower in the
 * caches than the table's own step, so it bounds nothing (pipeline.md, the
 * 2026-11-28 21:55 section). Linear probing over 16-byte slots, density
 * 0.5, r = 2i uniform keys, W ops in flight, single-threaded, no driver:
 *   lines = 2: home's line and the next prefetched, 8 slots scanned (the table's shape);
 *   lines = 1: home's line only; a run that leaves it takes a second step;
 *   var 1: + the region seqlock word (4096 words, 8 slots per region) read around the value.
 * Build: gcc -O3 -I../../../include -o mindense mindense.c
 * Usage: mindense LOG2_KEYS W LINES VAR SECONDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cht_hash.h"
#include "probe.h"

struct slot { uint64_t key, val; };
struct word { _Alignas(64) uint64_t v; };

static struct slot *tab;
static struct word region[4096];
static uint64_t mask;

struct op { uint64_t key, home, next; };

int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    unsigned lg = (unsigned)atoi(argv[1]), W = (unsigned)atoi(argv[2]), lines = (unsigned)atoi(argv[3]),
             var = (unsigned)atoi(argv[4]);
    double secs = atof(argv[5]);
    uint64_t n = 1ull << lg, ns = 2 * n;
    mask = ns - 1;
    tab = aligned_alloc(64, ns * 16);
    memset(tab, 0, ns * 16);
    for (uint64_t k = 1; k <= n; k++) {
        uint64_t i = cht_hash_fold(k) & mask;
        while (tab[i].key)
            i = (i + 1) & mask;
        tab[i].key = k;
        tab[i].val = k;
    }
    struct op ops[2][64];
    uint64_t seed = 12345, done = 0, found = 0, agains = 0, sum = 0;
    unsigned cur = 0, nprev = 0;
    const unsigned span = lines * 4;
    double t0 = now(), t1;
    for (;;) {
        struct op *p = ops[cur ^ 1];
        unsigned keep = 0;
        for (unsigned i = 0; i < nprev; i++) {
            struct op *o = &p[i];
            const uint64_t k = o->key, line = o->next & ~3ull;
            unsigned eq = 0, empty = 0;
            for (unsigned j = 0; j < span; j++) {
                uint64_t x = __atomic_load_n(&tab[(line + j) & mask].key, __ATOMIC_ACQUIRE);
                eq |= (unsigned)(x == k) << j;
                empty |= (unsigned)(x == 0) << j;
            }
            const unsigned from = (0xffffu << (o->next & 3)) & ((1u << span) - 1);
            const unsigned pos = (unsigned)__builtin_ctz(((eq | empty) & from) | (1u << span));
            const uint64_t at = (line + (pos & (span - 1))) & mask;
            uint64_t v1 = 0;
            if (var)
                v1 = __atomic_load_n(&region[(at >> 3) & 4095].v, __ATOMIC_ACQUIRE);
            uint64_t val = __atomic_load_n(&tab[at].val, __ATOMIC_ACQUIRE);
            if (var && __atomic_load_n(&region[(at >> 3) & 4095].v, __ATOMIC_RELAXED) != v1)
                abort();
            if (pos == span) {      /* undecided: on from the next line */
                o->next = (line + span) & mask;
                __builtin_prefetch(&tab[o->next]);
                p[keep++] = *o;
                agains++;
                continue;
            }
            found += (eq >> pos) & 1;
            sum += val;
            done++;
        }
        struct op *q = ops[cur];
        unsigned nq = 0;
        for (unsigned i = 0; i < keep; i++)
            q[nq++] = p[i];
        if ((done & 0xfff) < W && (t1 = now()) - t0 > secs)
            break;
        for (; nq < W; nq++) {
            uint64_t k = draw_key(&seed, 2 * n);
            uint64_t home = cht_hash_fold(k) & mask;
            q[nq] = (struct op){ k, home, home };
            __builtin_prefetch(&tab[home & ~3ull]);
            if (lines == 2)
                __builtin_prefetch(&tab[((home & ~3ull) + 4) & mask]);
            if (var)
                __builtin_prefetch(&region[(home >> 3) & 4095]);
        }
        nprev = nq;
        cur ^= 1;
    }
    printf("lg=%u W=%u lines=%u var=%u: %.2f ns/op  %.2f Mops/s  found %.3f  again %.3f sum %lu\n", lg, W, lines, var,
           (t1 - t0) / done * 1e9, done / (t1 - t0) / 1e6, (double)found / done, (double)agains / done, sum & 1);
    return 0;
}
