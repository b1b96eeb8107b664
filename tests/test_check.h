/* test_check.h - what the C tests share: CHECK (counts failures, stops after
 * 20) and the CHT_TEST_SCALE scaling of iteration counts (percent; the
 * sanitizer builds run less). Include once per test program. */
#ifndef CHT_TEST_CHECK_H
#define CHT_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
static unsigned scale_pct = 100;

#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                              \
            fprintf(stderr, "\n");                                     \
            if (++failures > 20) exit(1);                              \
        }                                                              \
    } while (0)

static inline uint64_t scaled(uint64_t n)
{
    uint64_t s = n * scale_pct / 100;
    return s ? s : 1;
}

#endif
