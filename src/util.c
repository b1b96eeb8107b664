/* util.c - number parsing and summaries for the driver. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static bool parse_u64(const char *s, const char **end, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno)
        return false;
    *out = v;
    *end = e;
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
        if (!parse_u64(p + 1, &q, &e) || *q)
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
    if (!s || !*s)
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
