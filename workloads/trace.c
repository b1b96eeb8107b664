/* trace.c - see trace.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "trace.h"

static int push(struct trace *t, uint64_t *cap, unsigned op, uint64_t key)
{
    if (t->n == *cap) {
        uint64_t nc = *cap ? *cap * 2 : 4096;
        uint64_t *p = realloc(t->op, nc * sizeof *p);
        if (!p)
            return -1;
        t->op = p;
        *cap = nc;
    }
    t->op[t->n++] = (uint64_t)op << TRACE_OP_SHIFT | (key - 1);
    t->count[op]++;
    if (key > t->max_key)
        t->max_key = key;
    return 0;
}

static int parse_op(const char *s, size_t n)
{
    static const char *const names[4][2] = { { "get", "g" }, { "insert", "i" }, { "remove", "r" }, { "update", "u" } };
    for (int op = 0; op < 4; op++)
        for (int k = 0; k < 2; k++)
            if (strlen(names[op][k]) == n && strncmp(s, names[op][k], n) == 0)
                return op;
    return -1;
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* After the 8 magic bytes: the rest of the header, then count entries. The
 * count is checked against the file's size before anything is allocated (a
 * 24-byte file claiming 2^34 operations is truncated, not a 128 GiB
 * allocation); from a pipe the array grows with what actually arrives. */
static int load_binary(FILE *f, const char *path, struct trace *t, char *err, size_t len)
{
    unsigned char h[24];
    if (fread(h + 8, 1, sizeof h - 8, f) != sizeof h - 8) {
        snprintf(err, len, "--trace: '%s': binary header truncated (expected 24 bytes)", path);
        return -1;
    }
    uint32_t version = (uint32_t)(h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24);
    uint64_t count = le64(h + 16);
    if (version != 1) {
        snprintf(err, len, "--trace: '%s': binary trace version %u, expected 1", path, version);
        return -1;
    }
    if (count == 0 || count > (1ull << 34)) {
        snprintf(err, len, "--trace: '%s': binary trace holds %llu operations, expected 1..2^34", path,
                 (unsigned long long)count);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        uint64_t held = st.st_size > 24 ? ((uint64_t)st.st_size - 24) / 8 : 0;
        if (held < count) {
            snprintf(err, len, "--trace: '%s': truncated trace: the header claims %llu operations, the file's %lld "
                     "bytes hold %llu", path, (unsigned long long)count, (long long)st.st_size,
                     (unsigned long long)held);
            return -1;
        }
    }
    uint64_t cap = 0;
    unsigned char b[8];
    for (uint64_t i = 0; i < count; i++) {
        if (fread(b, 1, 8, f) != 8) {
            snprintf(err, len, "--trace: '%s': truncated trace: it ends at operation %llu of the %llu its header "
                     "claims", path, (unsigned long long)i + 1, (unsigned long long)count);
            return -1;
        }
        uint64_t e = le64(b);
        unsigned op = (unsigned)(e >> TRACE_OP_SHIFT);
        if (op > TRACE_UPD) {
            snprintf(err, len, "--trace: '%s': operation %llu has op code %u (expected 0..3)", path,
                     (unsigned long long)i + 1, op);
            return -1;
        }
        if (push(t, &cap, op, (e & (TRACE_KEY_MAX - 1)) + 1) != 0) {
            snprintf(err, len, "--trace: '%s': out of memory at operation %llu of %llu", path,
                     (unsigned long long)i + 1, (unsigned long long)count);
            return -1;
        }
    }
    if (fread(b, 1, 1, f) != 0) {
        snprintf(err, len, "--trace: '%s': trailing bytes after %llu operations", path, (unsigned long long)count);
        return -1;
    }
    return 0;
}

/* A text trace from a pipe: the bytes read to look for the binary magic
 * cannot be put back with rewind(), so the text reader gets a stream that
 * yields them first, then the rest. */
struct probed {
    FILE *f;
    char head[8];
    size_t n, at;
};

static ssize_t probed_read(void *cookie, char *buf, size_t size)
{
    struct probed *p = cookie;
    size_t k = 0;
    while (k < size && p->at < p->n)
        buf[k++] = p->head[p->at++];
    if (k < size)
        k += fread(buf + k, 1, size - k, p->f);
    return (ssize_t)k;
}

static int load_text(FILE *f, const char *path, struct trace *t, char *err, size_t len)
{
    char *line = NULL;
    size_t cap_line = 0;
    uint64_t cap = 0, lineno = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap_line, f)) >= 0) {
        lineno++;
        if ((size_t)got != strlen(line)) {
            snprintf(err, len, "--trace: '%s' line %llu: a NUL byte (a binary file without the CHTTRACE header?)",
                     path, (unsigned long long)lineno);
            rc = -1;
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        char *op_end = p;
        while (*op_end && !isspace((unsigned char)*op_end))
            op_end++;
        int op = parse_op(p, (size_t)(op_end - p));
        char *k = op_end;
        while (*k == ' ' || *k == '\t')
            k++;
        char *end = NULL;
        errno = 0;
        unsigned long long key = isdigit((unsigned char)*k) ? strtoull(k, &end, 10) : 0;
        while (end && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
            end++;
        if (op < 0) {
            snprintf(err, len, "--trace: '%s' line %llu: unknown operation '%.*s' (expected get|insert|remove|update)",
                     path, (unsigned long long)lineno, (int)(op_end - p > 20 ? 20 : op_end - p), p);
            rc = -1;
            break;
        }
        if (!end || *end || errno || key < 1 || key > TRACE_KEY_MAX) {
            snprintf(err, len, "--trace: '%s' line %llu: expected 'OP KEY' with KEY in 1..2^61", path,
                     (unsigned long long)lineno);
            rc = -1;
            break;
        }
        if (push(t, &cap, (unsigned)op, key) != 0) {
            snprintf(err, len, "--trace: '%s': out of memory at line %llu", path, (unsigned long long)lineno);
            rc = -1;
            break;
        }
    }
    free(line);
    if (rc == 0 && t->n == 0) {
        snprintf(err, len, "--trace: '%s' holds no operation", path);
        rc = -1;
    }
    return rc;
}

int trace_load(const char *path, struct trace *t, char *err, size_t len)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "--trace: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct probed pr = { .f = f };
    pr.n = fread(pr.head, 1, sizeof pr.head, f);
    int rc;
    if (pr.n == 8 && memcmp(pr.head, TRACE_MAGIC, 8) == 0) {
        rc = load_binary(f, path, t, err, len);
    } else {
        cookie_io_functions_t io = { .read = probed_read };
        FILE *text = fopencookie(&pr, "r", io);
        if (!text) {
            snprintf(err, len, "--trace: cannot read '%s': %s", path, strerror(errno));
            rc = -1;
        } else {
            rc = load_text(text, path, t, err, len);
            fclose(text);
        }
    }
    fclose(f);
    if (rc != 0)
        trace_free(t);
    return rc;
}

void trace_free(struct trace *t)
{
    free(t->op);
    memset(t, 0, sizeof *t);
}
