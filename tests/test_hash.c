/*
 * test_hash.c - quality of the key hashes in include/cht_hash.h.
 *
 * For each hash and each key family, n = 8m keys are hashed into m buckets
 * by their low bits (h & (m-1), as the tables index), for m = 2^4 .. 2^18, and
 * the bucket loads are tested with Pearson's chi-square against the uniform
 * expectation of 8 keys per bucket. With m-1 degrees of freedom the statistic
 * of a random assignment has mean m-1 and standard deviation sqrt(2(m-1)), so
 * z = (chi2 - (m-1)) / sqrt(2(m-1)) is about N(0,1). What a hash table pays
 * for clustering is colliding pairs: sum c_i^2 = E (chi2 + n), so
 * excess = (chi2 - (m-1)) / (n + m-1) is the fraction of extra collisions
 * over a random function. A hash fails a family at a size when the
 * clustering is both significant (z > 6) and material (excess > 2%); a load
 * more even than random (z < 0) is fine for a hash table. (z alone would call
 * a 1.7% collision excess at m = 2^18 a failure: every one-multiply hash fails
 * some structured family by that measure.) The keys are deterministic, so
 * the result is too.
 *
 * Key families (all inside the driver's key range [1, 2^62]):
 *   dense     1..n
 *   stride-s  k * 2^s, k = 1..n, s = 1, 3, 6, 12, 20, 32 (keys aligned to 2^s)
 *   high-b    k << (62 - log2 n): only the top bits vary
 *   high40    k << 40, k = 1..n (small counters in the high half)
 *   random    splitmix64 output masked to 62 bits (fixed seed)
 *
 * Power check: the same statistic must reject `identity` on the strided and
 * high-bit families (and accept it on dense keys, which it spreads perfectly),
 * so the test is known to fail for a bad hash.
 *
 * Usage: test_hash [table]   (table: also print every chi-square row)
 */
#include <math.h>
#include <string.h>
#include "cht_hash.h"
#include "keygen.h"
#include "test_check.h"

#define LOAD 8u                 /* keys per bucket */
#define Z_FAIL 6.0
#define EXCESS_FAIL 0.02

enum family { F_DENSE, F_STRIDE, F_HIGH, F_HIGH40, F_RANDOM };

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t key_of(enum family f, unsigned s, unsigned lg_n, uint64_t i, uint64_t *rng)
{
    switch (f) {
    case F_DENSE: return i;
    case F_STRIDE: return i << s;
    case F_HIGH: return i << (62 - lg_n);
    case F_HIGH40: return i << 40;
    case F_RANDOM: return (splitmix(rng) & ((1ull << 62) - 1)) | 1;
    }
    return i;
}

typedef uint64_t (*hash_fn)(uint64_t);

static uint64_t h_identity(uint64_t k) { return k; }
/* what a table with hash=identity sees under --keys sparse */
static uint64_t h_identity_sparse(uint64_t k) { return keygen_sparse(k); }

/* z of the bucket loads of family f (parameter s) hashed by fn into 2^lg_m
 * buckets; *excess: the fraction of colliding pairs over a random function */
static double chi_z(hash_fn fn, enum family f, unsigned s, unsigned lg_m, uint32_t *cnt, double *excess)
{
    uint64_t m = 1ull << lg_m, n = m * LOAD, mask = m - 1, rng = 12345;
    unsigned lg_n = lg_m + 3;
    memset(cnt, 0, m * sizeof *cnt);
    for (uint64_t i = 1; i <= n; i++)
        cnt[fn(key_of(f, s, lg_n, i, &rng)) & mask]++;
    double chi = 0;
    for (uint64_t b = 0; b < m; b++) {
        double d = (double)cnt[b] - LOAD;
        chi += d * d / LOAD;
    }
    double df = (double)(m - 1);
    *excess = (chi - df) / ((double)n + df);
    return (chi - df) / sqrt(2 * df);
}

struct fam {
    enum family f;
    unsigned s;
    const char *name;
};

static const struct fam fams[] = {
    { F_DENSE, 0, "dense" },     { F_STRIDE, 1, "stride-1" },  { F_STRIDE, 3, "stride-3" },
    { F_STRIDE, 6, "stride-6" }, { F_STRIDE, 12, "stride-12" }, { F_STRIDE, 20, "stride-20" },
    { F_STRIDE, 32, "stride-32" }, { F_HIGH, 0, "high-bits" }, { F_HIGH40, 0, "high40" },
    { F_RANDOM, 0, "random" },
};
#define NFAMS (sizeof fams / sizeof fams[0])

static const unsigned sizes[] = { 4, 8, 12, 16, 18 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

struct hash_case {
    const char *name;
    hash_fn fn;
};

/* fails[f] = number of sizes at which family f failed; *worst_z, *worst_ex:
 * the largest z and collision excess seen */
static void run_hash(const struct hash_case *hc, unsigned *fails, uint32_t *cnt, bool table,
                     double *worst_z, double *worst_ex)
{
    *worst_z = *worst_ex = -1e9;
    for (unsigned f = 0; f < NFAMS; f++) {
        fails[f] = 0;
        for (unsigned z = 0; z < NSIZES; z++) {
            double ex, v = chi_z(hc->fn, fams[f].f, fams[f].s, sizes[z], cnt, &ex);
            bool bad = v > Z_FAIL && ex > EXCESS_FAIL;
            *worst_z = v > *worst_z ? v : *worst_z;
            *worst_ex = ex > *worst_ex ? ex : *worst_ex;
            fails[f] += bad;
            if (table)
                printf("%-9s %-10s m=2^%-2u z=%10.2f excess=%8.4f%s\n", hc->name, fams[f].name,
                       sizes[z], v, ex, bad ? "  FAIL" : "");
        }
    }
}

static uint64_t h_fold(uint64_t k) { return cht_hash(CHT_HASH_FOLD, k); }
static uint64_t h_mix(uint64_t k) { return cht_hash(CHT_HASH_MIX, k); }

int main(int argc, char **argv)
{
    bool table = argc > 1 && strcmp(argv[1], "table") == 0;
    uint32_t *cnt = malloc(sizeof *cnt << sizes[NSIZES - 1]);
    CHECK(cnt != NULL, "out of memory");
    if (!cnt)
        return 1;

    /* the option names map to the kinds, and the default is the fold hash */
    CHECK(strcmp(cht_hash_names[CHT_HASH_FOLD], "fold") == 0, "names[FOLD]");
    CHECK(strcmp(cht_hash_names[CHT_HASH_MIX], "mix") == 0, "names[MIX]");
    CHECK(strcmp(cht_hash_names[CHT_HASH_IDENTITY], "identity") == 0, "names[IDENTITY]");
    CHECK(cht_hash_names[3] == NULL, "names end");
    CHECK(CHT_HASH_DEFAULT == CHT_HASH_FOLD, "default is fold");
    CHECK(cht_hash(CHT_HASH_IDENTITY, 12345) == 12345, "identity");
    CHECK(cht_hash(CHT_HASH_FOLD, 12345) == cht_hash_fold(12345), "fold dispatch");
    CHECK(cht_hash(CHT_HASH_MIX, 12345) == cht_hash_mix(12345), "mix dispatch");
    CHECK(cht_hash_fold(1) != cht_hash_fold(2) && cht_hash_fold(1) != 1, "fold degenerate");

    static const struct hash_case good[] = {
        { "fold", h_fold }, { "mix", h_mix }, { "mix2", cht_hash_mix2 },
    };
    unsigned fails[NFAMS];
    double wz, wx;
    for (unsigned i = 0; i < sizeof good / sizeof good[0]; i++) {
        run_hash(&good[i], fails, cnt, table, &wz, &wx);
        for (unsigned f = 0; f < NFAMS; f++)
            CHECK(fails[f] == 0,
                  "hash %s: family %s: chi-square z > %.0f with > %.0f%% excess collisions at %u of %zu sizes",
                  good[i].name, fams[f].name, Z_FAIL, 100 * EXCESS_FAIL, fails[f], NSIZES);
        printf("%-9s over %zu families x %zu sizes: worst z %.2f, worst collision excess %+.2f%%\n",
               good[i].name, NFAMS, NSIZES, wz, 100 * wx);
    }

    /* power check: identity must be caught on strided and high-bit keys */
    const struct hash_case id = { "identity", h_identity };
    run_hash(&id, fails, cnt, table, &wz, &wx);
    for (unsigned f = 0; f < NFAMS; f++) {
        bool must_fail = fams[f].f == F_STRIDE || fams[f].f == F_HIGH || fams[f].f == F_HIGH40;
        if (must_fail)
            CHECK(fails[f] == NSIZES, "power: identity passed family %s at %zu of %zu sizes",
                  fams[f].name, NSIZES - fails[f], NSIZES);
        else if (fams[f].f == F_DENSE)
            CHECK(fails[f] == 0, "identity spreads dense keys perfectly, yet failed");
    }
    printf("identity  fails the strided and high-bit families at every size (power check; worst "
           "collision excess %+.0f%%)\n", 100 * wx);

    /* --keys sparse takes identity's unfair advantage away: dense keys, which
     * identity spreads perfectly (z = -sqrt((m-1)/2): no collision at all),
     * reach it mapped by keygen_sparse and load the buckets like a random
     * function, |z| < 6 at every size, neither clustered nor unnaturally even */
    double worst_abs = 0;
    for (unsigned z = 0; z < NSIZES; z++) {
        double ex, vd = chi_z(h_identity, F_DENSE, 0, sizes[z], cnt, &ex);
        double vs = chi_z(h_identity_sparse, F_DENSE, 0, sizes[z], cnt, &ex);
        CHECK(sizes[z] < 8 || vd < -Z_FAIL, "identity on dense keys at m=2^%u: z %.2f, not perfectly even", sizes[z], vd);
        CHECK(fabs(vs) < Z_FAIL, "identity on sparse keys at m=2^%u: z %.2f, not like a random function",
              sizes[z], vs);
        worst_abs = fabs(vs) > worst_abs ? fabs(vs) : worst_abs;
    }
    printf("identity  on --keys sparse (dense keys mapped): like a random function, worst |z| %.2f\n", worst_abs);

    free(cnt);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
