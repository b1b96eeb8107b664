/*
 * keys_bytes.h - byte-string keys (--key-type; docs/workloads.md "Byte-string keys").
 *
 * The driver draws integer keys k of [1, r] exactly as with u64 keys (so every
 * distribution is unchanged); a byte-key run maps each k to a byte string of a
 * key arena built before the table is created, off the clock: one contiguous
 * buffer and r + 1 offsets. Every format is deterministic in k, and the arena
 * holds r distinct strings (checked while it is built: a collision takes the
 * next attempt of that k's generator, so the outcome is deterministic too).
 * The table sees the strings only (cht_ops.*_bytes); the adapter
 * (src/run/bytekeys.c) presents it to the runner, the final check and the
 * conformance checks as integer ops on k.
 */
#ifndef CHT_KEYS_BYTES_H
#define CHT_KEYS_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cht.h"

enum key_type_kind { KEYTYPE_U64 = 0, KEYTYPE_BYTES, KEYTYPE_YCSB, KEYTYPE_WORDS };

/* --key-type, parsed */
struct key_type {
    enum key_type_kind kind;
    uint32_t len_min, len_max;     /* KEYTYPE_BYTES: the lengths (equal: fixed) */
    char name[32];                 /* as the column key_type writes it: u64, bytes:16, bytes:8..32, ycsb, words */
};

#define KEYTYPE_BYTES_MAX 1024     /* the longest bytes:LEN */
#define KEYTYPE_YCSB_MAX 32        /* "user" + at most 20 characters of a signed 64-bit decimal + a retry suffix */
#define KEYTYPE_WORDS_MIN 3        /* a word's letters */
#define KEYTYPE_WORDS_MAX 32       /* ... with a retry suffix */

/* Parses "u64", "bytes:LEN", "bytes:MIN..MAX", "ycsb", "words"; 0, or -1 with err set. */
int key_type_parse(const char *s, struct key_type *kt, char *err, size_t len);
/* The column's text ("u64" for a zeroed struct). */
const char *key_type_label(const struct key_type *kt);
/* The shortest and longest key a format gives. */
void key_type_lengths(const struct key_type *kt, uint32_t *min, uint32_t *max);
/* Whether the format has at least n distinct keys; if not, *why says so. */
bool key_type_holds(const struct key_type *kt, uint64_t n, char *why, size_t len);

/* k's key (k >= 1) at generator attempt `attempt` (0 first) into out (room for the format's
 * longest key); its length. */
size_t key_type_generate(const struct key_type *kt, uint64_t k, unsigned attempt, uint8_t *out);
/* YCSB's key number hash: Utils.fnvhash64 (FNV-1 over the 8 little-endian bytes, then Math.abs). */
int64_t key_ycsb_fnvhash64(int64_t keynum);

struct key_arena {
    struct key_type kt;
    uint64_t n;                    /* keys 1..n */
    uint8_t *bytes;                /* key k: bytes + off[k - 1], off[k] - off[k - 1] bytes */
    uint64_t *off;                 /* n + 1 offsets */
    uint32_t len_min, len_max;     /* of the keys built */
    uint64_t retries;              /* keys whose first attempt collided with an earlier key */
};

/* Builds the arena of keys 1..n; 0, or -1 with err set (out of memory) and nothing kept. */
int key_arena_build(struct key_arena *a, const struct key_type *kt, uint64_t n, char *err, size_t len);
void key_arena_free(struct key_arena *a);

static inline const uint8_t *key_arena_key(const struct key_arena *a, uint64_t k) { return a->bytes + a->off[k - 1]; }
static inline size_t key_arena_len(const struct key_arena *a, uint64_t k) { return a->off[k] - a->off[k - 1]; }

/* The arena of the run's key type for keys 1..n, built on first use and kept while later runs ask
 * for the same (one per process); NULL with err set when it cannot be built. */
const struct key_arena *key_arena_for(const struct key_type *kt, uint64_t n, char *err, size_t len);

/* src/run/bytekeys.c: the ops that run the byte-key table `inner` (CHT_CAP_BYTE_KEYS) with integer
 * keys 1..a->n, each op the table's *_bytes op on k's key in the arena (create() tells the table
 * the key kind and lengths). One wrapped table type at a time per process (statics); no batched,
 * pipelined or probe ops (the runner falls back to single ops). */
const struct cht_ops *bytekeys_wrap(const struct cht_ops *inner, const struct key_arena *a);

#endif
