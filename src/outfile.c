/*
 * outfile.c - results files that cannot be corrupted (see outfile.h).
 *
 * Paths are checked by opening them, not with access(): as root access()
 * says yes to /proc and /sys files, and a FIFO would block the run at its
 * first row. Opening with O_NONBLOCK makes a FIFO without a reader fail at
 * once instead of blocking; fstat()/fstatfs() then refuse anything that is
 * not a regular file on a real file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "outfile.h"

/* Pseudo file systems whose "regular files" are kernel knobs, not storage. */
static bool pseudo_fs(long type)
{
    static const long types[] = { PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC,
                                  CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, 0x62656570 /* configfs */ };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (type == types[i])
            return true;
    return false;
}

/* The first line of the file (up to cap-1 bytes, without its '\n') and the
 * second, when there is one. Returns the bytes read, or -1. */
static ssize_t read_head(int fd, char *buf, size_t cap, char **second)
{
    ssize_t n = pread(fd, buf, cap - 1, 0);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    *second = NULL;
    char *nl = strchr(buf, '\n');
    if (nl) {
        *nl = '\0';
        char *row = nl + 1, *end = strchr(row, '\n');
        if (end)
            *end = '\0';
        if (*row)
            *second = row;
    }
    return n;
}

static bool has_column(const char *header, const char *col)
{
    size_t n = strlen(col);
    for (const char *p = header; (p = strstr(p, col)) != NULL; p += n)
        if ((p == header || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

void outfile_describe(const char *header, const char *first_row, char *buf, size_t len)
{
    char version[32] = "";
    if (strncmp(header, "schema,", 7) == 0 && first_row) {
        size_t k = strcspn(first_row, ",");
        if (k > 0 && k < 16)
            snprintf(version, sizeof version, ", schema %.*s", (int)k, first_row);
    }
    const char *what = NULL;
    /* bucket: latency schema 1-2 (a row per log2 bucket); hist_log2: schema 3 (a row per class) */
    if (has_column(header, "store") && (has_column(header, "bucket") || has_column(header, "hist_log2")))
        what = "chtbench latency-histogram CSV (--latency-csv)";
    else if (has_column(header, "t_ms") && has_column(header, "table"))
        what = "chtbench timeline CSV (--timeline-csv)";
    else if (has_column(header, "bench") && has_column(header, "lock") && has_column(header, "acquisitions"))
        what = "chtbench lock-bench CSV (--bench)";
    else if (has_column(header, "table") && has_column(header, "mops") && has_column(header, "size_ok"))
        what = "chtbench table CSV (--csv)";
    else if (has_column(header, "load_target") && has_column(header, "max_load"))
        what = "chtbench occupancy CSV (--bench occupancy)";
    else if (has_column(header, "mloads_per_s") && has_column(header, "pages"))
        what = "chtbench memory-bench CSV (--bench memory)";
    if (what) {
        snprintf(buf, len, "%s%s", what, version[0] ? version : strncmp(header, "schema,", 7) ? "" : ", no rows");
        return;
    }
    size_t k = strcspn(header, ",");
    snprintf(buf, len, "a foreign file (first column '%.*s')", (int)(k > 40 ? 40 : k), header);
}

static int fail(char *err, size_t len, const char *fmt, const char *flag, const char *path, const char *why)
{
    snprintf(err, len, fmt, flag, path, why);
    return -1;
}

/* Under the lock: an empty file is fine; otherwise its first line must be our
 * header. Returns 0, or -1 with err set. */
static int check_header(struct outfile *o, off_t size, char *err, size_t len)
{
    if (size == 0)
        return 0;
    size_t hl = strlen(o->header);
    char *buf = malloc(hl + 4096);
    if (!buf)
        return fail(err, len, "%s: '%s': %s", o->flag, o->path, "out of memory");
    char *second;
    if (read_head(o->fd, buf, hl + 4096, &second) < 0) {
        int e = errno;
        free(buf);
        return fail(err, len, "%s: cannot read '%s' to check its header: %s", o->flag, o->path, strerror(e));
    }
    int rc = 0;
    if (strlen(buf) + 1 != hl || strncmp(buf, o->header, hl - 1) != 0) {
        char found[200];
        outfile_describe(buf, second, found, sizeof found);
        snprintf(err, len, "%s: '%s' is %s, not a %s: choose another file (nothing was written)", o->flag, o->path,
                 found, o->kind);
        rc = -1;
    }
    free(buf);
    return rc;
}

int outfile_open(struct outfile *o, const char *flag, const char *path, const char *header, const char *kind,
                 char *err, size_t len)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->flag = flag;
    o->path = path;
    o->header = header;
    o->kind = kind;
    if (!path || !*path)
        return fail(err, len, "%s: expected a file path%s%s", flag, "", "");
    if (strcmp(path, "-") == 0) {
        o->is_stdout = true;
        o->fd = STDOUT_FILENO;
        return 0;
    }
    int flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    int fd = open(path, flags | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        o->created = true;
    } else if (errno == EEXIST) {
        fd = open(path, flags);
    }
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO)   /* a FIFO nobody reads */
            return fail(err, len, "%s: '%s' %s", flag, path, "is a FIFO: expected a regular file");
        return fail(err, len, "%s: cannot open '%s' for appending: %s", flag, path, strerror(e));
    }
    o->fd = fd;
    struct stat st;
    struct statfs sf;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        bad = "is a directory: expected a regular file";
    else if (!S_ISREG(st.st_mode))
        bad = S_ISFIFO(st.st_mode) ? "is a FIFO: expected a regular file" : "is not a regular file";
    else if (fstatfs(fd, &sf) == 0 && pseudo_fs((long)sf.f_type))
        bad = "lies on a kernel pseudo file system (/proc, /sys, ...): expected a regular file";
    if (bad) {
        outfile_close(o);
        return fail(err, len, "%s: '%s' %s", flag, path, bad);
    }
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (flock(fd, LOCK_SH) != 0) {
        int e = errno;
        outfile_close(o);
        return fail(err, len, "%s: cannot lock '%s': %s", flag, path, strerror(e));
    }
    int rc = fstat(fd, &st) == 0 ? check_header(o, st.st_size, err, len) : -1;
    flock(fd, LOCK_UN);
    if (rc != 0)
        outfile_close(o);
    return rc;
}

bool outfile_same(const struct outfile *a, const struct outfile *b)
{
    if (a->fd < 0 || b->fd < 0)
        return false;
    if (a->is_stdout || b->is_stdout)
        return a->is_stdout && b->is_stdout;
    return a->dev == b->dev && a->ino == b->ino;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int outfile_append(struct outfile *o, const char *body, size_t n, char *err, size_t len)
{
    if (o->fd < 0)
        return fail(err, len, "%s: '%s' %s", o->flag, o->path, "is not open");
    if (o->is_stdout) {
        int rc = (o->header_done ? 0 : write_all(o->fd, o->header, strlen(o->header))) | write_all(o->fd, body, n);
        o->header_done = true;
        o->wrote = true;
        if (rc)
            return fail(err, len, "%s: cannot write to standard output%s%s", o->flag, ": ", strerror(errno));
        return 0;
    }
    if (flock(o->fd, LOCK_EX) != 0)
        return fail(err, len, "%s: cannot lock '%s': %s", o->flag, o->path, strerror(errno));
    struct stat st;
    int rc = fstat(o->fd, &st) == 0 ? 0 : -1;
    if (rc)
        snprintf(err, len, "%s: '%s': %s", o->flag, o->path, strerror(errno));
    else
        rc = check_header(o, st.st_size, err, len);
    if (rc == 0) {
        /* one buffer, one write: [newline if the last line was torn] [header if empty] body */
        char last = '\n';
        if (st.st_size > 0 && pread(o->fd, &last, 1, st.st_size - 1) != 1)
            last = '\n';
        size_t hl = st.st_size == 0 ? strlen(o->header) : 0, fix = last != '\n';
        char *buf = malloc(fix + hl + n);
        if (!buf) {
            rc = fail(err, len, "%s: '%s': %s", o->flag, o->path, "out of memory");
        } else {
            if (fix)
                buf[0] = '\n';
            memcpy(buf + fix, o->header, hl);
            memcpy(buf + fix + hl, body, n);
            rc = write_all(o->fd, buf, fix + hl + n);
            if (rc)
                snprintf(err, len, "%s: cannot append to '%s': %s", o->flag, o->path, strerror(errno));
            free(buf);
            o->wrote |= rc == 0;
        }
    }
    flock(o->fd, LOCK_UN);
    return rc;
}

void outfile_close(struct outfile *o)
{
    if (o->fd < 0)
        return;
    if (!o->is_stdout) {
        struct stat st;
        /* never remove a file another process has written to meanwhile */
        if (o->created && !o->wrote && fstat(o->fd, &st) == 0 && st.st_size == 0)
            unlink(o->path);
        close(o->fd);
    }
    o->fd = -1;
}
