/*
 * striped.c - an example chtbench plugin: a chained hash table under striped
 * locks, the locks taken through cfg->lock so that any lock of
 * `chtbench --list=locks` (built in or from another plugin) runs inside it.
 *
 * Buckets are singly linked lists of malloc'ed nodes; bucket b is guarded by
 * stripe b & (stripes - 1), one lock from locks/ on its own cache line
 * (tables/table_locks.h). Every operation, get included, holds its stripe
 * (get in the lock's shared mode), so nodes are freed right away on remove:
 * no reader can be inside a list without its stripe. The bucket count is
 * fixed at create (initial / density, a power of two); chains just grow, so
 * an insert never fails for want of room. size() sums per-stripe counts that
 * change only under their stripe's lock.
 *
 * -DBROKEN (meson configure -Dbroken=true) makes it wrong on purpose: one
 * insert in 100000 (counted over all threads) returns true without storing
 * the key. chtbench's final check and `chtbench check` must catch it.
 *
 * Build (docs/plugins.md): meson setup build && ninja -C build
 * Use:   chtbench --plugin build/libex-striped.so --table ex-striped:lock=ttas,stripes=64
 */
#include <cht_hash.h>
#include <cht_plugin.h>
#include <table_locks.h>

struct node {
    cht_key_t key;
    cht_val_t val;
    struct node *next;
};

/* per stripe: the key count, written only under the stripe's lock; padded so
 * that two stripes' counts never share a line */
struct stripe_count {
    alignas(CHT_CACHE_LINE) int64_t n;
};

struct striped {
    struct cht_locks locks;      /* `stripes` locks, one ctx per thread */
    struct node **head;          /* buckets */
    uint64_t mask;               /* buckets - 1 */
    uint64_t stripe_mask;        /* stripes - 1 */
    struct stripe_count *count;  /* per stripe */
    enum cht_hash_kind hash;
    unsigned threads;
    bool mapped;                 /* head came from cht_alloc_large's mapping */
    uint64_t alloc_failures;     /* inserts refused: no memory for the node */
#ifdef BROKEN
    uint64_t inserts;            /* successful inserts so far, all threads */
#endif
};

static __thread unsigned ex_tid;   /* set by thread_init: whose lock ctx to use */

static const struct cht_option_spec ex_options[] = {
    { "lock", "any lock from --list=locks (default pthread-mutex)" },
    { "stripes", "1..65536 locks, a power of two (default 256)" },
    CHT_HASH_OPTION,
    { NULL, NULL },
};

static void *ex_create(const struct cht_config *cfg, char *err, size_t len)
{
    unsigned hash = CHT_HASH_DEFAULT;
    uint64_t stripes = 256;
    if (!cht_option_enum(cfg->options, "ex-striped", "hash", cht_hash_names, &hash, err, len) ||
        !cht_option_uint(cfg->options, "ex-striped", "stripes", 1, 65536, &stripes, err, len))
        return NULL;
    if (stripes & (stripes - 1)) {
        snprintf(err, len, "--table ex-striped: option stripes=%llu: expected a power of two",
                 (unsigned long long)stripes);
        return NULL;
    }
    if (!cfg->lock) {   /* the registry resolves .default_lock, so this is a driver bug */
        snprintf(err, len, "--table ex-striped: no lock given");
        return NULL;
    }
    uint64_t buckets = cht_initial_buckets(cfg, 1, 1ull << 40, err, len);
    if (!buckets)
        return NULL;
    struct striped *t = cht_alloc_zeroed(sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    t->hash = (enum cht_hash_kind)hash;
    t->threads = cfg->max_threads ? cfg->max_threads : 1;
    t->mask = buckets - 1;
    t->stripe_mask = stripes - 1;
    t->head = cht_alloc_large(buckets * sizeof *t->head, cfg->hugepages, &t->mapped);
    t->count = cht_alloc_zeroed(stripes * sizeof *t->count);
    if (!t->head || !t->count) {
        snprintf(err, len, "out of memory (%llu buckets)", (unsigned long long)buckets);
    } else if (cht_locks_init(&t->locks, cfg->lock, cfg, stripes, t->threads, 1, "ex-striped", err, len)) {
        return t;
    }
    if (t->head)
        cht_free_large(t->head, buckets * sizeof *t->head, t->mapped);
    free(t->count);
    free(t);
    return NULL;
}

static void ex_destroy(void *tp)
{
    struct striped *t = tp;
    for (uint64_t b = 0; b <= t->mask; b++)
        for (struct node *n = t->head[b], *next; n; n = next) {
            next = n->next;
            free(n);
        }
    cht_locks_destroy(&t->locks);
    cht_free_large(t->head, (t->mask + 1) * sizeof *t->head, t->mapped);
    free(t->count);
    free(t);
}

static void ex_thread_init(void *tp, unsigned tid)
{
    (void)tp;
    ex_tid = tid;
}

static void *ex_ctx(struct striped *t)
{
    return t->locks.ctx ? cht_locks_ctx(&t->locks, cht_thread_slot(ex_tid, t->threads), 1, 0) : NULL;
}

static bool ex_get(void *tp, cht_key_t k, cht_val_t *v)
{
    struct striped *t = tp;
    uint64_t b = cht_hash(t->hash, k) & t->mask, s = b & t->stripe_mask;
    void *ctx = ex_ctx(t);
    bool found = false;
    cht_locks_read_lock(&t->locks, s, ctx);
    for (struct node *n = t->head[b]; n; n = n->next)
        if (n->key == k) {
            *v = n->val;
            found = true;
            break;
        }
    cht_locks_read_unlock(&t->locks, s, ctx);
    return found;
}

static bool ex_insert(void *tp, cht_key_t k, cht_val_t v)
{
    struct striped *t = tp;
    uint64_t b = cht_hash(t->hash, k) & t->mask, s = b & t->stripe_mask;
    void *ctx = ex_ctx(t);
    struct node *fresh = malloc(sizeof *fresh);   /* outside the lock; freed if the key is there */
    if (!fresh) {
        __atomic_fetch_add(&t->alloc_failures, 1, __ATOMIC_RELAXED);
        return false;
    }
    bool done = false;
    cht_locks_lock(&t->locks, s, ctx);
    bool present = false;
    for (struct node *n = t->head[b]; n && !present; n = n->next)
        present = n->key == k;
#ifdef BROKEN
    /* the deliberate bug: every 100000th successful insert is reported but never stored */
    if (!present && __atomic_add_fetch(&t->inserts, 1, __ATOMIC_RELAXED) % 100000 == 0) {
        cht_locks_unlock(&t->locks, s, ctx);
        free(fresh);
        return true;
    }
#endif
    if (!present) {
        fresh->key = k;
        fresh->val = v;
        fresh->next = t->head[b];
        t->head[b] = fresh;
        __atomic_store_n(&t->count[s].n, t->count[s].n + 1, __ATOMIC_RELAXED);
        done = true;
    }
    cht_locks_unlock(&t->locks, s, ctx);
    if (!done)
        free(fresh);
    return done;
}

static bool ex_remove(void *tp, cht_key_t k)
{
    struct striped *t = tp;
    uint64_t b = cht_hash(t->hash, k) & t->mask, s = b & t->stripe_mask;
    void *ctx = ex_ctx(t);
    struct node *gone = NULL;
    cht_locks_lock(&t->locks, s, ctx);
    for (struct node **p = &t->head[b]; *p; p = &(*p)->next)
        if ((*p)->key == k) {
            gone = *p;
            *p = gone->next;
            __atomic_store_n(&t->count[s].n, t->count[s].n - 1, __ATOMIC_RELAXED);
            break;
        }
    cht_locks_unlock(&t->locks, s, ctx);
    free(gone);
    return gone != NULL;
}

static bool ex_update(void *tp, cht_key_t k, cht_val_t v)
{
    struct striped *t = tp;
    uint64_t b = cht_hash(t->hash, k) & t->mask, s = b & t->stripe_mask;
    void *ctx = ex_ctx(t);
    bool found = false;
    cht_locks_lock(&t->locks, s, ctx);
    for (struct node *n = t->head[b]; n && !found; n = n->next)
        if (n->key == k) {
            n->val = v;
            found = true;
        }
    cht_locks_unlock(&t->locks, s, ctx);
    return found;
}

static size_t ex_size(void *tp)
{
    struct striped *t = tp;
    int64_t sum = 0;
    for (uint64_t s = 0; s <= t->stripe_mask; s++)
        sum += __atomic_load_n(&t->count[s].n, __ATOMIC_RELAXED);
    return cht_count_as_size(sum);
}

static void ex_stats(void *tp, struct cht_stats *st)
{
    struct striped *t = tp;
    st->buckets = t->mask + 1;
    st->alloc_failures = __atomic_load_n(&t->alloc_failures, __ATOMIC_RELAXED);
    st->bytes = sizeof *t + st->buckets * sizeof *t->head + (t->stripe_mask + 1) * sizeof *t->count +
                ex_size(tp) * sizeof(struct node) + cht_locks_bytes(&t->locks);
}

static const struct cht_ops ex_striped = {
    .name = "ex-striped",
    .summary = "example plugin table: chaining under striped locks from --list=locks (examples/plugin-table)",
    .caps = CHT_CAP_UPDATE | CHT_CAP_LOCK_PARAM,   /* no FIXED_CAP: chains grow, never full */
    .options = ex_options,
    .create = ex_create,
    .destroy = ex_destroy,
    .thread_init = ex_thread_init,
    .get = ex_get,
    .insert = ex_insert,
    .remove = ex_remove,
    .update = ex_update,
    .size = ex_size,
    .stats = ex_stats,
    .default_lock = "pthread-mutex",
};

static const struct cht_ops *const ex_tables[] = { &ex_striped, NULL };

static const struct cht_plugin ex_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "example-table",
    .tables = ex_tables,
    .locks = NULL,
    .sizes = CHT_ABI_SIZES,
};

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void);   /* declared: -Wmissing-prototypes */

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void)
{
    return &ex_plugin;
}
