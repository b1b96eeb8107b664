/*
 * test_values.c - the Java plugin (plugins/java) loaded by hand, without the driver: what the
 * conformance suite's values never reach.
 *
 *   test_values PATH/libcht_java.so
 *
 * Per table (jv-chm, jv-nbhm): the value get uses for "absent" (1 << 63, Maps.ABSENT) stored,
 * read back as present with that value, and absent again after remove (the note that told the two
 * apart does not leak into the next get); 0 and UINT64_MAX stored and updated; size exact. Then
 * threads that never call thread_init (attached on demand, detached by the pthread key at their
 * end), three in turn and two at once, insert, read and remove disjoint keys; a thread that calls
 * thread_init twice (two tables) stays attached until its second thread_exit. Prints
 * "N passed, N failed".
 */
#include <dlfcn.h>
#include <pthread.h>
#include "cht_plugin.h"

static int passed, failed;
#define CHECK(c, ...) do { if (c) passed++; else { failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define ABSENT_WORD (1ull << 63)

struct job { const struct cht_ops *ops; void *t; cht_key_t first; unsigned n; unsigned bad; };

/* inserts n keys from first with value ~key, reads them back, removes them: no thread_init */
static void *unattached_worker(void *arg)
{
    struct job *j = arg;
    for (unsigned i = 0; i < j->n; i++)
        j->bad += !j->ops->insert(j->t, j->first + i, ~(j->first + i));
    for (unsigned i = 0; i < j->n; i++) {
        cht_val_t v = 0;
        j->bad += !j->ops->get(j->t, j->first + i, &v) || v != ~(j->first + i);
    }
    for (unsigned i = 0; i < j->n; i++)
        j->bad += !j->ops->remove(j->t, j->first + i);
    return NULL;
}

static void run_threads(const struct cht_ops *ops, void *t, unsigned nthreads, cht_key_t first)
{
    pthread_t th[2];
    struct job jobs[2];
    for (unsigned i = 0; i < nthreads; i++) {
        jobs[i] = (struct job){ .ops = ops, .t = t, .first = first + i * 10000, .n = 2000 };
        pthread_create(&th[i], NULL, unattached_worker, &jobs[i]);
    }
    for (unsigned i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        CHECK(jobs[i].bad == 0, "%s: a thread without thread_init: %u of 6000 ops wrong", ops->name, jobs[i].bad);
    }
}

static void check_table(const struct cht_ops *ops)
{
    struct cht_config cfg = { .initial = 64, .density = 0.5, .range = 1 << 20, .max_threads = 4, .numa_nodes = 1 };
    char err[512] = "";
    void *t = ops->create(&cfg, err, sizeof err);
    CHECK(t != NULL, "%s: create: %s", ops->name, err);
    if (!t)
        return;
    ops->thread_init(t, 0);
    cht_val_t v = 12345;
    CHECK(!ops->get(t, 1, &v) && v == 12345, "%s: get of an absent key: false, value untouched", ops->name);
    CHECK(ops->insert(t, 1, ABSENT_WORD), "%s: insert 1 -> 1<<63", ops->name);
    CHECK(ops->get(t, 1, &v) && v == ABSENT_WORD, "%s: get 1: present, 1<<63 (got %llx)", ops->name,
          (unsigned long long)v);
    CHECK(!ops->get(t, 2, &v), "%s: get 2 right after: absent (the note does not leak)", ops->name);
    CHECK(ops->get(t, 1, &v) && v == ABSENT_WORD, "%s: get 1 again: present", ops->name);
    CHECK(ops->insert(t, 2, 0) && ops->get(t, 2, &v) && v == 0, "%s: insert and get 2 -> 0", ops->name);
    CHECK(ops->update(t, 2, UINT64_MAX) && ops->get(t, 2, &v) && v == UINT64_MAX, "%s: update 2 -> ~0", ops->name);
    CHECK(ops->update(t, 2, ABSENT_WORD) && ops->get(t, 2, &v) && v == ABSENT_WORD, "%s: update 2 -> 1<<63",
          ops->name);
    CHECK(!ops->update(t, 3, 7) && !ops->get(t, 3, &v), "%s: update of an absent key: false, still absent", ops->name);
    CHECK(!ops->insert(t, 1, 5) && ops->get(t, 1, &v) && v == ABSENT_WORD, "%s: insert of a present key: false, "
          "value kept", ops->name);
    CHECK(ops->size(t) == 2, "%s: size 2 (got %zu)", ops->name, ops->size(t));
    CHECK(ops->remove(t, 1) && !ops->get(t, 1, &v) && !ops->remove(t, 1), "%s: remove 1, then absent", ops->name);
    CHECK(ops->size(t) == 1, "%s: size 1 (got %zu)", ops->name, ops->size(t));
    /* a second table on the same thread: nested thread_init/thread_exit */
    void *t2 = ops->create(&cfg, err, sizeof err);
    CHECK(t2 != NULL, "%s: a second table: %s", ops->name, err);
    if (t2) {
        ops->thread_init(t2, 0);
        ops->thread_exit(t2, 0);
        CHECK(ops->insert(t2, 9, 9) && ops->get(t, 2, &v) && v == ABSENT_WORD, "%s: ops after the inner "
              "thread_exit", ops->name);
        ops->destroy(t2);
    }
    ops->thread_exit(t, 0);
    for (unsigned round = 0; round < 3; round++)
        run_threads(ops, t, 1, 100 + round * 100000);
    run_threads(ops, t, 2, 500000);
    CHECK(ops->size(t) == 1, "%s: size 1 after the threads (got %zu)", ops->name, ops->size(t));
    ops->destroy(t);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/libcht_java.so\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    cht_plugin_fn entry = h ? (cht_plugin_fn)(uintptr_t)dlsym(h, CHT_PLUGIN_SYMBOL) : NULL;
    if (!entry) {
        fprintf(stderr, "%s: %s\n", argv[1], dlerror());
        return 2;
    }
    const struct cht_plugin *p = entry();
    char why[512];
    if (p->tables[0]->available && !p->tables[0]->available(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    for (unsigned i = 0; p->tables[i]; i++)
        check_table(p->tables[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
