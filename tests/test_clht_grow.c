/*
 * test_clht_grow.c - clht-lf resizes the table whose append set `grow`, not
 * whatever table is current when the insert finishes (issue 13.9).
 *
 * The race, made deterministic: tables/clht_lf.c is compiled into this test
 * with its LF_TEST_AFTER_GROW hook defined to play a second thread that
 * resizes T right after our append took T past its threshold (exactly what a
 * concurrent inserter that also crossed it does). Our insert then reloads the
 * current table, inserts there, and finishes: it must not resize the new
 * table as well. Before the fix it did (resizes == 2 after one crossing); the
 * spurious resize rebuilt a freshly published table in place.
 * Also checks that every key inserted around the resizes is present.
 */
#include "cht.h"
struct clht_lf;
struct lf_table;
static void test_after_grow(struct clht_lf *h, struct lf_table *T);
#define LF_TEST_AFTER_GROW(h, T) test_after_grow(h, T)
#include "../tables/clht_lf.c"
#include "test_check.h"

static int fired;
static uint64_t resizes_in_hook;

static void test_after_grow(struct clht_lf *h, struct lf_table *T)
{
    if (fired++)
        return;
    lf_resize(h, T);                    /* "another thread" resizes T now */
    resizes_in_hook = CHT_LD(&h->resizes, RELAXED);
}

int main(void)
{
    const struct cht_ops *ops = &cht_table_clht_lf;
    static const struct cht_option opts[] = { { "hash", "identity" }, { NULL, NULL } };
    for (int variant = 0; variant < 2; variant++) {
        struct cht_config cfg = { .initial = 16, .density = 0.5, .range = 1u << 20, .max_threads = 1,
                                  .numa_nodes = 1, .options = variant ? opts : NULL };
        char err[256] = "";
        void *t = ops->create(&cfg, err, sizeof err);
        CHECK(t != NULL, "create: %s", err);
        if (!t)
            return 1;
        ops->thread_init(t, 0);
        struct cht_stats s0 = { 0 }, s1 = { 0 };
        ops->stats(t, &s0);
        fired = 0;
        cht_key_t k = 0;
        /* keys that share one chain of the 16-bucket table (with hash=identity:
         * multiples of 16; with the default hash: any keys) until an append
         * crosses the threshold */
        while (!fired && k < 100000) {
            k++;
            cht_key_t key = variant ? k * 16 : k;
            CHECK(ops->insert(t, key, key + 1), "insert %llu", (unsigned long long)key);
        }
        CHECK(fired == 1, "the threshold was never crossed (%llu inserts)", (unsigned long long)k);
        ops->stats(t, &s1);
        CHECK(resizes_in_hook == 1, "the hook's resize did not happen (%llu)",
              (unsigned long long)resizes_in_hook);
        CHECK(s1.resizes == 1,
              "variant %d: %llu resizes after one threshold crossing (the inserter resized the "
              "table another thread had just published)", variant, (unsigned long long)s1.resizes);
        for (cht_key_t i = 1; i <= k; i++) {
            cht_key_t key = variant ? i * 16 : i;
            cht_val_t v = 0;
            CHECK(ops->get(t, key, &v) && v == key + 1, "key %llu lost", (unsigned long long)key);
        }
        CHECK(ops->size(t) == k, "size %zu, expected %llu", ops->size(t), (unsigned long long)k);
        printf("variant %s: %llu inserts, threshold crossed once, %llu resize(s), buckets %zu -> %zu\n",
               variant ? "hash=identity (one chain)" : "default hash", (unsigned long long)k,
               (unsigned long long)s1.resizes, s0.buckets, s1.buckets);
        ops->thread_exit(t, 0);
        ops->destroy(t);
    }
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
