/* util.h - small driver helpers: number parsing, clocks, CSV-safe text. */
#ifndef CHT_UTIL_H
#define CHT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "1000", "1K" / "1M" / "1G" / "1T" (binary: 2^10, 2^20, ...), "2^20", "10^6".
 * Returns false on anything else or overflow. */
bool parse_size(const char *s, uint64_t *out);

/* "1,2,4", "1-8", "1,2,4-8": ascending or not, duplicates kept in order.
 * Values must lie in [lo, hi]. Returns the count, or -1 on error; *out is malloc'ed. */
int parse_uint_list(const char *s, unsigned lo, unsigned hi, unsigned **out);

/* A decimal double; false if not a full, finite number. */
bool parse_double(const char *s, double *out);

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Descriptive statistics of n doubles (sorted in place). */
struct summary {
    double median, mean, min, max, stdev;
};
void summarize(double *v, unsigned n, struct summary *s);

#endif
