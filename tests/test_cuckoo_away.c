/*
 * test_cuckoo_away.c - cuckoo's away bits say where its keys are now.
 *
 * tables/cuckoo.c keeps, per bucket b, a count of the keys whose first
 * candidate is b that live in another bucket, and a bit set while that count
 * is not zero. The pipelined get decides a miss on the first bucket when the
 * bit is clear, and every write decides on the first bucket alone when it is
 * (cuckoo_lock_home). A bit that is clear while such a key exists loses that key;
 * a bit that stays set after the last such key left (as when bits were only
 * ever set) makes a long run slower as it goes. This test compiles the table
 * in and, after single-threaded churn against a model and after
 * oversubscribed concurrent churn, checks the exact invariant over the whole
 * array: count[b] = the keys homed at b living elsewhere, bit[b] = count[b] > 0;
 * then removes every key and checks that every bit is clear.
 * Shapes: the default (2 hashes, 4 ways), index=mod64 (first and second
 * candidate may coincide), hashes=3, a hash added by max_hashes, resize=1
 * doublings, one-way buckets, and lock=ttas (the external-lock path).
 *
 * Also the pipelined step across a resize: a step call checks once, after
 * its gets' first steps, that the array they read is still the table's, and
 * runs them again whole where a resize (here: an insert of the same call)
 * replaced it. Batches of inserts that grow the table, then an update of key
 * 1 and a get of it: the get must see the update, not key 1 in the array the
 * call began on.
 */
#include <pthread.h>
#include "../tables/cuckoo.c"
#include "registry.h"
#include "test_check.h"

struct shape {
    const char *name;
    struct cht_option opt[6];
    const char *lock;           /* lock=NAME: cfg.lock */
    uint64_t initial;           /* the table sized for this many keys at density 0.9 */
    double load;                /* keys come from [1, 2 * load * slots] (about load * slots present) */
};

static const struct shape shapes[] = {
    { "default, resize=0", { { "resize", "0" }, { NULL, NULL } }, NULL, 3000, 0.95 },
    { "default, resize=1 (doublings)", { { NULL, NULL } }, NULL, 200, 8 },
    { "index=mod64, resize=0", { { "index", "mod64" }, { "resize", "0" }, { NULL, NULL } }, NULL, 3000, 0.95 },
    { "hashes=3, resize=0", { { "hashes", "3" }, { "resize", "0" }, { NULL, NULL } }, NULL, 3000, 0.98 },
    { "hashes=2,max_hashes=3,resize=0", { { "max_hashes", "3" }, { "resize", "0" }, { NULL, NULL } }, NULL, 3000,
      0.985 },
    { "ways=1, resize=1", { { "ways", "1" }, { NULL, NULL } }, NULL, 500, 4 },
    { "lock=ttas, resize=0", { { "resize", "0" }, { NULL, NULL } }, "ttas", 3000, 0.95 },
};

static bool away_bit(const struct cuckoo_array *a, uint64_t b)
{
    return (a->away[b >> 6] >> (b & 63)) & 1;
}

/* The invariant over the current array (quiescent); returns the keys living
 * away from their first candidate, *bits the buckets whose bit is set. */
static uint64_t check_away(struct cuckoo_table *t, const char *shape, const char *when, uint64_t *bits)
{
    const struct cuckoo_array *a = t->cur;
    uint32_t *want = calloc(a->nbuckets, sizeof *want);
    uint64_t away = 0, bad = 0;
    *bits = 0;
    for (uint64_t b = 0; b < a->nbuckets; b++)
        for (unsigned w = 0; w < t->ways; w++) {
            cht_key_t k = a->slot[b * t->ways + w].key;
            if (k && cuckoo_home(t, a, k) != b) {
                want[cuckoo_home(t, a, k)]++;
                away++;
            }
        }
    for (uint64_t b = 0; b < a->nbuckets; b++) {
        const unsigned n = a->away_n[b];
        const bool ok = n == want[b] && away_bit(a, b) == (n != 0);
        *bits += away_bit(a, b);
        if (!ok && bad++ < 3)
            CHECK(ok, "%s, %s: bucket %llu: count %u, bit %d, but %u keys homed there live elsewhere", shape, when,
                  (unsigned long long)b, n, away_bit(a, b), want[b]);
    }
    CHECK(bad == 0, "%s, %s: %llu of %llu buckets wrong", shape, when, (unsigned long long)bad,
          (unsigned long long)a->nbuckets);
    free(want);
    return away;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

struct churn {
    struct cuckoo_table *t;
    unsigned tid;
    uint64_t nkeys, ops, seed;
    int64_t net;                /* successful inserts - removes */
    uint64_t wrong;             /* gets that found another value */
};

static void *churn_thread(void *p)
{
    struct churn *c = p;
    cht_table_cuckoo.thread_init(c->t, c->tid);
    uint64_t s = c->seed;
    for (uint64_t i = 0; i < c->ops; i++) {
        uint64_t r = rng_next(&s);
        cht_key_t k = 1 + (r >> 8) % c->nkeys;
        cht_val_t v = 0;
        switch (r & 3) {
        case 0: c->net += cht_table_cuckoo.insert(c->t, k, k); break;
        case 1: c->net -= cht_table_cuckoo.remove(c->t, k); break;
        case 2: cht_table_cuckoo.update(c->t, k, k); break;
        default:
            c->wrong += cht_table_cuckoo.get(c->t, k, &v) && v != k;
        }
    }
    return NULL;
}

/* batches of W ops: W - 2 inserts of new keys, update(1, v), get(1) */
static void pipe_across_resize(void)
{
    enum { W = 64, BATCHES = 400 };
    struct cht_option opt[] = { { NULL, NULL } };
    struct cht_config cfg = { .initial = 64, .density = 0.9, .range = 1u << 20, .max_threads = 1,
                              .numa_nodes = 1, .options = opt };
    char err[256] = "";
    struct cuckoo_table *t = cht_table_cuckoo.create(&cfg, err, sizeof err);
    CHECK(t != NULL, "pipeline across a resize: create: %s", err);
    if (!t)
        return;
    cht_table_cuckoo.thread_init(t, 0);
    CHECK(cht_table_cuckoo.insert(t, 1, 1), "pipeline across a resize: insert 1");
    cht_key_t next = 2;
    uint64_t calls_resized = 0, wrong = 0;
    for (unsigned b = 0; b < BATCHES; b++) {
        struct cht_pipe_op ops[W];
        memset(ops, 0, sizeof ops);
        for (unsigned i = 0; i < W - 2; i++)
            ops[i] = (struct cht_pipe_op){ .key = next, .val = next, .kind = CHT_PIPE_INSERT }, next++;
        ops[W - 2] = (struct cht_pipe_op){ .key = 1, .val = 1000 + b, .kind = CHT_PIPE_UPDATE };
        ops[W - 1] = (struct cht_pipe_op){ .key = 1, .kind = CHT_PIPE_GET };
        const uint64_t resizes = t->resizes;
        cht_table_cuckoo.pipe_start(t, ops, W);
        cht_table_cuckoo.pipe_step(t, ops, W);
        calls_resized += t->resizes != resizes;
        while (ops[W - 1].result == CHT_PIPE_AGAIN)
            cht_table_cuckoo.pipe_step(t, &ops[W - 1], 1);
        for (unsigned i = 0; i < W - 2; i++)
            CHECK(ops[i].result == 1, "pipeline across a resize: batch %u: insert %llu: %d", b,
                  (unsigned long long)ops[i].key, ops[i].result);
        if (ops[W - 1].result != 1 || ops[W - 1].val != 1000 + b) {
            if (wrong++ < 3)
                CHECK(false, "pipeline across a resize: batch %u (%s): get(1) = %d, value %llu, not %u", b,
                      t->resizes != resizes ? "resized" : "not resized", ops[W - 1].result,
                      (unsigned long long)ops[W - 1].val, 1000 + b);
        }
    }
    CHECK(wrong == 0, "pipeline across a resize: %llu of %u gets missed their batch's update",
          (unsigned long long)wrong, BATCHES);
    CHECK(calls_resized >= 5, "pipeline across a resize: only %llu step calls resized: the test tests nothing",
          (unsigned long long)calls_resized);
    CHECK(cht_table_cuckoo.size(t) == next - 1, "pipeline across a resize: size %zu, %llu inserted",
          cht_table_cuckoo.size(t), (unsigned long long)(next - 1));
    printf("pipeline across a resize: %u batches, %llu step calls resized the table, %llu buckets\n", BATCHES,
           (unsigned long long)calls_resized, (unsigned long long)t->cur->nbuckets);
    cht_table_cuckoo.destroy(t);
}

int main(void)
{
    const char *sc = getenv("CHT_TEST_SCALE");
    if (sc && atoi(sc) > 0)
        scale_pct = (unsigned)atoi(sc);
    const unsigned nthreads = 6;     /* more than this machine's cores: preempted lock holders */
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const struct shape *sh = &shapes[si];
        struct cht_config cfg = { .initial = sh->initial, .density = 0.9, .range = 1u << 20,
                                  .max_threads = nthreads, .numa_nodes = 1, .options = sh->opt };
        if (sh->lock)
            cfg.lock = registry_lock(sh->lock);
        char err[256] = "";
        struct cuckoo_table *t = cht_table_cuckoo.create(&cfg, err, sizeof err);
        CHECK(t != NULL, "%s: create: %s", sh->name, err);
        if (!t)
            continue;
        /* one thread against a model: every answer, and the invariant every so often */
        cht_table_cuckoo.thread_init(t, 0);
        struct cht_stats st = { 0 };
        cht_table_cuckoo.stats(t, &st);
        const uint64_t nkeys = (uint64_t)(2 * sh->load * (double)st.buckets);
        uint8_t *model = calloc(nkeys + 1, 1);
        uint64_t s = 42 + si, present = 0, bits = 0, away_max = 0, ops = scaled(200000);
        for (uint64_t i = 1; i <= ops; i++) {
            uint64_t r = rng_next(&s);
            cht_key_t k = 1 + (r >> 8) % nkeys;
            cht_val_t v = 0;
            bool got;
            switch (r & 3) {
            case 0:
                got = cht_table_cuckoo.insert(t, k, k);
                /* resize=0 may refuse an insert into a full table: counted, not a wrong answer */
                if (got || model[k])
                    CHECK(got == !model[k], "%s: insert %llu: %d", sh->name, (unsigned long long)k, got);
                present += got;
                model[k] |= got;
                break;
            case 1:
                got = cht_table_cuckoo.remove(t, k);
                CHECK(got == model[k], "%s: remove %llu: %d", sh->name, (unsigned long long)k, got);
                present -= got;
                model[k] = 0;
                break;
            case 2:
                got = cht_table_cuckoo.update(t, k, k);
                CHECK(got == model[k], "%s: update %llu: %d", sh->name, (unsigned long long)k, got);
                break;
            default:
                got = cht_table_cuckoo.get(t, k, &v);
                CHECK(got == model[k] && (!got || v == k), "%s: get %llu: %d, value %llu", sh->name,
                      (unsigned long long)k, got, (unsigned long long)v);
            }
            if (i % (ops / 8) == 0) {
                uint64_t away = check_away(t, sh->name, "one thread", &bits);
                away_max = away > away_max ? away : away_max;
            }
        }
        CHECK(cht_table_cuckoo.size(t) == present, "%s: size %zu, model %llu", sh->name, cht_table_cuckoo.size(t),
              (unsigned long long)present);
        CHECK(away_max > 0, "%s: no key ever lived away from its first bucket: the test tests nothing",
              sh->name);

        /* threads over the same keys, then the invariant */
        pthread_t th[8];
        struct churn c[8];
        for (unsigned i = 0; i < nthreads; i++) {
            c[i] = (struct churn){ t, i, nkeys, scaled(100000), 1000 * si + i, 0, 0 };
            pthread_create(&th[i], NULL, churn_thread, &c[i]);
        }
        for (unsigned i = 0; i < nthreads; i++) {
            pthread_join(th[i], NULL);
            present += (uint64_t)c[i].net;
            CHECK(c[i].wrong == 0, "%s: thread %u: %llu gets found a value their key never had", sh->name, i,
                  (unsigned long long)c[i].wrong);
        }
        CHECK(cht_table_cuckoo.size(t) == present, "%s: size %zu after threads, %llu by their answers", sh->name,
              cht_table_cuckoo.size(t), (unsigned long long)present);
        uint64_t away = check_away(t, sh->name, "after threads", &bits);

        /* every key removed: no key lives anywhere, so no bit may stay set */
        cht_table_cuckoo.thread_init(t, 0);
        for (cht_key_t k = 1; k <= nkeys; k++)
            present -= cht_table_cuckoo.remove(t, k);
        CHECK(present == 0 && cht_table_cuckoo.size(t) == 0, "%s: %llu keys left after removing all", sh->name,
              (unsigned long long)present);
        uint64_t bits_after = 0;
        check_away(t, sh->name, "all removed", &bits_after);
        CHECK(bits_after == 0, "%s: %llu away bits still set in an empty table", sh->name,
              (unsigned long long)bits_after);
        printf("%s: %llu buckets (%llu doublings, %llu hashes added), up to %llu keys away from home (one "
               "thread); after %u threads %llu keys away, %llu bits; empty: %llu bits\n",
               sh->name, (unsigned long long)t->cur->nbuckets, (unsigned long long)t->resizes,
               (unsigned long long)t->hash_adds, (unsigned long long)away_max, nthreads,
               (unsigned long long)away, (unsigned long long)bits, (unsigned long long)bits_after);
        cht_table_cuckoo.destroy(t);
        free(model);
    }
    pipe_across_resize();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
