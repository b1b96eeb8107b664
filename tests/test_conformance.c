/*
 * test_conformance.c - the suite every registered table must pass: a thin
 * caller of the checks in src/check/ (check.h), which `chtbench check`
 * runs too (docs/cli.md "chtbench check").
 *
 *   test_conformance MODE TABLE[:opts] [VALUE_SIZE] [keys=KEYTYPE]
 *
 * MODE: model | disjoint | stable | stress | values | steady | versions (src/check/
 * says what each checks). VALUE_SIZE: cht_config.value_size in bytes
 * (default 8; over 8 only for tables with CHT_CAP_VALUE_OOL, which then
 * store and read back every word of each value). keys=KEYTYPE (a --key-type other than u64): the
 * table's byte-key ops, each check's integer key k mapped to key k of a key arena (src/keys_bytes.h).
 * Scale with CHT_TEST_SCALE (percent, default 100; sanitizer builds use less).
 * Exit 0 pass (or the check does not apply), 1 fail, 2 usage, 77 skip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "registry.h"
#include "plugin.h"
#include "keys_bytes.h"

static struct table_choice choice;

int main(int argc, char **argv)
{
    struct key_type keys = { 0 };
    if (argc >= 4 && strncmp(argv[argc - 1], "keys=", 5) == 0) {
        char kerr[256];
        if (key_type_parse(argv[argc - 1] + 5, &keys, kerr, sizeof kerr) != 0) {
            fprintf(stderr, "%s\n", kerr);
            return 2;
        }
        argc--;
    }
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s model|disjoint|stable|stress|values|steady|versions TABLE[:opts] [VALUE_SIZE] "
                "[keys=KEYTYPE]\n", argv[0]);
        return 2;
    }
    unsigned kind = 0;
    while (check_kind_name(kind) && strcmp(check_kind_name(kind), argv[1]) != 0)
        kind++;
    if (!check_kind_name(kind)) {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    char err[512];
    if (plugin_load_all(1, argv) != 0)   /* default plugins and CHTBENCH_PLUGINS: their tables too */
        return 1;
    if (registry_parse_table(argv[2], &choice, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const struct cht_ops *ops = choice.ops;
    size_t value_size = 8;
    if (argc == 4) {
        char *end;
        unsigned long long vs = strtoull(argv[3], &end, 10);
        if (*end || vs < 8 || vs > CHT_VALUE_MAX) {
            fprintf(stderr, "VALUE_SIZE: expected 8..%u bytes (got '%s')\n", CHT_VALUE_MAX, argv[3]);
            return 2;
        }
        if (vs > 8 && !(ops->caps & CHT_CAP_VALUE_OOL)) {
            fprintf(stderr, "%s: no CHT_CAP_VALUE_OOL, cannot store %llu-byte values\n", ops->name, vs);
            return 2;
        }
        value_size = (size_t)vs;
    }
    char why[256];
    if (!registry_choice_available(&choice, why, sizeof why)) {
        if ((ops->caps & CHT_CAP_NEEDS_RTM) && UNDER_TSAN) {
            /* a TSan build never uses RTM (locks/rtm.c): test the fallback path */
            printf("%s: %s; testing the fallback path\n", ops->name, why);
        } else {
            printf("SKIP %s: %s\n", ops->name, why);
            return 77;      /* meson's skip code */
        }
    }
    unsigned scale = 100;
    const char *s = getenv("CHT_TEST_SCALE");
    if (s && atoi(s) > 0)
        scale = (unsigned)atoi(s);
    if (keys.kind != KEYTYPE_U64) {
        if (!(ops->caps & CHT_CAP_BYTE_KEYS)) {
            fprintf(stderr, "keys=%s: %s has no byte-string keys (CHT_CAP_BYTE_KEYS)\n", keys.name, ops->name);
            return 2;
        }
        /* the checks' keys lie in [1, 2^17) (their ranges are at most 20000 plus the thread count) */
        const struct key_arena *arena = key_arena_for(&keys, 1u << 17, err, sizeof err);
        if (!arena) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        ops = bytekeys_wrap(ops, arena);
    }
    struct check_ctx c = { .choice = &choice, .ops = ops, .spec = argv[2], .value_size = value_size,
                           .scale_pct = scale, .log = stdout, .fail_log = stderr };
    enum check_verdict v = check_table(&c, (enum check_kind)kind);
    if (v == CHECK_FAIL) {
        fprintf(stderr, "%s %s: %d checks failed; first: %s\n", argv[1], choice.text, c.failures, c.detail);
        return 1;
    }
    return 0;
}
