/*
 * bench_ringwalk.c - the per-item cost of a lookup walk, chain against
 * hotring, on the same keys (issue 22, docs/measurements/hotring-item-cost.md).
 * Built, never run by the suite (it times, and timings are no test).
 *
 * Both tables get the same N random keys (inserted in the same order, so both
 * allocate their nodes/items in the same order), the same hash (fold) and the
 * same bucket count (chain --density L, hotring ratio=L, rehash=0: N/L
 * buckets for N and L powers of two), then the same precomputed array of
 * lookup keys: absent keys (miss: a chain walks its whole chain, an ordered
 * ring with its head at the sentinel about half the ring) or present keys
 * drawn uniformly (hit). The items each lookup visits are computed from the
 * keys, not measured by the tables: chain: the nodes up to the key (all of
 * them on a miss); hotring with its head at the sentinel (strategy=none, and
 * every strategy on misses, which never move a head): the sentinel, the items
 * below the key's order and the one that ends the walk (walk_get's hops).
 * Tables run interleaved, one pass each per round; the median pass is
 * reported as ns per lookup and ns per visited item (with -m hit, random and
 * sample move their heads: their items/op is still the walk from the
 * sentinel, so only their ns/op means what it says).
 *
 *   bench_ringwalk [-k KEYS] [-L RATIO] [-m miss|hit] [-o LOOKUPS] [-r ROUNDS]
 *                  [-v V1,V2 [-q]] [-t TABLE] ... (default: chain, hotring:strategy=none|random|sample)
 *
 * -v V1,V2 (misses): each table gets two arrays of absent keys, the keys whose
 * walk in that table visits V1 and V2 items on average (V-2 .. V+2, equally
 * often, in random order: walks of one fixed length let the branch predictor
 * learn the loop exit and overlap consecutive lookups; ring walks that end at
 * an item above the key, not at the wrap), on the same table
 * (same buckets, heads, sentinels); (ns(V2) - ns(V1)) / (V2 - V1) is then the
 * cost of one more visited item with every per-operation cost (hash, EBR,
 * bucket word, sentinel, call) cancelled. -q: only the -v passes (for
 * callgrind: -q -v V,V counts passes of one mean walk length alone).
 *
 * Under valgrind only the lookup passes count with
 *   valgrind --tool=callgrind --toggle-collect=lookup_pass --cache-sim=yes \
 *       build/tests/bench_ringwalk -r 1 -t chain
 * (one table per run: callgrind sums all passes); Ir, Dr, D1mr, DLmr over
 * the lookups, divided by the items the bench prints, are the per-item costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include "cht.h"
#include "cht_hash.h"

extern const struct cht_ops cht_table_chain, cht_table_hotring;

static uint64_t mix64(uint64_t x)   /* splitmix64's finaliser: a bijection */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

struct ord { uint64_t g, k; };
static int ord_cmp(const void *a, const void *b)
{
    const struct ord *x = a, *y = b;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

struct layout {
    uint64_t nb;
    unsigned bits;
    const unsigned *clen;     /* chain length per chain bucket */
    const struct ord *o;      /* keys sorted by (hash, key) */
    const size_t *rstart;     /* ring j: o[rstart[j] .. rstart[j+1]) */
};

/* nodes a chain walk visits for an absent key: its whole chain */
static unsigned chain_visits(const struct layout *l, cht_key_t k)
{
    return l->clen[cht_hash(CHT_HASH_FOLD, k) & (l->nb - 1)];
}

/* items walk_get visits from the sentinel: the sentinel, the ring's items
 * below k's order, and the one that ends the walk (k itself on a hit, the
 * next item or the sentinel again on a miss) */
static unsigned ring_visits_end(const struct layout *l, cht_key_t k, bool *wraps)
{
    uint64_t h = cht_hash(CHT_HASH_FOLD, k), j = h >> (64 - l->bits);
    struct ord key = { h, k };
    size_t lo = l->rstart[j], hi = l->rstart[j + 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ord_cmp(&l->o[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *wraps = lo == l->rstart[j + 1];          /* no item above k: the walk ends at the sentinel */
    return (unsigned)(1 + (lo - l->rstart[j]) + 1);
}

static unsigned ring_visits(const struct layout *l, cht_key_t k)
{
    bool wraps;
    return ring_visits_end(l, k, &wraps);
}

/* lookups of a whole pass; callgrind collects only in here */
static __attribute__((noinline)) uint64_t lookup_pass(const struct cht_ops *ops, void *t, const cht_key_t *keys, size_t n)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n; i++) {
        cht_val_t v = 0;
        found += ops->get(t, keys[i], &v);
    }
    return found;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define MAXT 8
#define MAXR 1000      /* rounds reported */

int main(int argc, char **argv)
{
    size_t nkeys = 1 << 16, nlook = 1 << 20;
    unsigned ratio = 8, rounds = 7;
    bool hit = false, only_v = false;
    unsigned vsel[2] = { 0, 0 };
    const char *spec[MAXT];
    unsigned nt = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-k") && i + 1 < argc)
            nkeys = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-L") && i + 1 < argc)
            ratio = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            hit = !strcmp(argv[++i], "hit");
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            nlook = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-v") && i + 1 < argc && sscanf(argv[i + 1], "%u,%u", &vsel[0], &vsel[1]) == 2)
            i++;
        else if (!strcmp(argv[i], "-q"))
            only_v = true;
        else if (!strcmp(argv[i], "-t") && i + 1 < argc && nt < MAXT)
            spec[nt++] = argv[++i];
        else {
            fprintf(stderr, "usage: %s [-k KEYS] [-L RATIO] [-m miss|hit] [-o LOOKUPS] [-r ROUNDS] [-t TABLE]...\n",
                    argv[0]);
            return 2;
        }
    }
    if (!nt) {
        spec[nt++] = "chain";
        spec[nt++] = "hotring:strategy=none";
        spec[nt++] = "hotring:strategy=random";
        spec[nt++] = "hotring:strategy=sample";
    }
    if (vsel[0] && (vsel[0] < 4 || vsel[1] < 4 || hit)) {
        fprintf(stderr, "-v V1,V2: values >= 4, misses only\n");
        return 2;
    }
    if (nkeys & (nkeys - 1) || ratio & (ratio - 1) || nkeys < 2 * ratio) {
        fprintf(stderr, "KEYS and RATIO: powers of two, KEYS >= 2 x RATIO\n");
        return 2;
    }
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);     /* as chtbench without --hugepages */
    uint64_t nb = nkeys / ratio;
    unsigned bits = (unsigned)__builtin_ctzll(nb);

    cht_key_t *ins = malloc(nkeys * sizeof *ins), *look = malloc(nlook * sizeof *look);
    for (size_t i = 0; i < nkeys; i++)
        ins[i] = (mix64(i) >> 2) | 1;           /* odd: present */
    for (size_t i = 0; i < nlook; i++)
        look[i] = hit ? ins[mix64(~i) % nkeys] : (mix64(i + (1ull << 40)) >> 2) & ~1ull; /* even: absent */
    for (size_t i = 0; i < nlook; i++)
        if (look[i] == 0)
            look[i] = 2;

    /* items visited, from the keys: chain buckets (hash & mask, LIFO order) and
     * hotring rings (top bits, sorted by (hash, key)) */
    unsigned *clen = calloc(nb, sizeof *clen), *cpos = malloc(nkeys * sizeof *cpos);
    struct ord *o = malloc(nkeys * sizeof *o);
    for (size_t i = 0; i < nkeys; i++) {
        uint64_t h = cht_hash(CHT_HASH_FOLD, ins[i]);
        cpos[i] = clen[h & (nb - 1)]++;          /* nodes inserted before it in its chain */
        o[i] = (struct ord){ h, ins[i] };
    }
    qsort(o, nkeys, sizeof *o, ord_cmp);
    size_t *rstart = calloc(nb + 1, sizeof *rstart);   /* ring j: o[rstart[j] .. rstart[j+1]) */
    for (size_t i = 0; i < nkeys; i++)
        rstart[(o[i].g >> (64 - bits)) + 1]++;
    for (uint64_t j = 0; j < nb; j++)
        rstart[j + 1] += rstart[j];
    struct layout L0 = { nb, bits, clen, o, rstart };
    double chain_items = 0, ring_items = 0;
    for (size_t i = 0; i < nlook; i++) {
        if (hit)
            chain_items += clen[cht_hash(CHT_HASH_FOLD, look[i]) & (nb - 1)] - cpos[mix64(~i) % nkeys]; /* newest first */
        else
            chain_items += chain_visits(&L0, look[i]);
        ring_items += ring_visits(&L0, look[i]);   /* a hit: the sentinel, below, the item found */
    }
    chain_items /= (double)nlook;
    ring_items /= (double)nlook;
    /* -v: absent keys of exactly V1 and V2 visited items, per kind (0 chain, 1 ring) */
    cht_key_t *vlook[2][2] = { { NULL } };
    if (vsel[0]) {
        for (int kind = 0; kind < 2; kind++)
            for (int vi = 0; vi < 2; vi++) {
                cht_key_t *a = vlook[kind][vi] = malloc(nlook * sizeof *a);
                size_t n = 0;
                for (uint64_t c = 0; n < nlook && c < 1000 * (uint64_t)nlook; c++) {
                    cht_key_t k = ((mix64(c + (2ull << 40)) >> 2) & ~1ull) | 2;
                    /* V-2 .. V+2 in random order: a fixed walk length would let the
                     * branch predictor learn the loop's exit and overlap lookups */
                    unsigned want = vsel[vi] - 2 + (unsigned)(mix64(n * 7 + (uint64_t)vi) % 5);
                    /* ring walks that end at an item above k, never at the wrap: like a
                     * chain's (which all end at NULL) they then end on one branch, and
                     * the slope does not mix in the two ends' mispredictions */
                    bool wraps = false;
                    if ((kind ? ring_visits_end(&L0, k, &wraps) : chain_visits(&L0, k)) == want && !wraps)
                        a[n++] = k;
                }
                if (n < nlook) {
                    fprintf(stderr, "too few absent keys visit %u items in a %s: choose V near the ratio\n", vsel[vi],
                            kind ? "ring" : "chain");
                    return 2;
                }
            }
    }

    void *t[MAXT];
    double *ns[MAXT];
    uint64_t found[MAXT];
    for (unsigned s = 0; s < nt; s++) {
        char name[128], opts[256];
        snprintf(name, sizeof name, "%s", spec[s]);
        char *colon = strchr(name, ':');
        snprintf(opts, sizeof opts, "%s", colon ? colon + 1 : "");
        if (colon)
            *colon = 0;
        const struct cht_ops *ops = !strcmp(name, "chain") ? &cht_table_chain : &cht_table_hotring;
        struct cht_option opt[8] = { { 0 } };
        unsigned n = 0;
        char rbuf[16];
        snprintf(rbuf, sizeof rbuf, "%u", ratio);
        if (ops == &cht_table_hotring) {
            opt[n++] = (struct cht_option){ "ratio", rbuf };
            opt[n++] = (struct cht_option){ "rehash", "0" };
        }
        for (char *save = NULL, *kv = strtok_r(opts, ",", &save); kv && n < 7; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq)
                continue;
            *eq = 0;
            opt[n++] = (struct cht_option){ kv, eq + 1 };
        }
        struct cht_config cfg = { .initial = nkeys, .density = ratio, .range = 1ull << 62, .max_threads = 1,
                                  .numa_nodes = 1, .options = opt, .value_size = 8 };
        char err[256] = "";
        t[s] = ops->create(&cfg, err, sizeof err);
        if (!t[s]) {
            fprintf(stderr, "%s: %s\n", spec[s], err);
            return 1;
        }
        if (ops->thread_init)
            ops->thread_init(t[s], 0);
        for (size_t i = 0; i < nkeys; i++)
            if (!ops->insert(t[s], ins[i], ins[i])) {
                fprintf(stderr, "%s: duplicate key %llu\n", spec[s], (unsigned long long)ins[i]);
                return 1;
            }
        struct cht_stats st = { 0 };
        ops->stats(t[s], &st);
        if (st.buckets != nb) {
            fprintf(stderr, "%s: %zu buckets, expected %llu\n", spec[s], st.buckets, (unsigned long long)nb);
            return 1;
        }
        ns[s] = calloc(rounds, sizeof(double));
    }
    double *vns[MAXT][2];
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned s = 0; s < nt; s++) {
            bool ch = !strncmp(spec[s], "chain", 5);
            const struct cht_ops *ops = ch ? &cht_table_chain : &cht_table_hotring;
            double t0 = now_ns();
            found[s] = only_v ? 0 : lookup_pass(ops, t[s], look, nlook);
            ns[s][r] = (now_ns() - t0) / (double)nlook;
            for (int vi = 0; vi < 2 && vsel[0]; vi++) {
                if (r == 0)
                    vns[s][vi] = calloc(rounds, sizeof(double));
                t0 = now_ns();
                found[s] += lookup_pass(ops, t[s], vlook[!ch][vi], nlook);
                vns[s][vi][r] = (now_ns() - t0) / (double)nlook;
            }
        }
    printf("keys %zu, ratio %u, %llu buckets, %s, %zu lookups x %u rounds (interleaved), items visited per lookup: "
           "chain %.3f, ring from the sentinel %.3f\n", nkeys, ratio, (unsigned long long)nb, hit ? "hits" : "misses",
           nlook, rounds, chain_items, ring_items);
    printf("%-28s %10s %10s %10s %10s %8s\n", "table", "found", "items/op", "ns/op", "ns/item", "min..max");
    for (unsigned s = 0; s < nt; s++) {
        bool ch = !strncmp(spec[s], "chain", 5);
        double items = ch ? chain_items : ring_items;
        double sorted[MAXR];
        unsigned n = rounds < MAXR ? rounds : MAXR;
        memcpy(sorted, ns[s], n * sizeof(double));
        qsort(sorted, n, sizeof(double), dcmp);
        double med = sorted[n / 2];
        if (only_v)
            printf("%s\n", spec[s]);
        else
            printf("%-28s %10llu %10.3f %10.2f %10.2f %.1f..%.1f\n", spec[s], (unsigned long long)found[s], items,
                   med, med / items, sorted[0], sorted[n - 1]);
        if (vsel[0]) {
            /* per-round slope, then its median: rounds differ in machine load */
            double vm[2], vmin[2], sl[MAXR], dv = (double)vsel[1] - (double)vsel[0];
            for (unsigned r = 0; r < n; r++)
                sl[r] = (vns[s][1][r] - vns[s][0][r]) / dv;
            qsort(sl, n, sizeof(double), dcmp);
            for (int vi = 0; vi < 2; vi++) {
                memcpy(sorted, vns[s][vi], n * sizeof(double));
                qsort(sorted, n, sizeof(double), dcmp);
                vm[vi] = sorted[n / 2];
                vmin[vi] = sorted[0];
                free(vns[s][vi]);
            }
            /* the minimum over many short rounds: what a pass costs when no other
             * job interrupts it (a busy machine only adds time) */
            printf("%-28s   -v %u: %.2f ns/op (min %.2f), %u: %.2f (min %.2f); one more item: median of rounds %.2f ns, "
                   "from the minima %.2f ns\n", "", vsel[0], vm[0], vmin[0], vsel[1], vm[1], vmin[1], sl[n / 2],
                   (vmin[1] - vmin[0]) / dv);
        }
        const struct cht_ops *ops = ch ? &cht_table_chain : &cht_table_hotring;
        if (ops->thread_exit)
            ops->thread_exit(t[s], 0);
        ops->destroy(t[s]);
        free(ns[s]);
    }
    if (hit) {
        for (unsigned s = 0; s < nt; s++)
            if (found[s] != nlook)
                return fprintf(stderr, "%s: %llu of %zu hits found\n", spec[s], (unsigned long long)found[s], nlook), 1;
    } else {
        for (unsigned s = 0; s < nt; s++)
            if (found[s] != 0)
                return fprintf(stderr, "%s: %llu misses found\n", spec[s], (unsigned long long)found[s]), 1;
    }
    free(ins), free(look), free(clen), free(cpos), free(o), free(rstart);
    return 0;
}
