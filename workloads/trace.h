/*
 * trace.h - recorded operation traces for --trace (docs/cli.md "Workloads").
 *
 * Text format: one operation per line, "OP KEY", OP one of get|insert|
 * remove|update (or g|i|r|u), KEY a decimal integer in 1..2^61; blank lines
 * and lines starting with '#' are skipped. Binary format: the 8 bytes
 * "CHTTRACE", a little-endian uint32 version (1), a uint32 0, a uint64 count,
 * then count little-endian uint64 entries, each (OP << 61) | (KEY - 1) with
 * OP 0 get, 1 insert, 2 remove, 3 update. scripts/trace-convert converts.
 */
#ifndef CHT_TRACE_H
#define CHT_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum { TRACE_GET = 0, TRACE_INS = 1, TRACE_REM = 2, TRACE_UPD = 3 };
#define TRACE_OP_SHIFT 61
#define TRACE_KEY_MAX (1ull << 61)
#define TRACE_MAGIC "CHTTRACE"

struct trace {
    uint64_t *op;            /* (OP << 61) | (KEY - 1) */
    uint64_t n;
    uint64_t max_key;
    uint64_t count[4];       /* per op */
};

/* Reads a text or binary trace (detected by the magic). Returns 0, or -1
 * with err set to one line naming --trace, the file and, for text, the line. */
int trace_load(const char *path, struct trace *t, char *err, size_t len);
void trace_free(struct trace *t);

#endif
