/*
 * test_probe.c - the bounded chain table's capacity accounting and the
 * probe_lines hook (cht.h) on constructed cases (issue 11, after indexlib's
 * cuckoo note: docs/references.md indexlib-cuckoo).
 *
 *   test_probe capacity   chain-bounded: exactly P = ceil(initial / density)
 *                         inserts succeed (one thread, then 4 threads racing
 *                         on disjoint keys), the rest are refused and counted
 *                         as full_failures; removed nodes are reused, also
 *                         across threads' free lists; size() exact throughout.
 *   test_probe lines      exact lines per get: dense (identity hash: runs
 *                         that cross a line boundary, wrap around), cuckoo
 *                         (hit in the first / second candidate, misses =
 *                         every candidate; 8 ways = 2 lines a bucket),
 *                         chain-bounded (identity hash: head, then nodes that
 *                         straddle lines), hopscotch (an empty home: 1).
 *   test_probe pipe       dense's pipelined get (cht.h pipe_start/pipe_step)
 *                         on constructed runs, with its AVX2 compares and
 *                         with simd=0 (SSE2), its first step on two lines
 *                         (lines=2, and 0 at this size) and on the home
 *                         line only (lines=1): hits and misses from each home
 *                         position of a line, runs into the second line, past
 *                         it (a second step), across a tombstone, wrapped
 *                         around, and keys that share k's low or high 32 bits
 *                         (found only where all 64 are k's); every answer and
 *                         value as get() gives it. clht-lb's pipelined writes
 *                         on one bucket with an overflow bucket: inserts and
 *                         removes of keys in the head, in the overflow and in
 *                         neither, each answer, size() and get() after it,
 *                         and whether its first step answered "again" (a
 *                         write or get whose key is not in the head, with
 *                         an overflow bucket to read).
 */
#include <pthread.h>
#include "cht.h"
#include "cht_hash.h"
#include "registry.h"
#include "test_check.h"

static void *make(const char *spec, size_t initial, double density, unsigned threads, const struct cht_ops **ops)
{
    static struct table_choice c;
    char err[512];
    if (registry_parse_table(spec, &c, err, sizeof err) != 0) {
        fprintf(stderr, "FAIL %s\n", err);
        exit(1);
    }
    struct cht_config cfg = { .initial = initial, .density = density, .range = CHT_KEY_MAX,
                              .max_threads = threads, .numa_nodes = 1 };
    registry_apply_choice(&c, &cfg);
    *ops = c.ops;
    void *t = c.ops->create(&cfg, err, sizeof err);
    if (!t) {
        fprintf(stderr, "FAIL create %s: %s\n", spec, err);
        exit(1);
    }
    if (c.ops->thread_init)
        c.ops->thread_init(t, 0);
    return t;
}

static uint64_t full_failures(const struct cht_ops *o, void *t)
{
    struct cht_stats s = { 0 };
    o->stats(t, &s);
    return s.full_failures;
}

/* ---------------- capacity ---------------- */

struct worker {
    const struct cht_ops *o;
    void *t;
    unsigned tid;
    uint64_t first, n, ok;
};

static void *insert_range(void *p)
{
    struct worker *w = p;
    w->o->thread_init(w->t, w->tid);
    for (uint64_t k = w->first; k < w->first + w->n; k++)
        w->ok += w->o->insert(w->t, k, k * 3);
    return NULL;
}

static void run_workers(struct worker *w, unsigned n)
{
    pthread_t th[8];
    for (unsigned i = 0; i < n; i++)
        pthread_create(&th[i], NULL, insert_range, &w[i]);
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

static void mode_capacity(void)
{
    const struct cht_ops *o;
    /* one thread: initial 1000 at density 1 -> exactly 1000 nodes */
    void *t = make("chain-bounded", 1000, 1.0, 1, &o);
    struct cht_stats s = { 0 };
    o->stats(t, &s);
    CHECK(s.buckets == 1000, "capacity %zu, expected 1000", s.buckets);
    uint64_t ok = 0;
    for (cht_key_t k = 1; k <= 2000; k++)
        ok += o->insert(t, k, k);
    CHECK(ok == 1000 && o->size(t) == 1000, "%llu inserts succeeded, size %zu: expected 1000",
          (unsigned long long)ok, o->size(t));
    CHECK(full_failures(o, t) == 1000, "full_failures %llu, expected 1000", (unsigned long long)full_failures(o, t));
    CHECK(!o->insert(t, 1, 1), "a duplicate insert succeeded");
    CHECK(full_failures(o, t) == 1000, "a duplicate insert counted as full");
    cht_val_t v;
    for (cht_key_t k = 1; k <= 2000; k++)
        CHECK(o->get(t, k, &v) == (k <= 1000) && (k > 1000 || v == k), "get %llu wrong", (unsigned long long)k);
    for (cht_key_t k = 1; k <= 10; k++)
        CHECK(o->remove(t, k), "remove %llu failed", (unsigned long long)k);
    ok = 0;
    for (cht_key_t k = 5001; k <= 5011; k++)
        ok += o->insert(t, k, k);
    CHECK(ok == 10 && o->size(t) == 1000, "after 10 removes, %llu of 11 inserts succeeded (size %zu)",
          (unsigned long long)ok, o->size(t));
    o->destroy(t);

    /* density 0.5: twice the nodes */
    t = make("chain-bounded:ratio=8", 1000, 0.5, 1, &o);
    ok = 0;
    for (cht_key_t k = 1; k <= 3000; k++)
        ok += o->insert(t, k, k);
    CHECK(ok == 2000 && o->size(t) == 2000, "density 0.5: %llu inserts succeeded, expected 2000",
          (unsigned long long)ok);
    o->destroy(t);

    /* 4 threads race on disjoint keys for 1000 nodes: exactly 1000 succeed */
    t = make("chain-bounded:ratio=1", 1000, 1.0, 4, &o);
    struct worker w[4];
    for (unsigned i = 0; i < 4; i++)
        w[i] = (struct worker){ .o = o, .t = t, .tid = i, .first = 1 + i * 1000ull, .n = 1000 };
    run_workers(w, 4);
    ok = w[0].ok + w[1].ok + w[2].ok + w[3].ok;
    CHECK(ok == 1000 && o->size(t) == 1000 && full_failures(o, t) == 3000,
          "4 threads: %llu inserts succeeded (size %zu, full_failures %llu), expected 1000 and 3000",
          (unsigned long long)ok, o->size(t), (unsigned long long)full_failures(o, t));
    /* tid 0 frees 100 nodes (onto its own free list); tid 1 takes them all, then is refused */
    o->thread_init(t, 0);
    uint64_t removed = 0;
    for (cht_key_t k = 1; k <= 4000 && removed < 100; k++)
        removed += o->remove(t, k);
    CHECK(removed == 100 && o->size(t) == 900, "removed %llu, size %zu", (unsigned long long)removed, o->size(t));
    struct worker w1 = { .o = o, .t = t, .tid = 1, .first = 10001, .n = 200 };
    run_workers(&w1, 1);
    CHECK(w1.ok == 100 && o->size(t) == 1000, "another thread reused %llu of 100 freed nodes (size %zu)",
          (unsigned long long)w1.ok, o->size(t));
    for (cht_key_t k = 10001; k <= 10200; k++)
        CHECK(o->get(t, k, &v) == (k <= 10100) && (k > 10100 || v == k * 3), "get %llu after reuse wrong",
              (unsigned long long)k);
    o->destroy(t);
    if (!failures)
        printf("PASS capacity: exactly P inserts (1 and 4 threads), refusals counted, nodes reused\n");
}

/* ---------------- lines ---------------- */

#define LINES(o, t, k, want)                                                                      \
    do {                                                                                          \
        unsigned got_ = (o)->probe_lines((t), (k));                                              \
        CHECK(got_ == (want), "%s: probe_lines(%llu) = %u, expected %u", (o)->name,             \
              (unsigned long long)(k), got_, (unsigned)(want));                                  \
    } while (0)

static void lines_dense(void)
{
    const struct cht_ops *o;
    void *t = make("dense:hash=identity", 64, 1.0, 1, &o);     /* 64 slots, home = k mod 64, 4 per line */
    CHECK(o->insert(t, 3, 3) && o->insert(t, 67, 67), "dense inserts");
    LINES(o, t, 3, 1);          /* slot 3: the last of line 0 */
    LINES(o, t, 67, 2);         /* home 3, in slot 4: lines 0 and 1 */
    LINES(o, t, 131, 2);        /* miss from home 3: slots 3, 4, 5 (empty) */
    LINES(o, t, 2, 1);          /* miss: home 2 empty */
    CHECK(o->insert(t, 63, 63) && o->insert(t, 127, 127), "dense inserts");
    LINES(o, t, 127, 2);        /* home 63, wrapped to slot 0 */
    LINES(o, t, 191, 2);        /* miss from 63: 63, 0, 1 (empty) */
    for (cht_key_t k = 16; k < 32; k++)
        CHECK(o->insert(t, k, k), "dense insert %llu", (unsigned long long)k);
    LINES(o, t, 80, 5);         /* miss from home 16: slots 16..32, lines 4..8 */
    LINES(o, t, 31, 1);
    o->destroy(t);
}

/* a key != k (from `from` on) whose first cuckoo candidate (default hash fold, index=mask) is k's */
static cht_key_t same_first_bucket(cht_key_t k, uint64_t mask, cht_key_t *from)
{
    uint64_t b0 = cht_hash_fold(k) & mask;
    for (cht_key_t j = *from;; j++)
        if (j != k && (cht_hash_fold(j) & mask) == b0) {
            *from = j + 1;
            return j;
        }
}

static void lines_cuckoo(void)
{
    const struct cht_ops *o;
    /* 4096 slots / 4 ways = 1024 buckets, mask index, 2 candidates (distinct) */
    void *t = make("cuckoo:resize=0", 4096, 1.0, 1, &o);
    const uint64_t mask = 1023;
    cht_key_t k = 1, from = 2, fill[4];
    for (int i = 0; i < 4; i++) {
        fill[i] = same_first_bucket(k, mask, &from);
        CHECK(o->insert(t, fill[i], 1), "cuckoo insert");
    }
    for (int i = 0; i < 4; i++)
        LINES(o, t, fill[i], 1);            /* hit in the first candidate */
    CHECK(o->insert(t, k, 1), "cuckoo insert");
    LINES(o, t, k, 2);                      /* its first candidate was full: hit in the second */
    LINES(o, t, (cht_key_t)1 << 50, 2);     /* miss: both candidates */
    o->destroy(t);

    t = make("cuckoo:resize=0,hashes=3", 4096, 1.0, 1, &o);
    LINES(o, t, 12345, 3);                  /* miss: three candidates */
    o->destroy(t);

    t = make("cuckoo:resize=0,ways=8", 8192, 1.0, 1, &o);    /* 128-byte buckets: 2 lines each */
    CHECK(o->insert(t, 7, 7), "cuckoo insert");
    LINES(o, t, 7, 1);                      /* slot 0 of its first bucket */
    LINES(o, t, 8, 4);                      /* miss: 2 buckets x 2 lines */
    o->destroy(t);
}

static void lines_chain(void)
{
    const struct cht_ops *o;
    /* 64 nodes of 24 bytes (64-byte-aligned pool), 64 heads, head = k mod 64 */
    void *t = make("chain-bounded:hash=identity,ratio=1", 64, 1.0, 1, &o);
    LINES(o, t, 5, 1);                      /* empty chain: the head word only */
    CHECK(o->insert(t, 1, 1), "chain insert");          /* node 0: bytes 0..23 */
    LINES(o, t, 1, 2);                      /* head + node 0 */
    LINES(o, t, 65, 2);                     /* miss on head 1: head + node 0 (key, next) */
    CHECK(o->insert(t, 129, 1), "chain insert");        /* node 1: bytes 24..47, chain 129 -> 1 */
    LINES(o, t, 1, 2);                      /* nodes 1 and 0 share line 0 */
    CHECK(o->insert(t, 3, 3), "chain insert");          /* node 2: key, val 48..63, next 64..67 */
    LINES(o, t, 3, 2);                      /* head + key and value on line 0 */
    LINES(o, t, 67, 3);                     /* miss: its next index lies on line 1 */
    o->destroy(t);
}

static void lines_hopscotch(void)
{
    const struct cht_ops *o;
    void *t = make("hopscotch:hash=identity", 64, 1.0, 1, &o);
    LINES(o, t, 9, 1);                      /* empty neighbourhood: the hop bitmap only */
    CHECK(o->insert(t, 9, 9), "hopscotch insert");
    unsigned n = o->probe_lines(t, 9);      /* bitmap, key, value of one 24-byte slot: 1 or 2 lines */
    CHECK(n >= 1 && n <= 2, "hopscotch: probe_lines(9) = %u", n);
    o->destroy(t);
}

/* ---------------- dense's pipelined get ---------------- */

static void pipe_dense(const char *spec, bool one_line)
{
    const struct cht_ops *o;
    void *t = make(spec, 64, 1.0, 1, &o);      /* 64 slots, home = k mod 64, 4 per line */
    const cht_key_t hi = (cht_key_t)1 << 32;
    /* (home: slots) 3: 3, 67, 131 in slots 3..5; 8: hi + 8; 12: 5 hi + 12; 20: tombstone, 84 in 21;
     * 24: twelve keys in 24..35 (past two lines); 40: eighteen keys in 40..57 (past four lines), the
     * eleventh removed (a tombstone in 50); 63: 63, 127 wrapped to slot 0; 0: 3 hi (low half 0, as an
     * empty slot's) in slot 1, 64 in slot 2 */
    const cht_key_t put[] = { 3, 67, 131, hi + 8, 5 * hi + 12, 20, 84, 63, 127, 3 * hi, 64 };
    for (size_t i = 0; i < sizeof put / sizeof put[0]; i++)
        CHECK(o->insert(t, put[i], put[i] ^ 0xabc), "%s: insert %llx", spec, (unsigned long long)put[i]);
    for (cht_key_t j = 0; j < 12; j++)
        CHECK(o->insert(t, 24 + 64 * j, j), "%s: insert %llu", spec, (unsigned long long)(24 + 64 * j));
    for (cht_key_t j = 0; j < 18; j++)
        CHECK(o->insert(t, 40 + 64 * j, j), "%s: insert %llu", spec, (unsigned long long)(40 + 64 * j));
    CHECK(o->remove(t, 20) && o->remove(t, 40 + 64 * 10), "%s: removes", spec);
    /* first: the first step's answer with two lines (lines=2), one: with the home line only (lines=1) */
    const int A = CHT_PIPE_AGAIN;
    const struct { cht_key_t k; int first, one; } q[] = {
        { 3, 1, 1 }, { 67, 1, A }, { 131, 1, A }, { 195, 0, A },   /* home 3: slot 3, then into line 1, miss at 6 */
        { 1, 0, A }, { 2, 0, A }, { 4, 0, 0 },              /* homes in line 0's full run; 4: past 67 and 131 */
        { 8, 0, 0 }, { hi + 8, 1, 1 }, { 2 * hi + 8, 0, 0 },   /* k's low half, another high half */
        { 5 * hi + 12, 1, 1 }, { 5 * hi + 76, 0, 0 }, { 12, 0, 0 },  /* k's high half, another low half */
        { 84, 1, 1 }, { 148, 0, 0 }, { 20, 0, 0 },          /* past the tombstone in 20 */
        { 24, 1, 1 }, { 24 + 64 * 7, 1, A }, { 24 + 64 * 8, A, A }, { 24 + 64 * 11, A, A },
        { 24 + 64 * 12, A, A },                             /* past lines 24..31: a second step */
        { 40 + 64 * 5, 1, A }, { 40 + 64 * 8, A, A },       /* the second step's lines: 44..51 or 48..55 */
        { 40 + 64 * 17, A, A }, { 40 + 64 * 18, A, A },     /* past them: on slot by slot, to 57 and 58 */
        { 63, 1, 1 }, { 127, 1, A }, { 191, A, A },         /* wrapped: line 60, then line 0 (full) */
        { 3 * hi, 1, 1 }, { 64, 1, 1 }, { 128, 0, A },      /* past a key whose low half is 0 */
    };
    enum { N = sizeof q / sizeof q[0] };
    _Static_assert(N <= 31, "one pipe_step call takes at most 31 ops");
    struct cht_pipe_op op[N];
    for (unsigned i = 0; i < N; i++)
        op[i] = (struct cht_pipe_op){ .key = q[i].k, .kind = CHT_PIPE_GET };
    o->pipe_start(t, op, N);
    o->pipe_step(t, op, N);
    for (unsigned i = 0; i < N; i++) {
        const int want = one_line ? q[i].one : q[i].first;
        CHECK(op[i].result == want, "%s: key %llx first step %d, expected %d", spec,
              (unsigned long long)q[i].k, op[i].result, want);
        if (op[i].result == CHT_PIPE_AGAIN) {
            CHECK(op[i].stage == 1, "%s: key %llx again with stage %u", spec, (unsigned long long)q[i].k, op[i].stage);
            o->pipe_step(t, &op[i], 1);
        }
        cht_val_t v = 0;
        const bool found = o->get(t, q[i].k, &v);
        CHECK(op[i].result == (int)found && (!found || op[i].val == v), "%s: key %llx pipelined %d val %llx, get %d val %llx",
              spec, (unsigned long long)q[i].k, op[i].result, (unsigned long long)op[i].val, found,
              (unsigned long long)v);
    }
    o->destroy(t);
}

/* one pipelined op through pipe_start and pipe_step (a second step where it
 * answers again, *again then true) */
static int pipe_one(const struct cht_ops *o, void *t, uint32_t kind, cht_key_t k, cht_val_t v, bool *again)
{
    struct cht_pipe_op op = { .key = k, .val = v, .kind = kind };
    o->pipe_start(t, &op, 1);
    o->pipe_step(t, &op, 1);
    *again = op.result == CHT_PIPE_AGAIN;
    if (*again)
        o->pipe_step(t, &op, 1);
    return op.result;
}

/* two: writes past a chained head take two steps (write_steps=2; the default
 * at this size, in the caches, and write_steps=1 take one) */
static void pipe_clht(const char *spec, bool two)
{
    const struct cht_ops *o;
    void *t = make(spec, 64, 0.5, 1, &o);
    struct cht_stats st = { 0 };
    o->stats(t, &st);
    const cht_key_t nb = st.buckets, b = 1;     /* keys b + j nb share bucket b (identity hash) */
    CHECK(nb >= 4 && (nb & (nb - 1)) == 0, "clht-lb: %llu buckets", (unsigned long long)nb);
    /* head: keys 0..2 of bucket b; key 3 in its overflow bucket */
    bool again;
    for (cht_key_t j = 0; j < 4; j++) {     /* no overflow bucket yet: one step each */
        CHECK(pipe_one(o, t, CHT_PIPE_INSERT, b + j * nb, 100 + j, &again) == 1 && !again,
              "clht-lb: pipelined insert %llu (again %d)", (unsigned long long)j, again);
    }
    /* again: the first step found the key outside the head with an overflow
     * bucket to read (lb_pipe_write_chained for writes, where two) */
    const struct { uint32_t kind; cht_key_t j; int want; size_t size; bool again; } step[] = {
        { CHT_PIPE_INSERT, 0, 0, 4, false }, { CHT_PIPE_INSERT, 3, 0, 4, true },  /* present: in the head, in the overflow */
        { CHT_PIPE_REMOVE, 7, 0, 4, true },                                       /* absent, the head full, a chain */
        { CHT_PIPE_REMOVE, 3, 1, 3, true }, { CHT_PIPE_REMOVE, 3, 0, 3, true },   /* in the overflow, then gone */
        { CHT_PIPE_REMOVE, 1, 1, 2, false }, { CHT_PIPE_GET, 1, 0, 2, true },     /* in the head */
        { CHT_PIPE_INSERT, 5, 1, 3, true }, { CHT_PIPE_GET, 5, 1, 3, false },     /* into the head's free slot */
        { CHT_PIPE_INSERT, 6, 1, 4, true }, { CHT_PIPE_GET, 6, 1, 4, true },      /* the head full: into the overflow */
        { CHT_PIPE_GET, 0, 1, 4, false }, { CHT_PIPE_GET, 2, 1, 4, false },
    };
    for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
        const cht_key_t k = b + step[i].j * nb;
        const int r = pipe_one(o, t, step[i].kind, k, 200 + step[i].j, &again);
        cht_val_t v = 0;
        const bool found = o->get(t, k, &v);
        const bool want_again = step[i].again && (two || step[i].kind == CHT_PIPE_GET);
        CHECK(r == step[i].want && o->size(t) == step[i].size && again == want_again,
              "%s: pipelined %s of key %llu answered %d (expected %d) in %d steps (expected %d), size %zu "
              "(expected %zu)", spec, step[i].kind == CHT_PIPE_INSERT ? "insert" :
              step[i].kind == CHT_PIPE_REMOVE ? "remove" : "get", (unsigned long long)step[i].j, r, step[i].want,
              1 + again, 1 + want_again, o->size(t), step[i].size);
        const bool present = step[i].kind == CHT_PIPE_REMOVE ? false : step[i].kind == CHT_PIPE_INSERT || r == 1;
        CHECK(found == present, "clht-lb: after the %zu-th op key %llu %s", i, (unsigned long long)step[i].j,
              found ? "found" : "missing");
    }
    o->destroy(t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s capacity|lines|pipe\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "capacity") == 0) {
        mode_capacity();
    } else if (strcmp(argv[1], "lines") == 0) {
        lines_dense();
        lines_cuckoo();
        lines_chain();
        lines_hopscotch();
        if (!failures)
            printf("PASS lines: dense, cuckoo, chain-bounded, hopscotch\n");
    } else if (strcmp(argv[1], "pipe") == 0) {
        pipe_dense("dense:hash=identity", false);              /* lines=0: 2 at this size */
        pipe_dense("dense:hash=identity,simd=0", false);
        pipe_dense("dense:hash=identity,lines=1", true);
        pipe_dense("dense:hash=identity,lines=1,simd=0", true);
        pipe_dense("dense:hash=identity,lines=2,simd=0", false);
        pipe_clht("clht-lb:hash=identity,write_steps=2", true);
        pipe_clht("clht-lb:hash=identity,write_steps=1", false);
        pipe_clht("clht-lb:hash=identity", false);              /* write_steps=0: 1 in the caches */
        if (!failures)
            printf("PASS pipe: dense's pipelined get, AVX2 where the CPU has it and SSE2; clht-lb's pipelined writes\n");
    } else {
        fprintf(stderr, "usage: %s capacity|lines|pipe\n", argv[0]);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "test_probe %s: %d checks failed\n", argv[1], failures);
        return 1;
    }
    return 0;
}
