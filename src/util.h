/* util.h - small driver helpers: number parsing, clocks, CSV-safe text. */
#ifndef CHT_UTIL_H
#define CHT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One number grammar for every flag and option: decimal digits only (no
 * sign, no blank), overflow is an error. parse_uint: that alone. */
bool parse_uint(const char *s, uint64_t *out);
/* parse_uint, or "1K" / "1M" / "1G" / "1T" (binary: 2^10, 2^20, ...), or
 * B^E ("2^20", "10^6"; E at most 64). Returns false on anything else or overflow. */
bool parse_size(const char *s, uint64_t *out);

/* One list grammar: s split at ',' into at most max items, pointers into buf
 * (cap bytes, a copy of s). No empty item (",16K", "a,,b", "a,"); with keyed,
 * items are key=value and no key may come twice. Returns the count, or -1
 * with why set ("an empty item", "'keys' given twice", ...). */
int list_split(const char *s, char *buf, size_t cap, const char **items, int max, bool keyed, char *why,
               size_t wlen);

/* "1,2,4", "1-8", "1,2,4-8": ascending or not, duplicates kept in order.
 * Values must lie in [lo, hi]. Returns the count, or -1 on error; *out is malloc'ed. */
int parse_uint_list(const char *s, unsigned lo, unsigned hi, unsigned **out);

/* A decimal double: digits[.digits][e[+-]digits] (no sign, no blank, no
 * hex/inf/nan); false if not a full, finite number. */
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
