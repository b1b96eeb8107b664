/* test_history.c - the history checker (src/history.c) on histories built by
 * hand: which it must accept, which it must reject, and what it counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"
#include "keygen.h"
#include "runner.h"

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; printf("FAIL "); } else printf("ok   "); printf(__VA_ARGS__); printf("\n"); } while (0)

enum { T = 4, CAP = 256 };
static struct hist_rec recs[T][CAP];
static struct hist_buf bufs[T];

static void reset(void)
{
    for (unsigned t = 0; t < T; t++)
        bufs[t] = (struct hist_buf){ .rec = recs[t], .cap = CAP };
}

/* thread t's op on key k over [t0, t1] */
static void op(unsigned t, enum hist_op o, cht_key_t k, cht_val_t v, bool ok, uint64_t t0, uint64_t t1)
{
    hist_put(&bufs[t], k, v, t0, t1, t, o, ok);
}

static struct hist_result check(const struct hist_init *init, size_t ninit)
{
    struct hist_result r;
    if (hist_check(bufs, T, init, ninit, 0, 1000, &r) != 0)
        printf("hist_check: out of memory\n"), exit(1);
    return r;
}

/* the values as the run writes them: key, writer (thread + 1), sequence */
#define V(k, t, s) run_val(k, run_val_writer_bits((t) + 1), s)

int main(void)
{
    const cht_key_t K = 7;
    struct hist_result r;

    reset();                         /* one thread, in order: every answer the register's */
    op(0, HIST_INSERT, K, V(K, 0, 0), true, 1, 2);
    op(0, HIST_GET, K, V(K, 0, 0), true, 3, 4);
    op(0, HIST_INSERT, K, V(K, 0, 1), false, 5, 6);
    op(0, HIST_UPDATE, K, V(K, 0, 2), true, 7, 8);
    op(0, HIST_GET, K, V(K, 0, 2), true, 9, 10);
    op(0, HIST_REMOVE, K, 0, true, 11, 12);
    op(0, HIST_GET, K, 0, false, 13, 14);
    op(0, HIST_UPDATE, K, V(K, 0, 3), false, 15, 16);
    op(0, HIST_REMOVE, K, 0, false, 17, 18);
    r = check(NULL, 0);
    CHECK(r.keys == 1 && r.ops == 9 && r.violations == 0 && r.undecided == 0 && r.covered_ns == 1000,
          "a sequential history of every op kind is linearizable (keys %llu ops %llu violations %llu)",
          (unsigned long long)r.keys, (unsigned long long)r.ops, (unsigned long long)r.violations);

    reset();                         /* a lost update: update said true, a later get reads the older value */
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 10, 11);
    op(1, HIST_GET, K, V(K, 0, 4), true, 20, 21);
    struct hist_init present = { .key = K, .val = V(K, 0, 4), .present = true };
    r = check(&present, 1);
    CHECK(r.violations == 1 && strstr(r.window, "key 7 ") && strstr(r.window, "thread 1 get -> ") &&
          strstr(r.window, "done before: thread 0 update"),
          "a lost update is a violation, its window naming the get and the update before it: %s", r.window);

    reset();                         /* the same get overlapping the update: it may come first */
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 10, 30);
    op(1, HIST_GET, K, V(K, 0, 4), true, 20, 21);
    r = check(&present, 1);
    CHECK(r.violations == 0, "a get overlapping an update may read the value before it");

    reset();                         /* a stale read: once the new value is read, the old one cannot be */
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 10, 40);
    op(1, HIST_GET, K, V(K, 0, 5), true, 12, 13);
    op(1, HIST_GET, K, V(K, 0, 4), true, 14, 15);
    r = check(&present, 1);
    CHECK(r.violations == 1 && strstr(r.window, "open then:   thread 0 update"),
          "reading the old value after the new one, the update still open, is a violation: %s", r.window);

    reset();                         /* ... the other way round is fine */
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 10, 40);
    op(1, HIST_GET, K, V(K, 0, 4), true, 12, 13);
    op(1, HIST_GET, K, V(K, 0, 5), true, 14, 15);
    r = check(&present, 1);
    CHECK(r.violations == 0, "old value, then new value, during the update: linearizable");

    reset();                         /* at one tick the order is unknown: concurrent */
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 5, 10);
    op(1, HIST_GET, K, V(K, 0, 4), true, 10, 12);
    r = check(&present, 1);
    CHECK(r.violations == 0, "a get called at the tick an update returned may precede it");
    reset();
    op(0, HIST_UPDATE, K, V(K, 0, 5), true, 5, 10);
    op(1, HIST_GET, K, V(K, 0, 4), true, 11, 12);
    r = check(&present, 1);
    CHECK(r.violations == 1, "... one tick later it may not");

    reset();                         /* "absent" for a present key, no writer around */
    op(1, HIST_GET, K, 0, false, 5, 6);
    r = check(&present, 1);
    CHECK(r.violations == 1 && strstr(r.window, "(at the start 0x") && strstr(r.window, "get -> absent"),
          "a false 'absent' is a violation: %s", r.window);
    reset();                         /* ... explained by a remove and an insert around it */
    op(0, HIST_REMOVE, K, 0, true, 4, 8);
    op(2, HIST_INSERT, K, V(K, 2, 0), true, 4, 9);
    op(1, HIST_GET, K, 0, false, 5, 6);
    op(1, HIST_GET, K, V(K, 2, 0), true, 10, 11);
    r = check(&present, 1);
    CHECK(r.violations == 0, "'absent' between a concurrent remove and re-insert: linearizable");

    reset();                         /* a value never written; an insert of a present key that succeeded */
    op(1, HIST_GET, K, V(K, 3, 9), true, 5, 6);
    op(0, HIST_INSERT, 9, V(9, 0, 0), true, 5, 6);
    struct hist_init two[] = { present, { .key = 9, .val = V(9, 0, 3), .present = true } };
    r = check(two, 2);
    CHECK(r.keys == 2 && r.violations == 2, "a value never written and an insert of a present key: 2 keys "
          "(got %llu of %llu)", (unsigned long long)r.violations, (unsigned long long)r.keys);

    reset();                         /* a key absent from init starts absent */
    op(0, HIST_GET, 11, V(11, 0, 0), true, 5, 6);
    r = check(two, 2);
    CHECK(r.violations == 1, "a key not among the initial states starts absent");

    reset();                         /* the cut: thread 0 ran out of room after its op ending at 100 */
    op(0, HIST_GET, K, V(K, 0, 4), true, 90, 100);
    bufs[0].lost = 3;
    op(1, HIST_UPDATE, K, V(K, 1, 0), true, 95, 110);    /* spans the cut: no answer */
    op(2, HIST_GET, K, V(K, 1, 0), true, 96, 99);        /* reads the pending update's value: fine */
    op(2, HIST_GET, K, 0, false, 120, 121);              /* called after the cut: dropped */
    op(3, HIST_GET, K, V(K, 0, 4), true, 101, 102);      /* ends after it: a get without answer, dropped */
    r = check(&present, 1);
    CHECK(r.violations == 0 && r.covered_ns == 100 && r.unanswered == 1 && r.ops == 2 && r.lost == 3,
          "a full buffer cuts the history at its last end: covered 100 (got %llu); the update spanning it kept "
          "without its answer (unanswered %llu), the gets ending at or after it dropped (ops %llu of 5)",
          (unsigned long long)r.covered_ns, (unsigned long long)r.unanswered, (unsigned long long)r.ops);

    reset();                         /* more than 64 ops open on one key: undecided, not a verdict */
    static struct hist_rec many[70];
    bufs[0] = (struct hist_buf){ .rec = many, .cap = 70 };
    for (unsigned i = 0; i < 70; i++)
        op(0, HIST_GET, K, V(K, 0, 4), true, 10 + i, 200);
    r = check(&present, 1);
    CHECK(r.undecided == 1 && r.violations == 0, "70 ops open on one key: undecided (got %llu)",
          (unsigned long long)r.undecided);

    /* the watched keys: exactly the multiples of an odd d near range / K */
    struct hist_watch w;
    hist_watch_init(&w, 2048, 256);
    bool exact = w.d == 9;
    for (cht_key_t k = 1; k < 200000 && exact; k++)
        exact = hist_watched(&w, k) == (k % 9 == 0);
    CHECK(exact, "range 2048, 256 keys: the multiples of 9 are watched, no other key (d %llu)",
          (unsigned long long)w.d);
    hist_watch_init(&w, 100, 256);
    CHECK(w.d == 1 && hist_watched(&w, 1) && hist_watched(&w, 97), "more keys than the range: all watched");
    hist_watch_init(&w, 1u << 20, 1000);     /* 1048: even, made odd */
    CHECK(w.d == 1049 && hist_watched(&w, 1049 * 999) && !hist_watched(&w, 1048), "d made odd: 1049");
    size_t n = 0;
    hist_watch_init(&w, 2048, 256);
    cht_key_t *keys = hist_watched_keys(&w, 2048, false, &n);
    CHECK(keys && n == 227 && keys[0] == 9 && keys[226] == 2043, "dense: 227 watched keys, 9 .. 2043");
    free(keys);
    keys = hist_watched_keys(&w, 1u << 16, true, &n);
    bool all = keys != NULL, sorted = true;
    for (size_t i = 0; keys && i < n; i++) {
        all &= hist_watched(&w, keys[i]);
        sorted &= i == 0 || keys[i - 1] < keys[i];
    }
    size_t expect = 0;
    for (cht_key_t k = 1; k <= 1u << 16; k++)
        expect += hist_watched(&w, keygen_sparse(k));
    CHECK(all && sorted && n == expect && n > 7000 && n < 7600,
          "sparse: the mapped keys that are multiples of 9, sorted, as many as a scan finds (%zu; ~65536/9)", n);
    free(keys);

    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
