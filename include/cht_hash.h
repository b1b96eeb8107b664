/*
 * cht_hash.h - key hashing shared by the tables.
 *
 * The driver's keys are dense integers, so identity hashing would make every
 * table look better than it is on real keys (and makes some, e.g. upstream
 * CLHT-lf, hang). Every table hashes with a real 64-bit mixer by default and
 * offers `hash=identity` only to reproduce upstream numbers.
 */
#ifndef CHT_HASH_H
#define CHT_HASH_H

#include <stdint.h>
#include "cht.h"

enum cht_hash_kind { CHT_HASH_MIX = 0, CHT_HASH_IDENTITY = 1 };

static const char *const cht_hash_names[] = { "mix", "identity", NULL };

/* Murmur3's 64-bit finaliser: full avalanche, ~4 cycles. */
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

#define CHT_HASH_OPTION { "hash", "mix|identity: key hash (default mix; identity reproduces upstream numbers)" }

#endif
