/*
 * cht_hash.h - key hashing shared by the tables.
 *
 * The driver's keys are dense integers, so identity hashing would make every
 * table look better than it is on real keys (and makes some, e.g. upstream
 * CLHT-lf, hang). Every table hashes with a real 64-bit mixer by default and
 * offers `hash=identity` only to reproduce upstream numbers.
 *
 * Option hash=fold|mix|identity (CHT_HASH_OPTION; tables start from
 * CHT_HASH_DEFAULT and parse with cht_hash_names):
 *   fold      (default) one 64x64->128-bit multiply of the key by an odd
 *             constant, the two 64-bit halves of the product xored together -
 *             the "multiply and fold the halves" mixer (MUM hashing, V.
 *             Makarov 2016; the `mix` step of wyhash, Wang Yi 2019; the core of
 *             rapidhash) - and then the upper half folded onto the lower once
 *             more: t ^ (t >> 32). One `mul` (both halves at once on x86-64 and
 *             AArch64), three cheap ALU ops, ~7 cycles of latency, no second
 *             multiply. Why the last step: the bare fold leaves the low bits
 *             (the bucket index) to the product's bits 64.., which for keys
 *             varying only in a window of bits (k << 32, k << 3, ...) are a
 *             multiplicative hash with the constant truncated, and for some
 *             windows that clusters badly (measured: 6x the collisions of a
 *             random function for k << 32 at 2^16 buckets; tests/test_hash.c
 *             fails it with the golden ratio's multiplier and with five of six
 *             other well-known ones; the sixth, wyhash's, passes it but fails
 *             20 cells of a sweep of strides 2^0..2^55 at 2^4..2^20 buckets).
 *             Folding bits 32..63 down adds the product's low half, where such
 *             keys vary bijectively; with the golden-ratio constant the same
 *             sweep has no failing cell. Tested
 *             over dense, strided (2^1..2^32), high-bit and random keys at
 *             2^4..2^18 buckets (tests/test_hash.c). Keys are >= 1 (cht.h), so
 *             fold(0) = 0 does not matter. Rows of CSV table schema <= 5 used
 *             (k ^ C1) * C2 and t ^ (t >> 24) ^ (t >> 40): two more cycles and
 *             three more instructions on every op, for no measured gain in
 *             quality (docs/cli.md "What the default hash costs").
 *   mix       Murmur3's 64-bit finaliser (A. Appleby, fmix64): full
 *             avalanche, two dependent multiplies and three shift-xors, ~12
 *             cycles of latency. The default before the fold hash.
 *   identity  the key itself (reproduces upstream benchmarks; weak: strided
 *             keys or keys differing only in their high bits all collide).
 * Quality is tested, not assumed: tests/test_hash.c (bucket-load chi-square
 * for dense, strided, high-bit-only and random keys at several table sizes,
 * low bits as the index; it also shows that identity fails).
 */
#ifndef CHT_HASH_H
#define CHT_HASH_H

#include <stdint.h>
#include "cht.h"

enum cht_hash_kind { CHT_HASH_FOLD = 0, CHT_HASH_MIX = 1, CHT_HASH_IDENTITY = 2 };

#define CHT_HASH_DEFAULT CHT_HASH_FOLD

/* option names, indexed by enum cht_hash_kind */
static const char *const cht_hash_names[] = { "fold", "mix", "identity", NULL };

/* Multiply and fold: t = lo ^ hi of the 128-bit product k * C, then
 * t ^ (t >> 32) (see above). C is 2^64 / golden ratio (Knuth's multiplicative
 * / Fibonacci hashing constant): odd, bits well spread. */
static inline uint64_t cht_hash_fold(uint64_t k)
{
    unsigned __int128 p = (unsigned __int128)k * 0x9e3779b97f4a7c15ull;
    uint64_t t = (uint64_t)p ^ (uint64_t)(p >> 64);
    return t ^ (t >> 32);
}

/* Murmur3's 64-bit finaliser: full avalanche, ~12 cycles of latency. */
static inline uint64_t cht_hash_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static inline uint64_t cht_hash(enum cht_hash_kind kind, uint64_t k)
{
    if (__builtin_expect(kind == CHT_HASH_FOLD, 1))
        return cht_hash_fold(k);
    return kind == CHT_HASH_IDENTITY ? k : cht_hash_mix(k);
}

/* A second, independent hash (for cuckoo-style tables): mixes with other constants. */
static inline uint64_t cht_hash_mix2(uint64_t k)
{
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ull;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebull;
    k ^= k >> 31;
    return k;
}

#define CHT_HASH_OPTION                                                                          \
    { "hash", "fold|mix|identity: key hash (default fold: one 128-bit multiply and a fold; mix: "    \
              "Murmur3 finaliser; identity reproduces upstream numbers)" }

#endif
