/*
 * test_rust_plugin.c - the Rust plugin (plugins/rust) loaded by hand, as a
 * plugin loader would, with no driver code in between.
 *
 *   test_rust_plugin PATH/libcht_rust.so
 *
 * Checks: cht_plugin() returns abi_version == CHT_ABI_VERSION (this header's),
 * name "rust" and the tables rs-dashmap, rs-papaya, rs-scc, rs-std-mutex,
 * rs-flurry, rs-contrie, rs-scc-index; the crate's #[repr(C)] mirror has the C
 * compiler's size and offset of every member of every shared struct
 * (cht_rust_abi_layout), and cht_plugin.sizes equals CHT_ABI_SIZES; every
 * required member is set, caps = RESIZE | UPDATE.
 * Per table: create refuses a bad option value (err names it) and value
 * sizes over 8; a single-thread run against a reference array (every return
 * value, every value read back, size exact); 2 threads on disjoint keys from
 * a tiny start (growth), then size and every key/value checked; 2 threads on
 * 16 shared keys (insert/remove/update/get, values carry their key); the
 * panic_key test hook: ops on that key fail (false), are counted in
 * stats.alloc_failures, other keys still work.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "cht_plugin.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static const struct cht_ops *ops;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void *make(size_t initial, double density, const struct cht_option *opts, char *err, size_t len)
{
    struct cht_config cfg = { .initial = initial, .density = density, .range = 1 << 20, .max_threads = 4,
                              .numa_nodes = 1, .options = opts, .value_size = 8 };
    return ops->create(&cfg, err, len);
}

static void model(void)
{
    enum { RANGE = 5000, NOPS = 200000 };
    char err[256] = "";
    void *t = make(100, 0.5, NULL, err, sizeof err);
    CHECK(t, "%s: create: %s", ops->name, err);
    if (!t)
        return;
    static uint64_t ref[RANGE + 1];
    memset(ref, 0, sizeof ref);
    size_t count = 0;
    for (int i = 0; i < NOPS && failures < 10; i++) {
        uint64_t k = 1 + rnd() % RANGE, v = rnd() | 1, got = 0;
        switch (rnd() % 4) {
        case 0: {
            bool ok = ops->insert(t, k, v);
            CHECK(ok == !ref[k], "%s: insert(%llu) = %d, key %s", ops->name, (unsigned long long)k, ok,
                  ref[k] ? "present" : "absent");
            if (ok) { ref[k] = v; count++; }
            break;
        }
        case 1: {
            bool ok = ops->remove(t, k);
            CHECK(ok == !!ref[k], "%s: remove(%llu) = %d", ops->name, (unsigned long long)k, ok);
            if (ok) { ref[k] = 0; count--; }
            break;
        }
        case 2: {
            bool ok = ops->update(t, k, v);
            CHECK(ok == !!ref[k], "%s: update(%llu) = %d", ops->name, (unsigned long long)k, ok);
            if (ok) ref[k] = v;
            break;
        }
        default: {
            bool ok = ops->get(t, k, &got);
            CHECK(ok == !!ref[k] && (!ok || got == ref[k]), "%s: get(%llu) = %d, %llx (want %llx)", ops->name,
                  (unsigned long long)k, ok, (unsigned long long)got, (unsigned long long)ref[k]);
        }
        }
        if (i % 10000 == 0)
            CHECK(ops->size(t) == count, "%s: size %zu, want %zu", ops->name, ops->size(t), count);
    }
    CHECK(ops->size(t) == count, "%s: final size %zu, want %zu", ops->name, ops->size(t), count);
    ops->destroy(t);
}

struct worker { void *t; unsigned tid, nthreads; uint64_t n; int bad; };

static void *disjoint_worker(void *arg)
{
    struct worker *w = arg;
    if (ops->thread_init) ops->thread_init(w->t, w->tid);
    for (uint64_t i = 0; i < w->n; i++) {
        uint64_t k = 1 + i * w->nthreads + w->tid;
        if (!ops->insert(w->t, k, k * 3)) w->bad++;
        if (ops->insert(w->t, k, 1)) w->bad++;
        if (i % 3 == 0 && !ops->update(w->t, k, k * 5)) w->bad++;
        if (i % 7 == 0 && !ops->remove(w->t, k)) w->bad++;
    }
    if (ops->thread_exit) ops->thread_exit(w->t, w->tid);
    return NULL;
}

static void disjoint(void)
{
    enum { T = 2, N = 100000 };
    char err[256] = "";
    void *t = make(1000, 8.0, NULL, err, sizeof err);   /* tiny start: the maps must grow */
    CHECK(t, "%s: create: %s", ops->name, err);
    if (!t)
        return;
    pthread_t th[T];
    struct worker w[T];
    for (unsigned i = 0; i < T; i++) {
        w[i] = (struct worker){ .t = t, .tid = i, .nthreads = T, .n = N };
        pthread_create(&th[i], NULL, disjoint_worker, &w[i]);
    }
    size_t want = 0;
    for (unsigned i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].bad == 0, "%s: disjoint thread %u: %d wrong results", ops->name, i, w[i].bad);
    }
    for (uint64_t i = 0; i < N; i++)
        want += (i % 7 != 0) * T;
    CHECK(ops->size(t) == want, "%s: disjoint size %zu, want %zu", ops->name, ops->size(t), want);
    int wrong = 0;
    for (unsigned tid = 0; tid < T; tid++)
        for (uint64_t i = 0; i < N; i++) {
            uint64_t k = 1 + i * T + tid, v = 0;
            bool ok = ops->get(t, k, &v);
            uint64_t expect = i % 3 == 0 ? k * 5 : k * 3;
            if (ok != (i % 7 != 0) || (ok && v != expect))
                wrong++;
        }
    CHECK(wrong == 0, "%s: disjoint: %d keys wrong after the run", ops->name, wrong);
    struct cht_stats s = { 0 };
    ops->stats(t, &s);
    CHECK(s.alloc_failures == 0, "%s: %llu panics", ops->name, (unsigned long long)s.alloc_failures);
    ops->destroy(t);
}

static void *shared_worker(void *arg)
{
    struct worker *w = arg;
    uint64_t x = 0x9e3779b97f4a7c15ull * (w->tid + 1);
    for (uint64_t i = 0; i < w->n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t k = 1 + x % 16, v = 0;
        switch ((x >> 32) % 4) {
        case 0: ops->insert(w->t, k, k << 8 | w->tid); break;
        case 1: ops->remove(w->t, k); break;
        case 2: ops->update(w->t, k, k << 8 | (i & 0xff)); break;
        default:
            if (ops->get(w->t, k, &v) && v >> 8 != k)
                w->bad++;
        }
    }
    return NULL;
}

static void shared(void)
{
    enum { T = 2, N = 200000 };
    char err[256] = "";
    void *t = make(16, 0.5, NULL, err, sizeof err);
    CHECK(t, "%s: create: %s", ops->name, err);
    if (!t)
        return;
    pthread_t th[T];
    struct worker w[T];
    for (unsigned i = 0; i < T; i++) {
        w[i] = (struct worker){ .t = t, .tid = i, .nthreads = T, .n = N };
        pthread_create(&th[i], NULL, shared_worker, &w[i]);
    }
    for (unsigned i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].bad == 0, "%s: shared: %d values of another key", ops->name, w[i].bad);
    }
    size_t found = 0;
    for (uint64_t k = 1; k <= 16; k++) {
        uint64_t v;
        found += ops->get(t, k, &v);
    }
    CHECK(ops->size(t) == found, "%s: shared: size %zu, get finds %zu", ops->name, ops->size(t), found);
    ops->destroy(t);
}

static void options_and_panics(void)
{
    char err[256] = "";
    struct cht_option bad[] = { { "hash", "bogus" }, { NULL, NULL } };
    void *t = make(10, 0.5, bad, err, sizeof err);
    CHECK(!t && strstr(err, "hash=bogus") && strstr(err, ops->name), "%s: hash=bogus accepted or err '%s'",
          ops->name, err);
    struct cht_option badk[] = { { "panic_key", "-1" }, { NULL, NULL } };
    err[0] = 0;
    t = make(10, 0.5, badk, err, sizeof err);
    CHECK(!t && strstr(err, "panic_key=-1"), "%s: panic_key=-1 accepted or err '%s'", ops->name, err);
    struct cht_config big = { .initial = 10, .density = 0.5, .range = 100, .max_threads = 1, .numa_nodes = 1,
                              .value_size = 100 };
    err[0] = 0;
    t = ops->create(&big, err, sizeof err);
    CHECK(!t && err[0], "%s: value_size 100 accepted", ops->name);

    for (unsigned h = 0; h < 4; h++) {
        static const char *const names[] = { "fold", "mix", "identity", "sip" };
        struct cht_option o[] = { { "hash", names[h] }, { "panic_key", "7" }, { NULL, NULL } };
        err[0] = 0;
        t = make(10, 0.5, o, err, sizeof err);
        CHECK(t, "%s: hash=%s: %s", ops->name, names[h], err);
        if (!t)
            continue;
        uint64_t v = 0;
        for (uint64_t k = 1; k <= 100; k++)
            CHECK(ops->insert(t, k, k + 1) == (k != 7), "%s: insert(%llu)", ops->name, (unsigned long long)k);
        CHECK(!ops->get(t, 7, &v) && !ops->update(t, 7, 1) && !ops->remove(t, 7), "%s: panic_key op succeeded",
              ops->name);
        for (uint64_t k = 1; k <= 100; k++)
            CHECK(k == 7 || (ops->get(t, k, &v) && v == k + 1), "%s: hash=%s get(%llu)", ops->name, names[h],
                  (unsigned long long)k);
        CHECK(ops->size(t) == 99, "%s: size %zu after panics", ops->name, ops->size(t));
        struct cht_stats s = { 0 };
        ops->stats(t, &s);
        CHECK(s.alloc_failures == 4, "%s: %llu panics counted, want 4", ops->name,
              (unsigned long long)s.alloc_failures);
        ops->destroy(t);   /* prints "NAME: 4 panics caught" */
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/libcht_rust.so\n", argv[0]);
        return 2;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "FAIL dlopen: %s\n", dlerror());
        return 1;
    }
    cht_plugin_fn fn = (cht_plugin_fn)dlsym(so, CHT_PLUGIN_SYMBOL);
    size_t (*layout)(size_t *, size_t) = (size_t (*)(size_t *, size_t))dlsym(so, "cht_rust_abi_layout");
    if (!fn || !layout) {
        fprintf(stderr, "FAIL dlsym: %s\n", dlerror());
        return 1;
    }
    const struct cht_plugin *p = fn();
    CHECK(p && p->abi_version == CHT_ABI_VERSION, "abi_version %u, header says %u", p ? p->abi_version : 0,
          CHT_ABI_VERSION);
    CHECK(p && p->name && strcmp(p->name, "rust") == 0, "plugin name");
    /* every shared struct's size, then each member's offset, in cht_rust_abi_layout's order (lib.rs) */
#define OFF(s, m) offsetof(struct s, m)
    const size_t want[] = {
        sizeof(struct cht_option), OFF(cht_option, key), OFF(cht_option, val),
        sizeof(struct cht_option_spec), OFF(cht_option_spec, key), OFF(cht_option_spec, help),
        sizeof(struct cht_config), OFF(cht_config, initial), OFF(cht_config, density), OFF(cht_config, range),
        OFF(cht_config, max_threads), OFF(cht_config, numa_nodes), OFF(cht_config, thread_node),
        OFF(cht_config, lock), OFF(cht_config, lock_config), OFF(cht_config, options), OFF(cht_config, value_size),
        OFF(cht_config, hugepages), OFF(cht_config, key_kind), OFF(cht_config, key_len_min),
        OFF(cht_config, key_len_max),
        sizeof(struct cht_stats), OFF(cht_stats, bytes), OFF(cht_stats, buckets), OFF(cht_stats, resizes),
        OFF(cht_stats, full_failures), OFF(cht_stats, alloc_failures), OFF(cht_stats, tx_begins),
        OFF(cht_stats, tx_commits), OFF(cht_stats, tx_aborts), OFF(cht_stats, tx_fallbacks),
        OFF(cht_stats, fp_bits), OFF(cht_stats, fp_bucket_slots), OFF(cht_stats, counter),
        OFF(cht_stats, counter_ctx),
        sizeof(struct cht_pipe_op), OFF(cht_pipe_op, key), OFF(cht_pipe_op, val), OFF(cht_pipe_op, kind),
        OFF(cht_pipe_op, stage), OFF(cht_pipe_op, result), OFF(cht_pipe_op, pad), OFF(cht_pipe_op, state),
        sizeof(struct cht_ops), OFF(cht_ops, name), OFF(cht_ops, summary), OFF(cht_ops, caps),
        OFF(cht_ops, options), OFF(cht_ops, available), OFF(cht_ops, create), OFF(cht_ops, destroy),
        OFF(cht_ops, thread_init), OFF(cht_ops, thread_exit), OFF(cht_ops, get), OFF(cht_ops, insert),
        OFF(cht_ops, remove), OFF(cht_ops, update), OFF(cht_ops, size), OFF(cht_ops, stats),
        OFF(cht_ops, get_batch), OFF(cht_ops, probe_lines), OFF(cht_ops, default_lock), OFF(cht_ops, pipe_start),
        OFF(cht_ops, pipe_step), OFF(cht_ops, get_bytes), OFF(cht_ops, insert_bytes), OFF(cht_ops, remove_bytes),
        OFF(cht_ops, update_bytes),
        sizeof(struct lock_config), OFF(lock_config, numa_nodes), OFF(lock_config, max_threads),
        OFF(lock_config, handoff_bound), OFF(lock_config, waiter_threshold),
        sizeof(struct lock_stats), OFF(lock_stats, acquisitions), OFF(lock_stats, fallbacks),
        OFF(lock_stats, tx_begins), OFF(lock_stats, tx_commits), OFF(lock_stats, tx_aborts),
        OFF(lock_stats, abort_conflict), OFF(lock_stats, abort_capacity), OFF(lock_stats, abort_explicit),
        OFF(lock_stats, abort_retry), OFF(lock_stats, abort_other),
        sizeof(struct lock_ops), OFF(lock_ops, name), OFF(lock_ops, summary), OFF(lock_ops, caps),
        OFF(lock_ops, lock_size), OFF(lock_ops, ctx_size), OFF(lock_ops, available), OFF(lock_ops, init),
        OFF(lock_ops, destroy), OFF(lock_ops, ctx_init), OFF(lock_ops, lock), OFF(lock_ops, trylock),
        OFF(lock_ops, unlock), OFF(lock_ops, read_lock), OFF(lock_ops, read_unlock), OFF(lock_ops, stats),
        OFF(lock_ops, is_locked), OFF(lock_ops, has_waiters), OFF(lock_ops, ctx_stats),
        sizeof(struct cht_abi_sizes), OFF(cht_abi_sizes, cht_ops), OFF(cht_abi_sizes, cht_config),
        OFF(cht_abi_sizes, cht_stats), OFF(cht_abi_sizes, cht_pipe_op), OFF(cht_abi_sizes, cht_option),
        OFF(cht_abi_sizes, cht_option_spec), OFF(cht_abi_sizes, lock_ops), OFF(cht_abi_sizes, lock_config),
        OFF(cht_abi_sizes, lock_stats),
        sizeof(struct cht_plugin), OFF(cht_plugin, abi_version), OFF(cht_plugin, name), OFF(cht_plugin, tables),
        OFF(cht_plugin, locks), OFF(cht_plugin, sizes),
    };
#undef OFF
    enum { N_LAYOUT = sizeof want / sizeof want[0] };
    size_t got[N_LAYOUT + 1] = { 0 };
    size_t n_layout = layout(got, N_LAYOUT + 1);
    CHECK(n_layout == N_LAYOUT, "layout count: Rust %zu, C %d", n_layout, (int)N_LAYOUT);
    for (int i = 0; i < N_LAYOUT; i++)
        CHECK(got[i] == want[i], "layout[%d]: Rust %zu, C %zu (plugins/rust/src/abi.rs out of date)", i, got[i],
              want[i]);
    const struct cht_abi_sizes sizes = CHT_ABI_SIZES;
    CHECK(p && memcmp(&p->sizes, &sizes, sizeof sizes) == 0, "cht_plugin.sizes is not CHT_ABI_SIZES");
    if (failures || !p->tables)
        return 1;
    static const char *const expect[] = { "rs-dashmap", "rs-papaya", "rs-scc",     "rs-std-mutex",
                                          "rs-flurry",  "rs-contrie", "rs-scc-index", NULL };
    unsigned n = 0;
    for (; p->tables[n]; n++) {
        ops = p->tables[n];
        CHECK(expect[n] && strcmp(ops->name, expect[n]) == 0, "table %u is %s", n, ops->name);
        CHECK(ops->caps == (CHT_CAP_RESIZE | CHT_CAP_UPDATE), "%s: caps %#x", ops->name, ops->caps);
        CHECK(ops->create && ops->destroy && ops->get && ops->insert && ops->remove && ops->update && ops->size &&
              ops->stats && ops->summary && ops->options, "%s: a member is NULL", ops->name);
        if (failures)
            return 1;
        model();
        disjoint();
        shared();
        options_and_panics();
        printf("%s: %s\n", ops->name, failures ? "FAILED" : "ok");
    }
    CHECK(n == 7, "%u tables, want 7", n);
    dlclose(so);
    return failures != 0;
}
