/* test_latency.c - latency statistics on known samples (src/latency.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "latency.h"

static int failures, checks;
#define CHECK(c, ...) do { checks++; if (!(c)) { failures++; printf("FAIL "); } else printf("ok   "); printf(__VA_ARGS__); printf("\n"); } while (0)
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-9 * (fabs((double)(b)) + 1))

int main(void)
{
    /* 1..1000 shuffled: nearest-rank percentiles are exact */
    enum { N = 1000 };
    uint32_t v[N];
    for (int i = 0; i < N; i++)
        v[i] = (uint32_t)(N - i);
    struct lat_stats s;
    lat_compute(v, N, &s);
    CHECK(s.count == N && s.min == 1 && s.max == 1000, "count/min/max of 1..1000");
    CHECK(NEAR(s.avg, 500.5), "avg 500.5 (got %g)", s.avg);
    CHECK(s.p50 == 500 && s.p90 == 900 && s.p99 == 990 && s.p999 == 999,
          "percentiles 500/900/990/999 (got %g/%g/%g/%g)", s.p50, s.p90, s.p99, s.p999);
    CHECK(NEAR(s.absdev, 250.0), "abs-dev of 1..1000 is 250 (got %g)", s.absdev);
    CHECK(NEAR(s.stdev, sqrt(1000.0 * 1001.0 / 12.0)), "stdev = sqrt(n(n+1)/12) (got %g)", s.stdev);
    /* within 10% of 500.5: [450.45, 550.55] -> 451..550 = 100 values */
    CHECK(NEAR(s.within10, 0.100) && NEAR(s.within25, 0.250) && NEAR(s.within50, 0.500),
          "clustering shares 0.10/0.25/0.50 (got %g/%g/%g)", s.within10, s.within25, s.within50);
    uint64_t hs = 0;
    for (int b = 0; b < LAT_HIST_BUCKETS; b++)
        hs += s.hist[b];
    CHECK(hs == N && s.hist[0] == 1 && s.hist[1] == 2 && s.hist[9] == 1000 - 511,
          "log2 histogram: 1 in [0,1], 2 in [2,3], 489 in [512,1023], sum n");

    /* a clustered set: 90 samples of 100, 10 of 1000 */
    uint32_t w[100];
    for (int i = 0; i < 100; i++)
        w[i] = i < 10 ? 1000 : 100;
    lat_compute(w, 100, &s);
    CHECK(NEAR(s.avg, 190) && s.p50 == 100 && s.p90 == 100 && s.p99 == 1000,
          "bimodal: avg 190, p50 100, p90 100, p99 1000");
    CHECK(s.within10 == 0 && s.within25 == 0 && NEAR(s.within50, 0.9), "bimodal: 90%% within 50%% of avg, none within 25%%");

    CHECK(lat_bucket(0) == 0 && lat_bucket(1) == 0 && lat_bucket(2) == 1 && lat_bucket(1023) == 9 && lat_bucket(1024) == 10,
          "bucket boundaries");

    /* merging two thread buffers, one over its cap */
    struct lat_buf b[2];
    lat_buf_init(&b[0], 8);
    lat_buf_init(&b[1], 8);
    for (int i = 0; i < 10; i++)
        lat_record(&b[0], 0, 10);
    for (int i = 0; i < 3; i++)
        lat_record(&b[1], 0, 30);
    lat_record(&b[1], 5, (uint64_t)1 << 40);
    struct lat_result r = { 0 };
    lat_merge(b, 2, &r);
    CHECK(r.st[0].count == 11 && r.dropped == 2 && r.st[5].count == 1 && r.st[5].max == UINT32_MAX,
          "merge: 8 + 3 kept, 2 dropped, huge sample clamped");
    lat_buf_free(&b[0]);
    lat_buf_free(&b[1]);

    struct lat_clock c;
    char why[256];
    if (lat_supported(why, sizeof why)) {
        lat_calibrate(&c);
        CHECK(c.tsc_hz > 1e8 && c.tsc_hz < 1e10 && c.overhead_cycles < 10000, "calibration: %.3f GHz, %llu cycles",
              c.tsc_hz / 1e9, (unsigned long long)c.overhead_cycles);
    }
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
