/*
 * keys_dump.c - prints the key arena of a --key-type (src/keys_bytes.h) for
 * tests/test_byte_keys.py: one line per key k of 1..N, "k len hex".
 *
 *   keys_dump KEYTYPE N [FIRST LAST]   keys FIRST..LAST (default 1..N) of the arena of N keys
 *
 * The last line is "retries R": keys whose first attempt collided with an earlier key.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "keys_bytes.h"

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s KEYTYPE N [FIRST LAST]\n", argv[0]);
        return 2;
    }
    struct key_type kt;
    char err[256];
    if (key_type_parse(argv[1], &kt, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    uint64_t first = argc == 5 ? strtoull(argv[3], NULL, 10) : 1, last = argc == 5 ? strtoull(argv[4], NULL, 10) : n;
    if (!n || !first || first > last || last > n) {
        fprintf(stderr, "N >= 1 and 1 <= FIRST <= LAST <= N\n");
        return 2;
    }
    struct key_arena a;
    if (key_arena_build(&a, &kt, n, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (uint64_t k = first; k <= last; k++) {
        const uint8_t *p = key_arena_key(&a, k);
        size_t len = key_arena_len(&a, k);
        printf("%" PRIu64 " %zu ", k, len);
        for (size_t i = 0; i < len; i++)
            printf("%02x", p[i]);
        putchar('\n');
    }
    printf("retries %" PRIu64 "\n", a.retries);
    key_arena_free(&a);
    return 0;
}
