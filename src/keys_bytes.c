/*
 * keys_bytes.c - the byte-string key formats of --key-type and the key arena
 * (keys_bytes.h; docs/workloads.md "Byte-string keys").
 *
 *   ycsb            "user" + the decimal of YCSB's key hash of key number k - 1
 *                   (CoreWorkload.buildKeyName with insertorder=hashed and
 *                   zeropadding=1: Utils.hash = fnvhash64, FNV-1 over the number's
 *                   8 bytes, low byte first, then Java's Math.abs, under which
 *                   Long.MIN_VALUE stays negative). Key number k - 1: the keys of
 *                   [1, r] are YCSB's records 0 .. r - 1.
 *   bytes:LEN       LEN bytes: the first min(LEN, 8) a bijection of k - 1 on that
 *                   many bytes (distinct by construction), the rest pseudo-random in k.
 *   bytes:MIN..MAX  a length uniform in MIN..MAX (pseudo-random in k), then as bytes:LEN.
 *   words           a pronounceable lower-case word from the letter bigram model below.
 *
 * A collision with an earlier key (only words, bytes:MIN..MAX with MIN < 8, and
 * an FNV collision of ycsb) takes the generator's next attempt for that key:
 * the keys are built in the order 1..n, so the outcome is deterministic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys_bytes.h"

/* ---------------- parsing ---------------- */

static bool parse_u32(const char *s, const char *end, uint32_t *out)
{
    if (s == end || end - s > 9)
        return false;
    uint32_t v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint32_t)(*s - '0');
    }
    *out = v;
    return true;
}

int key_type_parse(const char *s, struct key_type *kt, char *err, size_t len)
{
    struct key_type t = { 0 };
    if (strcmp(s, "u64") == 0) {
        t.kind = KEYTYPE_U64;
    } else if (strcmp(s, "ycsb") == 0) {
        t.kind = KEYTYPE_YCSB;
    } else if (strcmp(s, "words") == 0) {
        t.kind = KEYTYPE_WORDS;
    } else if (strncmp(s, "bytes:", 6) == 0) {
        const char *a = s + 6, *dots = strstr(a, ".."), *end = a + strlen(a);
        t.kind = KEYTYPE_BYTES;
        bool ok = dots ? parse_u32(a, dots, &t.len_min) && parse_u32(dots + 2, end, &t.len_max)
                       : parse_u32(a, end, &t.len_min);
        if (!dots)
            t.len_max = t.len_min;
        if (!ok || t.len_min < 1 || t.len_max > KEYTYPE_BYTES_MAX || t.len_min > t.len_max) {
            snprintf(err, len, "--key-type: '%s': expected bytes:LEN or bytes:MIN..MAX with 1 <= MIN <= MAX <= %u",
                     s, KEYTYPE_BYTES_MAX);
            return -1;
        }
    } else {
        snprintf(err, len, "--key-type: '%s': expected u64, bytes:LEN, bytes:MIN..MAX, ycsb or words", s);
        return -1;
    }
    if (t.kind == KEYTYPE_BYTES && t.len_min != t.len_max)
        snprintf(t.name, sizeof t.name, "bytes:%" PRIu32 "..%" PRIu32, t.len_min, t.len_max);
    else if (t.kind == KEYTYPE_BYTES)
        snprintf(t.name, sizeof t.name, "bytes:%" PRIu32, t.len_min);
    else
        snprintf(t.name, sizeof t.name, "%s", s);
    *kt = t;
    return 0;
}

const char *key_type_label(const struct key_type *kt)
{
    return kt->kind == KEYTYPE_U64 ? "u64" : kt->name;
}

void key_type_lengths(const struct key_type *kt, uint32_t *min, uint32_t *max)
{
    switch (kt->kind) {
    case KEYTYPE_BYTES: *min = kt->len_min, *max = kt->len_max; break;
    case KEYTYPE_YCSB: *min = 5, *max = KEYTYPE_YCSB_MAX; break;
    case KEYTYPE_WORDS: *min = KEYTYPE_WORDS_MIN, *max = KEYTYPE_WORDS_MAX; break;
    default: *min = *max = 8;
    }
}

bool key_type_holds(const struct key_type *kt, uint64_t n, char *why, size_t len)
{
    if (kt->kind != KEYTYPE_BYTES || kt->len_max >= 8)
        return true;
    uint64_t distinct = 0;               /* strings of len_min..len_max bytes (< 2^56 each) */
    for (uint32_t l = kt->len_min; l <= kt->len_max; l++)
        distinct += 1ull << (8 * l);
    if (distinct >= n)
        return true;
    snprintf(why, len, "%s has %" PRIu64 " distinct keys, fewer than the %" PRIu64 " of the key range", kt->name,
             distinct, n);
    return false;
}

/* ---------------- generators ---------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t key_ycsb_fnvhash64(int64_t keynum)
{
    uint64_t h = 0xcbf29ce484222325ull, v = (uint64_t)keynum;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        v >>= 8;                  /* Java's >> on a key number >= 0: the same */
        h *= 1099511628211ull;
    }
    int64_t s = (int64_t)h;
    return s == INT64_MIN ? s : s < 0 ? -s : s;   /* Math.abs: Long.MIN_VALUE stays negative */
}

static size_t gen_ycsb(uint64_t k, unsigned attempt, uint8_t *out)
{
    int n = snprintf((char *)out, KEYTYPE_YCSB_MAX + 1, "user%" PRId64, key_ycsb_fnvhash64((int64_t)(k - 1)));
    if (attempt)
        n += snprintf((char *)out + n, KEYTYPE_YCSB_MAX + 1 - (size_t)n, "-%u", attempt);
    return (size_t)n;
}

/* a bijection of [0, 2^bits) (bits 8..64): odd multiplies and xor-shifts within the width */
static uint64_t permute_bits(uint64_t x, unsigned bits)
{
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    const unsigned sh = bits / 2;
    x = (x * 0x9e3779b97f4a7c15ull) & mask;
    x ^= x >> sh;
    x = (x * 0xd6e8feb86659fd93ull) & mask;
    x ^= x >> sh;
    return x;
}

static size_t gen_bytes(const struct key_type *kt, uint64_t k, unsigned attempt, uint8_t *out)
{
    uint64_t st = k * 0xa0761d6478bd642full ^ (uint64_t)attempt << 56 ^ 0x6b6579735f627974ull;
    uint32_t l = kt->len_min;
    if (kt->len_max > kt->len_min)
        l += (uint32_t)(splitmix(&st) % (kt->len_max - kt->len_min + 1));
    const unsigned head = l < 8 ? l : 8;
    /* attempt 0: the bijection (distinct for distinct k at one length); a retry: random */
    uint64_t x = attempt ? splitmix(&st) : permute_bits((k - 1) & (head == 8 ? ~0ull : (1ull << (8 * head)) - 1),
                                                        8 * head);
    for (unsigned i = 0; i < head; i++)
        out[i] = (uint8_t)(x >> (8 * i));
    for (uint32_t i = head; i < l; i += 8) {
        uint64_t r = splitmix(&st);
        for (uint32_t j = 0; j < 8 && i + j < l; j++)
            out[i + j] = (uint8_t)(r >> (8 * j));
    }
    return l;
}

/*
 * The word model: a first-order Markov chain over letters. Each string lists
 * the letters that may follow a letter (a: "nnnr..."), each as many times as
 * its weight out of the string's length; a word's first letter comes from
 * word_start. Written here from English spelling habits (vowels after
 * consonant clusters, "q" before "u", "th", "sh", "ch", "ng", doubled
 * consonants rare), not fitted to a corpus. A word's length is drawn first
 * (word_lengths: 3..12 letters, weighted toward 5-7), then its letters.
 */
static const char *const word_next[26] = {
    /* a */ "nnnnrrrrttttlllsssccdmmbpgkvyiuwe",
    /* b */ "eeeaaooiiulry",
    /* c */ "ooaaeehhiitkrlu",
    /* d */ "eeeiiaaoouurys",
    /* e */ "rrrnnnsssddllattcmeavwxpgi",
    /* f */ "eeoiaurlft",
    /* g */ "eeraoihuln",
    /* h */ "eeeaaaoiiuy",
    /* i */ "nnnnttssccooaalldmgeervbfkp",
    /* j */ "uoae",
    /* k */ "eeiasnlyo",
    /* l */ "eeeiiaaollyoudst",
    /* m */ "eeaaoiipubm",
    /* n */ "ttddggeesscaoiykn",
    /* o */ "nnnrrrruuullmmwwtpsdcfoibgkv",
    /* p */ "eeraaolriuhpt",
    /* q */ "u",
    /* r */ "eeeaaiiooysuttdnmk",
    /* s */ "ttteesshiaoucpkmlw",
    /* t */ "hhheeeiiaaorruysyt",
    /* u */ "rrnnsstllcmpgbde",
    /* v */ "eeeiao",
    /* w */ "aaeeiohnr",
    /* x */ "peiat",
    /* y */ "eosaitn",
    /* z */ "eaoiz",
};
static const char word_start[] = "tttaaassscccppbbmmddffhhrrllwwiioeegnkuvjy";
static const uint8_t word_lengths[] = { 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6,
                                        7, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 10, 10, 11, 12 };

static size_t gen_word_letters(uint64_t k, unsigned attempt, uint8_t *out)
{
    uint64_t st = k * 0xe7037ed1a0b428dbull ^ (uint64_t)attempt << 58 ^ 0x776f726473ull;
    size_t l = word_lengths[splitmix(&st) % sizeof word_lengths];
    const char *from = word_start;
    for (size_t i = 0; i < l; i++) {
        char c = from[splitmix(&st) % strlen(from)];
        out[i] = (uint8_t)c;
        from = word_next[c - 'a'];
    }
    return l;
}

/* attempts 0..3: words of their own; from 4 on, attempt 0's word + '-' + k in base 26 (unique) */
static size_t gen_word(uint64_t k, unsigned attempt, uint8_t *out)
{
    if (attempt < 4)
        return gen_word_letters(k, attempt, out);
    size_t l = gen_word_letters(k, 0, out);
    out[l++] = '-';
    for (uint64_t x = k; x; x /= 26)
        out[l++] = (uint8_t)('a' + x % 26);
    return l;
}

size_t key_type_generate(const struct key_type *kt, uint64_t k, unsigned attempt, uint8_t *out)
{
    switch (kt->kind) {
    case KEYTYPE_YCSB: return gen_ycsb(k, attempt, out);
    case KEYTYPE_WORDS: return gen_word(k, attempt, out);
    case KEYTYPE_BYTES: return gen_bytes(kt, k, attempt, out);
    default: memcpy(out, &k, 8); return 8;
    }
}

/* ---------------- the arena ---------------- */

static uint64_t bytes_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;          /* FNV-1a: off the clock, any hash will do */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ h >> 29;
}

/* the distinctness check: an open-addressing set of key numbers, by their strings */
struct key_set {
    uint64_t *slot;                   /* key numbers, 0: empty */
    uint64_t mask;
};

/* inserts k (its string at a->bytes + a->off[k - 1], len bytes) unless an equal string is there */
static bool key_set_add(struct key_set *set, const struct key_arena *a, uint64_t k, size_t len)
{
    const uint8_t *p = a->bytes + a->off[k - 1];
    for (uint64_t i = bytes_hash(p, len) & set->mask;; i = (i + 1) & set->mask) {
        uint64_t j = set->slot[i];
        if (!j) {
            set->slot[i] = k;
            return true;
        }
        if (key_arena_len(a, j) == len && memcmp(a->bytes + a->off[j - 1], p, len) == 0)
            return false;
    }
}

int key_arena_build(struct key_arena *a, const struct key_type *kt, uint64_t n, char *err, size_t len)
{
    uint32_t lmin, lmax;
    key_type_lengths(kt, &lmin, &lmax);
    memset(a, 0, sizeof *a);
    a->kt = *kt;
    a->n = n;
    a->len_min = UINT32_MAX;
    uint64_t cap = n * (lmin + lmax) / 2 + lmax, slots = 2;
    while (slots < 2 * n)
        slots <<= 1;
    struct key_set set = { calloc(slots, sizeof *set.slot), slots - 1 };
    a->off = malloc((n + 1) * sizeof *a->off);
    a->bytes = malloc(cap);
    if (!set.slot || !a->off || !a->bytes)
        goto oom;
    a->off[0] = 0;
    for (uint64_t k = 1; k <= n; k++) {
        for (unsigned attempt = 0;; attempt++) {
            if (a->off[k - 1] + lmax > cap) {
                uint8_t *b = realloc(a->bytes, cap * 2);
                if (!b)
                    goto oom;
                a->bytes = b;
                cap *= 2;
            }
            size_t l = key_type_generate(kt, k, attempt, a->bytes + a->off[k - 1]);
            a->off[k] = a->off[k - 1] + l;
            if (key_set_add(&set, a, k, l)) {
                a->len_min = l < a->len_min ? (uint32_t)l : a->len_min;
                a->len_max = l > a->len_max ? (uint32_t)l : a->len_max;
                a->retries += attempt > 0;
                break;
            }
        }
    }
    free(set.slot);
    return 0;
oom:
    free(set.slot);
    key_arena_free(a);
    snprintf(err, len, "--key-type %s: out of memory for the key arena of %" PRIu64 " keys", kt->name, n);
    return -1;
}

void key_arena_free(struct key_arena *a)
{
    free(a->bytes);
    free(a->off);
    a->bytes = NULL;
    a->off = NULL;
}

const struct key_arena *key_arena_for(const struct key_type *kt, uint64_t n, char *err, size_t len)
{
    static struct key_arena kept;
    if (kept.off && kept.n == n && strcmp(kept.kt.name, kt->name) == 0)
        return &kept;
    key_arena_free(&kept);
    return key_arena_build(&kept, kt, n, err, len) == 0 ? &kept : NULL;
}
