/*
 * outfile.h - the results files of one invocation (--csv, --latency-csv,
 * --timeline-csv), opened and checked before anything runs.
 *
 * A results file is never corrupted: it is a regular file on a real file
 * system (no FIFO, device, /proc or /sys file), its first line is exactly the
 * header this chtbench writes (another schema, a lock-bench, latency or
 * timeline file, or a foreign CSV is a usage error naming both), two flags
 * never name the same file, and every row goes out in one write() under an
 * exclusive flock, starting on a new line even if the file's last line was
 * torn. A file this invocation created and never wrote is removed again.
 */
#ifndef CHT_OUTFILE_H
#define CHT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct outfile {
    const char *flag;       /* "--csv", for messages */
    const char *path;       /* "-": standard output */
    const char *header;     /* the header line this invocation writes, with its '\n' */
    const char *kind;       /* what the header is, e.g. "chtbench table CSV, schema 4" */
    int fd;                 /* -1: not open */
    bool is_stdout, created, wrote, header_done;
    dev_t dev;
    ino_t ino;
};

/* Opens (creating if needed) and checks one results file. Returns 0, or -1
 * with err set to a one-line message naming the flag (a usage error). */
int outfile_open(struct outfile *o, const char *flag, const char *path, const char *header, const char *kind,
                 char *err, size_t len);
/* Two open files that are the same file (or both standard output). */
bool outfile_same(const struct outfile *a, const struct outfile *b);
/* Appends body (whole lines) under the lock, the header first when the file is
 * empty. Returns 0, or -1 with err set (I/O error, or the header changed). */
int outfile_append(struct outfile *o, const char *body, size_t n, char *err, size_t len);
/* Closes; removes the file when this invocation created it and wrote nothing. */
void outfile_close(struct outfile *o);

/* What a CSV header line (and its first data row, may be NULL) is, in words:
 * "chtbench table CSV, schema 3", "a foreign CSV (first column 'x')", ... */
void outfile_describe(const char *header, const char *first_row, char *buf, size_t len);

#endif
