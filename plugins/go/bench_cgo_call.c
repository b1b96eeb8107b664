/*
 * bench_cgo_call.c - what one C -> Go call costs from a C pthread (docs/measurements/go-maps.md).
 *
 *   bench_cgo_call PATH/libcht_go.so [CALLS] [THREADS]
 *
 * dlopens the Go plugin, then each of THREADS pthreads (foreign to Go: the driver's kind of thread)
 * makes CALLS calls of the exported chtGoCallProbe (maps.go: returns x + 1, nothing else), and of a
 * C function doing the same through a pointer, and prints ns per call of both and their difference:
 * the cgo crossing every go-* operation pays (the first call on a thread, which binds it to a Go M,
 * is made before the timing). Built with the project, not run by the tests (it times).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t (*probe_fn)(uint64_t);
static probe_fn go_probe;
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

struct res { double go_ns, c_ns; uint64_t sink; };

static void *worker(void *arg)
{
    struct res *r = arg;
    uint64_t x = go_probe(0);   /* binds this thread to an M */
    pthread_barrier_wait(&bar);
    double t0 = now();
    for (unsigned long i = 0; i < calls; i++)
        x = go_probe(x);
    double t1 = now();
    probe_fn c = c_probe;
    for (unsigned long i = 0; i < calls; i++) {
        x = c(x);
        c = c_probe;
    }
    double t2 = now();
    r->go_ns = (t1 - t0) * 1e9 / calls;
    r->c_ns = (t2 - t1) * 1e9 / calls;
    r->sink = x;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH/libcht_go.so [CALLS] [THREADS]\n", argv[0]);
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
    if (!h || !(go_probe = (probe_fn)(uintptr_t)dlsym(h, "chtGoCallProbe"))) {
        fprintf(stderr, "%s: %s\n", argv[1], dlerror());
        return 2;
    }
    c_probe = c_plus_one;
    pthread_barrier_init(&bar, NULL, n);
    pthread_t th[256];
    struct res r[256];
    for (unsigned i = 0; i < n; i++)
        pthread_create(&th[i], NULL, worker, &r[i]);
    double go = 0, c = 0;
    for (unsigned i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        go += r[i].go_ns;
        c += r[i].c_ns;
    }
    printf("threads %u calls %lu: go %.1f ns/call, c %.1f ns/call, cgo crossing %.1f ns\n", n, calls, go / n,
           c / n, (go - c) / n);
    return 0;
}
