/* util.c - number parsing and summaries for the driver. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* The number grammar of every flag and option (docs/cli.md "Numbers"):
 * decimal digits, nothing before them - no sign, no blank - and an overflow
 * is an error, never a wrap. */
static bool parse_u64(const char *s, const char **end, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    *end = s;
    return true;
}

bool parse_uint(const char *s, uint64_t *out)
{
    const char *p;
    uint64_t v;
    if (!s || !parse_u64(s, &p, &v) || *p)
        return false;
    *out = v;
    return true;
}

bool parse_size(const char *s, uint64_t *out)
{
    const char *p;
    uint64_t v;
    if (!s || !parse_u64(s, &p, &v))
        return false;
    if (*p == '^') {                       /* B^E */
        uint64_t e;
        const char *q;
        /* an exponent above 64 overflows any base above 1, and would make 0^E and 1^E loops of 2^64 steps */
        if (!parse_u64(p + 1, &q, &e) || *q || e > 64)
            return false;
        uint64_t r = 1;
        for (uint64_t i = 0; i < e; i++) {
            if (v && r > UINT64_MAX / v)
                return false;
            r *= v;
        }
        *out = r;
        return true;
    }
    unsigned shift = 0;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return false;
    }
    if (shift && p[1])
        return false;
    if (shift && v > (UINT64_MAX >> shift))
        return false;
    *out = v << shift;
    return true;
}

int list_split(const char *s, char *buf, size_t cap, const char **items, int max, bool keyed, char *why,
               size_t wlen)
{
    size_t n = s ? strlen(s) : 0;
    if (!n) {
        snprintf(why, wlen, "an empty list");
        return -1;
    }
    if (n >= cap) {
        snprintf(why, wlen, "a list longer than %zu characters", cap - 1);
        return -1;
    }
    memcpy(buf, s, n + 1);
    int count = 0;
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p) {
            snprintf(why, wlen, "an empty item");
            return -1;
        }
        if (count == max) {
            snprintf(why, wlen, "more than %d items", max);
            return -1;
        }
        if (keyed) {
            size_t kl = strcspn(p, "=");
            for (int i = 0; i < count; i++)
                if (strncmp(items[i], p, kl) == 0 && (items[i][kl] == '=' || items[i][kl] == '\0')) {
                    snprintf(why, wlen, "'%.*s' given twice", (int)(kl > 40 ? 40 : kl), p);
                    return -1;
                }
        }
        items[count++] = p;
        if (!comma)
            break;
        p = comma + 1;
    }
    return count;
}

int parse_uint_list(const char *s, unsigned lo, unsigned hi, unsigned **out)
{
    unsigned cap = 8, n = 0;
    unsigned *v = malloc(cap * sizeof *v);
    const char *p = s;
    if (!v || !*s)
        goto bad;
    for (;;) {
        uint64_t a, b;
        if (!parse_u64(p, &p, &a))
            goto bad;
        b = a;
        if (*p == '-') {
            if (!parse_u64(p + 1, &p, &b) || b < a)
                goto bad;
        }
        if (a < lo || b > hi)
            goto bad;
        for (uint64_t x = a; x <= b; x++) {
            if (n == cap) {
                unsigned *nv = realloc(v, (cap *= 2) * sizeof *v);
                if (!nv)
                    goto bad;
                v = nv;
            }
            v[n++] = (unsigned)x;
        }
        if (*p == '\0')
            break;
        if (*p != ',')
            goto bad;
        p++;
    }
    *out = v;
    return (int)n;
bad:
    free(v);
    return -1;
}

bool parse_double(const char *s, double *out)
{
    /* digits[.digits][e[+-]digits] or .digits[...]: strtod alone would take a sign, blanks, hex, inf and nan */
    if (!s)
        return false;
    const char *p = s;
    size_t digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return false;
    char *e;
    errno = 0;
    double d = strtod(s, &e);
    if (errno || *e || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void summarize(double *v, unsigned n, struct summary *s)
{
    memset(s, 0, sizeof *s);
    if (!n)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    s->min = v[0];
    s->max = v[n - 1];
    s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    double sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += v[i];
    s->mean = sum / n;
    double ss = 0;
    for (unsigned i = 0; i < n; i++)
        ss += (v[i] - s->mean) * (v[i] - s->mean);
    s->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
}
