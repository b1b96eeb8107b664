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
 *   fold      (default) one 64x64->128-bit multiply of the key (xored with a
 *             constant) by an odd constant, then the two 64-bit halves of the
 *             product xored together: the "multiply and fold the halves"
 *             mixer (MUM hashing, V. Makarov 2016; the `mix` step of
 *             wyhash, Wang Yi 2019; also the core of rapidhash). The low half
 *             carries the low key bits (a bijection on every low-bit prefix),
 *             the high half carries every key bit through the carries, so the
 *             low bits of the result - the bucket index - depend on all key
 *             bits. One `mul` (3-4 cycles, both halves at once on x86-64 and
 *             AArch64) plus two xors: ~5 cycles of latency.
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

/* Multiply and fold: lo ^ hi of the 128-bit product (k ^ C1) * C2. C1 (an
 * arbitrary constant with mixed bits) keeps small keys off the degenerate
 * products 0 and C2; C2 is 2^64 / golden ratio (Knuth's multiplicative /
 * Fibonacci hashing constant): odd, bits well spread. */
static inline uint64_t cht_hash_fold(uint64_t k)
{
    unsigned __int128 p = (unsigned __int128)(k ^ 0x2d358dccaa6c78a5ull) * 0x9e3779b97f4a7c15ull;
    uint64_t t = (uint64_t)p ^ (uint64_t)(p >> 64);
    return t ^ (t >> 24) ^ (t >> 40);
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
    { "hash", "fold|mix|identity: key hash (default fold: multiply and fold, ~5 cycles; mix: "    \
              "Murmur3 finaliser; identity reproduces upstream numbers)" }

#endif
