/*
 * bytes_hash.h - hashing byte-string keys (--key-type) for the tables in
 * tables/ that store them (clht-str, chain).
 *
 *   cht_bytes_hash_mum   written here after the multiply-and-fold step of MUM
 *                        hashing (V. Makarov, 2016) and wyhash (Wang Yi, 2019):
 *                        each 8-byte word of the key is xored into the state and
 *                        the state multiplied 64x64->128 by an odd constant, the
 *                        product's halves folded together; the last 1..7 bytes are
 *                        one more word read in two overlapping loads (or three
 *                        single bytes); a final fold with the length, and the high
 *                        half folded onto the low (bucket indexes come from the
 *                        low bits). One multiply per 8 bytes.
 *   cht_bytes_hash_fnv1a the byte-at-a-time FNV-1a (G. Fowler, L. C. Noll,
 *                        K.-P. Vo), one multiply per byte: the classic, for
 *                        comparison.
 */
#ifndef CHT_BYTES_HASH_H
#define CHT_BYTES_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t cht_bytes_load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint32_t cht_bytes_load32(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

static inline uint64_t cht_bytes_fold(uint64_t a, uint64_t b)
{
    __uint128_t p = (__uint128_t)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t cht_bytes_hash_mum(const void *key, size_t n)
{
    const uint8_t *p = key;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t left = n;
    for (; left >= 8; left -= 8, p += 8)
        h = cht_bytes_fold(h ^ cht_bytes_load64(p), 0xe7037ed1a0b428dbull);
    if (left) {
        uint64_t w = left >= 4 ? (uint64_t)cht_bytes_load32(p) << 32 | cht_bytes_load32(p + left - 4)
                               : (uint64_t)p[0] << 16 | (uint64_t)p[left / 2] << 8 | p[left - 1];
        h = cht_bytes_fold(h ^ w, 0xa0761d6478bd642full);
    }
    h = cht_bytes_fold(h ^ n, 0x9e3779b97f4a7c15ull);
    return h ^ h >> 32;
}

static inline uint64_t cht_bytes_hash_fnv1a(const void *key, size_t n)
{
    const uint8_t *p = key;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ h >> 32;           /* FNV's low bits are weak for bucket indexes */
}

#endif
