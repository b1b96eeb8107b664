/*
 * bench_jni_call.c - what one C -> Java call costs from a C pthread (docs/measurements/java-maps.md).
 *
 *   bench_jni_call PATH/libcht_java.so [CALLS] [THREADS]
 *
 * dlopens the Java plugin, creates a jv-chm table (which starts the JVM with its default flags), then
 * each of THREADS pthreads (attached on its first call, as the driver's threads are) makes CALLS
 * calls of the shim's cht_java_probe (one JNI call of chtbench.Maps.probe: returns x + 1), and of a
 * C function doing the same through a pointer, and prints ns per call of both and their difference:
 * the JNI crossing every jv-* operation pays. The calls before the timing (CALLS of them) let the
 * JIT compile probe. Built with the project, not run by the tests (it times).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cht_plugin.h"

typedef uint64_t (*probe_fn)(uint64_t);
static probe_fn java_probe;
static volatile probe_fn c_probe;
static unsigned long calls = 10000000;
static pthread_barrier_t bar;

static uint64_t c_plus_one(uint64_t x) { return x + 1; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct res { double java_ns, c_ns; uint64_t sink; };

static void *worker(void *arg)
{
    struct res *r = arg;
    uint64_t x = 0;
    for (unsigned long i = 0; i < calls; i++)   /* attach, and JIT warm-up */
        x = java_probe(x);
    pthread_barrier_wait(&bar);
    double t0 = now();
    for (unsigned long i = 0; i < calls; i++)
        x = java_probe(x);
    double t1 = now();
    probe_fn c = c_probe;
    for (unsigned long i = 0; i < calls; i++) {
        x = c(x);
        c = c_probe;
    }
    double t2 = now();
    r->java_ns = (t1 - t0) * 1e9 / calls;
    r->c_ns = (t2 - t1) * 1e9 / calls;
    r->sink = x;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/libcht_java.so [CALLS] [THREADS]\n", argv[0]);
        return 2;
    }
    if (argc > 2)
        calls = strtoul(argv[2], NULL, 10);
    unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    if (n < 1 || n > 256 || calls < 1) {
        fprintf(stderr, "bad CALLS or THREADS\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    cht_plugin_fn entry = h ? (cht_plugin_fn)(uintptr_t)dlsym(h, CHT_PLUGIN_SYMBOL) : NULL;
    java_probe = h ? (probe_fn)(uintptr_t)dlsym(h, "cht_java_probe") : NULL;
    if (!entry || !java_probe) {
        fprintf(stderr, "%s: %s\n", argv[1], dlerror());
        return 2;
    }
    const struct cht_ops *chm = entry()->tables[0];
    struct cht_config cfg = { .initial = 16, .density = 0.5, .range = 1000, .max_threads = n, .numa_nodes = 1 };
    char err[512] = "";
    char why[512] = "";
    if (chm->available && !chm->available(why, sizeof why)) {
        fprintf(stderr, "%s: unavailable: %s\n", chm->name, why);
        return 1;
    }
    void *t = chm->create(&cfg, err, sizeof err);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    c_probe = c_plus_one;
    pthread_barrier_init(&bar, NULL, n);
    pthread_t th[256];
    struct res r[256];
    for (unsigned i = 0; i < n; i++)
        pthread_create(&th[i], NULL, worker, &r[i]);
    double java = 0, c = 0;
    for (unsigned i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        java += r[i].java_ns;
        c += r[i].c_ns;
    }
    printf("threads %u calls %lu: java %.1f ns/call, c %.1f ns/call, JNI crossing %.1f ns\n", n, calls, java / n,
           c / n, (java - c) / n);
    return 0;
}
