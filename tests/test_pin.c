/*
 * test_pin.c - tests for src/pin.c (topology + thread pinning plans).
 *
 * Plans are checked exactly on the thesis machines (seed 000, section 3.4.6),
 * given as hwloc synthetic topologies, whose OS indexes are hwloc's defaults:
 * every object type numbered 0,1,2,... across the machine in tree order.
 *   E5-2630        "pack:2 core:8 pu:2"          32 PUs, PUs 2c,2c+1 on core c
 *   E7-4850        "pack:4 core:12 pu:2"         96 PUs
 *   Opteron 6172   "pack:4 numa:2 core:6 pu:1"   48 PUs, 8 NUMA nodes (2 per socket)
 *   Xeon Phi 7120P "pack:1 core:61 pu:4"         244 PUs
 * plus an XML round trip, --pin / --topology parsing, and the real machine
 * (plans stay inside sched_getaffinity; pin_apply really moves the thread).
 *
 * Build by hand, e.g.:
 *   gcc -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc src/pin.c tests/test_pin.c \
 *       -lhwloc -lpthread -o /tmp/tp && /tmp/tp
 * Prints one line per check ("ok" / "FAIL ... : why"); exits 1 if any failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pin.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures, checks;

static void check(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...)
{
    checks++;
    if (ok) {
        printf("ok   %s\n", name);
        return;
    }
    failures++;
    printf("FAIL %s: ", name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- helpers over plans ---- */

static struct pin_topology *load_or_die(const char *spec)
{
    char err[256] = "";
    struct pin_topology *t = pin_topology_load(spec, err, sizeof err);
    char name[96];
    snprintf(name, sizeof name, "load %s%s%s", spec ? "'" : "", spec ? spec : "this machine", spec ? "'" : "");
    check(t != NULL, name, "%s", err);
    if (!t) {
        printf("cannot continue without topology '%s'\n", spec ? spec : "(this machine)");
        exit(1);
    }
    return t;
}

static bool make(const struct pin_topology *t, enum pin_policy pol, unsigned n, struct pin_plan *p)
{
    char err[256] = "";
    struct pin_spec s = { pol, NULL, 0 };
    if (pin_plan_make(t, &s, n, p, err, sizeof err) != 0) {
        printf("     (pin_plan_make %s %u: %s)\n", pin_policy_name(pol), n, err);
        return false;
    }
    return true;
}

/* Expected slot function for a given thread. */
typedef struct pin_slot (*expect_fn)(unsigned i);

/* Compare a whole plan against expect(); name the first mismatch. */
static void check_plan(const char *name, const struct pin_topology *t, enum pin_policy pol,
                       unsigned n, expect_fn expect, bool check_numa)
{
    struct pin_plan p;
    char why[256] = "";
    if (!make(t, pol, n, &p)) {
        check(false, name, "plan could not be made");
        return;
    }
    if (p.threads != n || p.policy != pol)
        snprintf(why, sizeof why, "plan has %u threads / policy %d", p.threads, (int)p.policy);
    for (unsigned i = 0; i < n && !why[0]; i++) {
        struct pin_slot e = expect(i), g = p.slot[i];
        if (g.pu != e.pu || g.core != e.core || g.socket != e.socket ||
            (check_numa && g.numa != e.numa))
            snprintf(why, sizeof why,
                     "thread %u: got pu %d core %d socket %d numa %d, want pu %d core %d socket %d numa %d",
                     i, g.pu, g.core, g.socket, g.numa, e.pu, e.core, e.socket,
                     check_numa ? e.numa : g.numa);
    }
    check(!why[0], name, "%s", why);
    pin_plan_free(&p);
}

/* E5-2630 "pack:2 core:8 pu:2" */
static struct pin_slot e5_compact(unsigned i)
{
    return (struct pin_slot){ (int)i, (int)(i / 2), (int)(i / 16), 0 };
}
static struct pin_slot e5_balanced(unsigned i)
{
    unsigned sock = i % 2, core = sock * 8 + (i % 16) / 2, smt = i / 16;
    return (struct pin_slot){ (int)(core * 2 + smt), (int)core, (int)sock, 0 };
}
/* E7-4850 "pack:4 core:12 pu:2" */
static struct pin_slot e7_compact(unsigned i)
{
    return (struct pin_slot){ (int)i, (int)(i / 2), (int)(i / 24), 0 };
}
static struct pin_slot e7_balanced(unsigned i)
{
    unsigned sock = i % 4, core = sock * 12 + (i % 48) / 4, smt = i / 48;
    return (struct pin_slot){ (int)(core * 2 + smt), (int)core, (int)sock, 0 };
}
/* Opteron 6172 "pack:4 numa:2 core:6 pu:1": core c = PU c, node c/6, socket c/12 */
static struct pin_slot opt_compact(unsigned i)
{
    return (struct pin_slot){ (int)i, (int)i, (int)(i / 12), (int)(i / 6) };
}
/* balanced: round-robin over sockets; a socket's "core j" alternates its 2
 * nodes: j=0 -> node A core 0, j=1 -> node B core 0, j=2 -> node A core 1 ... */
static struct pin_slot opt_balanced(unsigned i)
{
    unsigned sock = i % 4, j = i / 4, node = sock * 2 + j % 2, core = node * 6 + j / 2;
    return (struct pin_slot){ (int)core, (int)core, (int)sock, (int)node };
}
/* Xeon Phi 7120P "pack:1 core:61 pu:4" */
static struct pin_slot phi_compact(unsigned i)
{
    return (struct pin_slot){ (int)i, (int)(i / 4), 0, 0 };
}
static struct pin_slot phi_balanced(unsigned i)
{
    unsigned core = i % 61, smt = i / 61;
    return (struct pin_slot){ (int)(core * 4 + smt), (int)core, 0, 0 };
}

/* ---- parsing ---- */

static void test_parse(void)
{
    struct { const char *s; enum pin_policy pol; } good[] = {
        { "default", PIN_DEFAULT }, { "compact", PIN_COMPACT }, { "balanced", PIN_BALANCED },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct pin_spec s;
        char err[256] = "", name[64];
        int rc = pin_parse(good[i].s, &s, err, sizeof err);
        snprintf(name, sizeof name, "parse '%s'", good[i].s);
        check(rc == 0 && s.policy == good[i].pol && s.list == NULL &&
              !strcmp(pin_policy_name(s.policy), good[i].s), name, "rc %d policy %d err '%s'", rc,
              (int)s.policy, err);
        pin_spec_free(&s);
    }

    struct { const char *s; unsigned n; unsigned v[8]; } lists[] = {
        { "list:0,2,4-7", 6, { 0, 2, 4, 5, 6, 7 } },
        { "list:3", 1, { 3 } },
        { "list:5-5,1", 2, { 5, 1 } },
        { "list:1,1,0", 3, { 1, 1, 0 } },
        { "list:10-12,0-1", 5, { 10, 11, 12, 0, 1 } },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        struct pin_spec s;
        char err[256] = "", name[64];
        int rc = pin_parse(lists[i].s, &s, err, sizeof err);
        bool ok = rc == 0 && s.policy == PIN_LIST && s.list_len == lists[i].n && s.list;
        for (unsigned j = 0; ok && j < lists[i].n; j++)
            ok = s.list[j] == lists[i].v[j];
        snprintf(name, sizeof name, "parse '%s'", lists[i].s);
        check(ok, name, "rc %d policy %d len %u err '%s'", rc, (int)s.policy, s.list_len, err);
        pin_spec_free(&s);
        check(s.list == NULL && s.list_len == 0, "pin_spec_free clears the list", "list %p len %u",
              (void *)s.list, s.list_len);
    }
    check(!strcmp(pin_policy_name(PIN_LIST), "list"), "pin_policy_name(PIN_LIST)", "got '%s'",
          pin_policy_name(PIN_LIST));

    const char *bad[] = { "", "foo", "Compact", "compact ", " balanced", "list", "list:", "list:,1",
                          "list:1,", "list:3-1", "list:a", "list:1-", "list:-1", "list:1 2",
                          "list:1,,2", "list:0x3", "list:99999999999", "list:1-2-3" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pin_spec s = { PIN_COMPACT, (unsigned *)&s, 7 };   /* garbage that must be reset */
        char err[512] = "", name[64];
        int rc = pin_parse(bad[i], &s, err, sizeof err);
        snprintf(name, sizeof name, "reject --pin '%s'", bad[i]);
        check(rc == -1 && starts_with(err, "--pin: ") && strstr(err, "default, compact, balanced") &&
              strstr(err, "list:") && !strchr(err, '\n') && s.list == NULL && s.list_len == 0, name,
              "rc %d err '%s'", rc, err);
        pin_spec_free(&s);
    }
    {
        struct pin_spec s;
        char err[256] = "";
        int rc = pin_parse("list:0-1000000", &s, err, sizeof err);
        check(rc == -1 && starts_with(err, "--pin: "), "reject --pin list expanding past the limit",
              "rc %d err '%s'", rc, err);
        pin_spec_free(&s);
    }
}

/* ---- --topology errors ---- */

static void test_topology_errors(void)
{
    char tmp[] = "/tmp/test_pin_garbage_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        if (write(fd, "this is not xml\n", 16) != 16)
            perror("write");
        close(fd);
    }
    const char *bad[] = { "", "bogus", "pack:2 core:0", "pack:2 core:8 pu:2 foo:3", "pack:x",
                          "/nonexistent/dir/topo.xml", "no_such_topology.xml", "/tmp", tmp };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "", name[96];
        struct pin_topology *t = pin_topology_load(bad[i], err, sizeof err);
        snprintf(name, sizeof name, "reject --topology '%s'", bad[i]);
        check(t == NULL && starts_with(err, "--topology: ") && !strchr(err, '\n'), name,
              "t %p err '%s'", (void *)t, err);
        pin_topology_free(t);
    }
    if (fd >= 0)
        unlink(tmp);

    /* oversized synthetic topologies: refused at once, before hwloc (which takes 20 s for 65536 PUs) */
    const struct { const char *spec, *want; } big[] = {
        { "pack:64 core:64 pu:16", "--topology: 'pack:64 core:64 pu:16' describes 65536 PUs; at most 16384 "
          "(hwloc's time to build a synthetic topology grows quadratically: 20 s at 65536 PUs)" },
        { "pack:1 core:16385 pu:1", "--topology: 'pack:1 core:16385 pu:1' describes 16385 PUs; at most 16384 " },
        { "2 128 128", "--topology: '2 128 128' describes 32768 PUs; at most 16384 " },
        { "pack:2(memory=1GB) core:8192 pu:2", "--topology: 'pack:2(memory=1GB) core:8192 pu:2' describes 32768 PUs" },
        { "pack:99999999999 core:99999999999 pu:99999", "--topology: 'pack:99999999999 core:99999999999 pu:99999' "
          "describes more than 2^64 PUs; at most 16384 " },
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        char err[512] = "", name[128];
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        struct pin_topology *t = pin_topology_load(big[i].spec, err, sizeof err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        snprintf(name, sizeof name, "reject oversized --topology '%s' at once", big[i].spec);
        check(t == NULL && starts_with(err, big[i].want) && s < 0.5, name, "t %p %.2f s err '%s'", (void *)t, s, err);
        pin_topology_free(t);
    }
    struct pin_topology *ok = pin_topology_load("pack:2 core:8(memory=1GB) pu:2", NULL, 0);
    check(ok && pin_topology_pus(ok) == 32, "synthetic topology with attributes under the cap still loads", "%p",
          (void *)ok);
    pin_topology_free(ok);
}

/* ---- thesis machines ---- */

static void test_e5(void)
{
    struct pin_topology *t = load_or_die("pack:2 core:8 pu:2");
    char d[128];
    pin_topology_describe(t, d, sizeof d);
    check(!strcmp(d, "2 sockets, 16 cores, 32 PUs, 1 NUMA node"), "E5-2630 describe", "got '%s'", d);
    check(pin_topology_pus(t) == 32 && pin_topology_numa_nodes(t) == 1, "E5-2630 32 PUs 1 node",
          "pus %u nodes %u", pin_topology_pus(t), pin_topology_numa_nodes(t));

    check_plan("E5-2630 compact 32 exact", t, PIN_COMPACT, 32, e5_compact, true);
    check_plan("E5-2630 balanced 32 exact", t, PIN_BALANCED, 32, e5_balanced, true);

    /* compact 24 (the thesis example), asserted structurally too */
    struct pin_plan p;
    if (make(t, PIN_COMPACT, 24, &p)) {
        int uses[16] = { 0 };
        bool ok = true;
        char why[160] = "";
        for (unsigned i = 0; i < 16; i++) {
            if (p.slot[i].socket != 0 || p.slot[i].core < 0 || p.slot[i].core > 7) {
                ok = false;
                snprintf(why, sizeof why, "thread %u on socket %d core %d", i, p.slot[i].socket,
                         p.slot[i].core);
                break;
            }
            uses[p.slot[i].core]++;
        }
        for (unsigned c = 0; ok && c < 8; c++)
            if (uses[c] != 2) {
                ok = false;
                snprintf(why, sizeof why, "core %u used %d times by threads 0-15", c, uses[c]);
            }
        check(ok, "E5-2630 compact 24: threads 0-15 fill socket 0, each core twice", "%s", why);
        ok = true;
        for (unsigned i = 16; i < 24; i++)
            if (p.slot[i].socket != 1 || p.slot[i].core != 8 + (int)(i - 16) / 2) {
                ok = false;
                snprintf(why, sizeof why, "thread %u on socket %d core %d", i, p.slot[i].socket,
                         p.slot[i].core);
                break;
            }
        check(ok, "E5-2630 compact 24: threads 16-23 on socket 1's first 4 cores (8-11)", "%s", why);
        check(!p.oversubscribed && p.numa_nodes == 1, "E5-2630 compact 24 not oversubscribed",
              "oversubscribed %d numa_nodes %u", p.oversubscribed, p.numa_nodes);
        pin_plan_free(&p);
        check(p.slot == NULL && p.threads == 0, "pin_plan_free clears the plan", "slot %p",
              (void *)p.slot);
    }

    if (make(t, PIN_BALANCED, 16, &p)) {
        int per_sock[2] = { 0, 0 }, core_used[16] = { 0 };
        bool ok = true;
        char why[160] = "";
        for (unsigned i = 0; i < 16; i++) {
            int c = p.slot[i].core, s = p.slot[i].socket;
            if (s < 0 || s > 1 || c < 0 || c > 15 || p.slot[i].pu != 2 * c) {
                ok = false;
                snprintf(why, sizeof why, "thread %u: pu %d core %d socket %d (want the core's first PU)",
                         i, p.slot[i].pu, c, s);
                break;
            }
            per_sock[s]++;
            if (core_used[c]++) {
                ok = false;
                snprintf(why, sizeof why, "core %d used twice", c);
                break;
            }
        }
        if (ok && (per_sock[0] != 8 || per_sock[1] != 8)) {
            ok = false;
            snprintf(why, sizeof why, "sockets got %d and %d threads", per_sock[0], per_sock[1]);
        }
        check(ok, "E5-2630 balanced 16: 8 per socket, 16 distinct cores, no SMT sibling", "%s", why);
        check(p.slot[0].socket == 0 && p.slot[1].socket == 1 && p.slot[2].socket == 0 &&
              p.slot[0].core == 0 && p.slot[1].core == 8 && p.slot[2].core == 1,
              "E5-2630 balanced alternates sockets: t0 s0c0, t1 s1c8, t2 s0c1",
              "t0 s%dc%d t1 s%dc%d t2 s%dc%d", p.slot[0].socket, p.slot[0].core, p.slot[1].socket,
              p.slot[1].core, p.slot[2].socket, p.slot[2].core);
        pin_plan_free(&p);
    }
    if (make(t, PIN_BALANCED, 17, &p)) {
        bool sibling = p.slot[16].core == p.slot[0].core && p.slot[16].pu != p.slot[0].pu;
        check(sibling && p.slot[16].pu == 1, "E5-2630 balanced 17: thread 16 is the SMT sibling (PU 1) of core 0",
              "thread 16: pu %d core %d", p.slot[16].pu, p.slot[16].core);
        pin_plan_free(&p);
    }

    /* oversubscription wraps and flags */
    if (make(t, PIN_COMPACT, 33, &p)) {
        char why[192] = "";
        pin_plan_oversubscription(NULL, &p, 32, why, sizeof why);
        check(!strcmp(why, "33 threads on 32 usable CPUs (threads 0 and 32 share CPU 0)"),
              "compact 33 on 32 PUs: the warning counts CPUs", "got '%s'", why);
        pin_plan_free(&p);
    }
    if (make(t, PIN_DEFAULT, 40, &p)) {
        char why[192] = "";
        pin_plan_oversubscription(NULL, &p, 32, why, sizeof why);
        check(!strcmp(why, "40 threads on 32 usable CPUs"), "default 40 on 32 PUs: the warning counts CPUs",
              "got '%s'", why);
        pin_plan_free(&p);
    }
    if (make(t, PIN_COMPACT, 40, &p)) {
        bool ok = p.oversubscribed && p.threads == 40;
        for (unsigned i = 32; ok && i < 40; i++)
            ok = !memcmp(&p.slot[i], &p.slot[i - 32], sizeof p.slot[i]);
        check(ok, "E5-2630 compact 40: oversubscribed, thread k = thread k-32", "oversubscribed %d",
              p.oversubscribed);
        pin_plan_free(&p);
    }
    if (make(t, PIN_BALANCED, 33, &p)) {
        check(p.oversubscribed && !memcmp(&p.slot[32], &p.slot[0], sizeof p.slot[0]) &&
              p.slot[32].pu == 0, "E5-2630 balanced 33: oversubscribed, thread 32 = thread 0",
              "oversubscribed %d thread 32 pu %d", p.oversubscribed, p.slot[32].pu);
        pin_plan_free(&p);
    }
    if (make(t, PIN_BALANCED, 32, &p)) {
        check(!p.oversubscribed, "E5-2630 balanced 32 not oversubscribed", "flagged");
        pin_plan_free(&p);
    }
    if (make(t, PIN_DEFAULT, 40, &p)) {
        bool ok = p.oversubscribed;
        for (unsigned i = 0; ok && i < 40; i++)
            ok = p.slot[i].pu == -1 && p.slot[i].core == -1 && p.slot[i].socket == -1 &&
                 p.slot[i].numa == -1 && pin_plan_node(&p, i) == 0;
        check(ok, "E5-2630 default 40: all slots -1, node 0, oversubscribed", "oversubscribed %d",
              p.oversubscribed);
        char err[256] = "";
        check(pin_apply(t, &p, 3, err, sizeof err) == 0, "pin_apply is a no-op for default",
              "%s", err);
        pin_plan_free(&p);
    }
    if (make(t, PIN_DEFAULT, 8, &p)) {
        check(!p.oversubscribed, "E5-2630 default 8 not oversubscribed", "flagged");
        pin_plan_free(&p);
    }
    {
        char err[256] = "";
        struct pin_spec s = { PIN_COMPACT, NULL, 0 };
        check(pin_plan_make(t, &s, 0, &p, err, sizeof err) == -1 && starts_with(err, "--pin: ") &&
              p.slot == NULL, "0 threads rejected", "err '%s'", err);
    }

    /* list */
    struct pin_spec s;
    char err[256] = "";
    if (pin_parse("list:0,2,4-7", &s, err, sizeof err) == 0) {
        int want[6] = { 0, 2, 4, 5, 6, 7 };
        bool ok = pin_plan_make(t, &s, 6, &p, err, sizeof err) == 0 && p.policy == PIN_LIST;
        for (unsigned i = 0; ok && i < 6; i++)
            ok = p.slot[i].pu == want[i] && p.slot[i].core == want[i] / 2 && p.slot[i].socket == 0;
        check(ok && !p.oversubscribed, "E5-2630 list:0,2,4-7 plan equals the list", "%s", err);
        pin_plan_free(&p);
        ok = pin_plan_make(t, &s, 4, &p, err, sizeof err) == 0 && p.threads == 4 && p.slot[3].pu == 5;
        check(ok, "E5-2630 list of 6, 4 threads: first 4 entries", "%s", err);
        pin_plan_free(&p);
        char why[192] = "";
        pin_plan_oversubscription(&s, &p, 32, why, sizeof why);
        check(!why[0], "E5-2630 list of 6, 4 threads: no oversubscription reason", "got '%s'", why);
        pin_plan_free(&p);
        err[0] = 0;
        ok = pin_plan_make(t, &s, 13, &p, err, sizeof err) == 0 && p.threads == 13 && p.oversubscribed;
        for (unsigned i = 0; ok && i < 13; i++)
            ok = p.slot[i].pu == want[i % 6] && p.slot[i].core == want[i % 6] / 2;
        check(ok, "E5-2630 list of 6, 13 threads: wraps around (thread k on entry k mod 6), oversubscribed",
              "err '%s'", err);
        pin_plan_oversubscription(&s, &p, 32, why, sizeof why);
        check(!strcmp(why, "13 threads on the 6 CPUs of the --pin list (it wraps around: threads 0 and 6 share CPU 0)"),
              "list of 6, 13 threads: the warning says the list wraps around", "got '%s'", why);
        pin_plan_free(&p);
        pin_spec_free(&s);
    }
    if (pin_parse("list:20,99", &s, err, sizeof err) == 0) {
        err[0] = 0;
        int rc = pin_plan_make(t, &s, 1, &p, err, sizeof err);
        check(rc == -1 && starts_with(err, "--pin: PU 99 is not available") && strstr(err, "0-31"),
              "E5-2630 list:20,99 rejected naming PU 99 and PUs 0-31", "rc %d err '%s'", rc, err);
        pin_spec_free(&s);
    }
    if (pin_parse("list:3,3,17", &s, err, sizeof err) == 0) {
        bool ok = pin_plan_make(t, &s, 3, &p, err, sizeof err) == 0;
        check(ok && p.oversubscribed && p.slot[2].pu == 17 && p.slot[2].socket == 1 &&
              p.slot[2].core == 8, "E5-2630 list:3,3,17: repeated PU flags oversubscribed",
              "%s", err);
        char why[192] = "";
        pin_plan_oversubscription(&s, &p, 32, why, sizeof why);
        check(!strcmp(why, "the --pin list names CPU 3 twice (threads 0 and 1 share it)"),
              "list:3,3,17: the warning names the repeated CPU, not the CPU count", "got '%s'", why);
        pin_plan_free(&p);
        pin_spec_free(&s);
    }

    /* printing */
    if (make(t, PIN_COMPACT, 3, &p)) {
        char *buf = NULL;
        size_t sz = 0;
        FILE *f = open_memstream(&buf, &sz);
        pin_plan_print(f, &p);
        fclose(f);
        const char *want = "# thread pu core socket numa\n0 0 0 0 0\n1 1 0 0 0\n2 2 1 0 0\n";
        check(buf && !strcmp(buf, want), "pin_plan_print compact 3", "got:\n%s", buf ? buf : "(null)");
        free(buf);
        pin_plan_free(&p);
    }
    if (make(t, PIN_DEFAULT, 2, &p)) {
        char *buf = NULL;
        size_t sz = 0;
        FILE *f = open_memstream(&buf, &sz);
        pin_plan_print(f, &p);
        fclose(f);
        const char *want = "# thread pu core socket numa\n0 - - - -\n1 - - - -\n";
        check(buf && !strcmp(buf, want), "pin_plan_print default 2", "got:\n%s", buf ? buf : "(null)");
        free(buf);
        pin_plan_free(&p);
    }

    /* binding with a synthetic topology is refused */
    if (make(t, PIN_COMPACT, 2, &p)) {
        err[0] = 0;
        check(pin_apply(t, &p, 0, err, sizeof err) == -1 && starts_with(err, "--pin: "),
              "pin_apply refuses a synthetic topology", "err '%s'", err);
        err[0] = 0;
        check(pin_apply(t, &p, 2, err, sizeof err) == -1 && starts_with(err, "--pin: "),
              "pin_apply rejects tid out of range", "err '%s'", err);
        pin_plan_free(&p);
    }
    pin_topology_free(t);
}

static void test_e7(void)
{
    struct pin_topology *t = load_or_die("pack:4 core:12 pu:2");
    char d[128];
    pin_topology_describe(t, d, sizeof d);
    check(!strcmp(d, "4 sockets, 48 cores, 96 PUs, 1 NUMA node"), "E7-4850 describe", "got '%s'", d);
    check_plan("E7-4850 compact 96 exact", t, PIN_COMPACT, 96, e7_compact, true);
    check_plan("E7-4850 balanced 96 exact", t, PIN_BALANCED, 96, e7_balanced, true);
    struct pin_plan p;
    if (make(t, PIN_BALANCED, 49, &p)) {
        bool distinct = true;
        for (unsigned i = 0; i < 48 && distinct; i++)
            for (unsigned j = 0; j < i; j++)
                if (p.slot[i].core == p.slot[j].core)
                    distinct = false;
        check(distinct && p.slot[48].core == 0 && p.slot[48].pu == 1,
              "E7-4850 balanced 49: 48 distinct cores, thread 48 = sibling PU 1 of core 0",
              "distinct %d thread 48 pu %d core %d", distinct, p.slot[48].pu, p.slot[48].core);
        pin_plan_free(&p);
    }
    if (make(t, PIN_COMPACT, 30, &p)) {
        check(p.slot[23].socket == 0 && p.slot[24].socket == 1 && p.slot[29].core == 14,
              "E7-4850 compact 30: socket 0 full at 24, thread 29 on core 14",
              "t23 s%d t24 s%d t29 c%d", p.slot[23].socket, p.slot[24].socket, p.slot[29].core);
        pin_plan_free(&p);
    }
    pin_topology_free(t);
}

static void test_opteron(void)
{
    struct pin_topology *t = load_or_die("pack:4 numa:2 core:6 pu:1");
    char d[128];
    pin_topology_describe(t, d, sizeof d);
    check(!strcmp(d, "4 sockets, 48 cores, 48 PUs, 8 NUMA nodes"), "Opteron 6172 describe", "got '%s'", d);
    check(pin_topology_numa_nodes(t) == 8, "Opteron 6172 8 NUMA nodes", "got %u", pin_topology_numa_nodes(t));
    check_plan("Opteron 6172 compact 48 exact (numa = pu/6)", t, PIN_COMPACT, 48, opt_compact, true);
    check_plan("Opteron 6172 balanced 48 exact", t, PIN_BALANCED, 48, opt_balanced, true);

    struct pin_plan all, p;
    if (make(t, PIN_COMPACT, 48, &all) && make(t, PIN_BALANCED, 4, &p)) {
        /* numbering-independent: four sockets, four nodes, each node inside its thread's socket */
        bool ok = p.numa_nodes == 8;
        char why[160] = "";
        for (unsigned i = 0; ok && i < 4; i++)
            for (unsigned j = 0; ok && j < i; j++)
                if (p.slot[i].socket == p.slot[j].socket || p.slot[i].numa == p.slot[j].numa) {
                    ok = false;
                    snprintf(why, sizeof why, "threads %u and %u share socket %d / node %d", j, i,
                             p.slot[i].socket, p.slot[i].numa);
                }
        for (unsigned i = 0; ok && i < 4; i++)
            for (unsigned k = 0; k < 48; k++)
                if (all.slot[k].numa == p.slot[i].numa && all.slot[k].socket != p.slot[i].socket) {
                    ok = false;
                    snprintf(why, sizeof why, "node %d also holds PU %d of socket %d", p.slot[i].numa,
                             all.slot[k].pu, all.slot[k].socket);
                    break;
                }
        for (unsigned i = 0; ok && i < 4; i++)
            if (pin_plan_node(&p, i) != (unsigned)p.slot[i].numa) {
                ok = false;
                snprintf(why, sizeof why, "pin_plan_node(%u) = %u, slot says %d", i, pin_plan_node(&p, i),
                         p.slot[i].numa);
            }
        check(ok, "Opteron 6172 balanced 4: 4 sockets, 4 distinct nodes, node within socket", "%s", why);
        check(p.slot[0].numa == 0 && p.slot[1].numa == 2 && p.slot[2].numa == 4 && p.slot[3].numa == 6,
              "Opteron 6172 balanced 4: nodes 0,2,4,6", "nodes %d,%d,%d,%d", p.slot[0].numa,
              p.slot[1].numa, p.slot[2].numa, p.slot[3].numa);
        pin_plan_free(&p);
    }
    pin_plan_free(&all);
    if (make(t, PIN_BALANCED, 8, &p)) {
        unsigned seen = 0;
        for (unsigned i = 0; i < 8; i++)
            if (p.slot[i].numa >= 0 && p.slot[i].numa < 32)
                seen |= 1u << p.slot[i].numa;
        check(seen == 0xff, "Opteron 6172 balanced 8: all 8 NUMA nodes used", "node mask 0x%x", seen);
        pin_plan_free(&p);
    }
    if (make(t, PIN_COMPACT, 12, &p)) {
        bool ok = true;
        for (unsigned i = 0; i < 12; i++)
            ok = ok && p.slot[i].socket == 0 && pin_plan_node(&p, i) == (i < 6 ? 0u : 1u);
        check(ok, "Opteron 6172 compact 12: socket 0, nodes 0 then 1", "t0 node %u t11 node %u",
              pin_plan_node(&p, 0), pin_plan_node(&p, 11));
        pin_plan_free(&p);
    }
    pin_topology_free(t);
}

static void test_phi(void)
{
    struct pin_topology *t = load_or_die("pack:1 core:61 pu:4");
    char d[128];
    pin_topology_describe(t, d, sizeof d);
    check(!strcmp(d, "1 socket, 61 cores, 244 PUs, 1 NUMA node"), "Xeon Phi 7120P describe", "got '%s'", d);
    check_plan("Xeon Phi 7120P compact 244 exact", t, PIN_COMPACT, 244, phi_compact, true);
    check_plan("Xeon Phi 7120P balanced 244 exact", t, PIN_BALANCED, 244, phi_balanced, true);
    struct pin_plan p;
    if (make(t, PIN_COMPACT, 8, &p)) {
        int uses[2] = { 0, 0 };
        bool ok = true;
        for (unsigned i = 0; i < 8; i++) {
            if (p.slot[i].core < 0 || p.slot[i].core > 1)
                ok = false;
            else
                uses[p.slot[i].core]++;
        }
        check(ok && uses[0] == 4 && uses[1] == 4, "Xeon Phi 7120P compact 8: two cores, 4 PUs each",
              "core 0 x%d, core 1 x%d", uses[0], uses[1]);
        pin_plan_free(&p);
    }
    if (make(t, PIN_BALANCED, 62, &p)) {
        check(p.slot[60].core == 60 && p.slot[60].pu == 240 && p.slot[61].core == 0 && p.slot[61].pu == 1,
              "Xeon Phi 7120P balanced 62: 61 cores first, thread 61 on core 0's 2nd PU",
              "t60 core %d pu %d, t61 core %d pu %d", p.slot[60].core, p.slot[60].pu, p.slot[61].core,
              p.slot[61].pu);
        pin_plan_free(&p);
    }
    pin_topology_free(t);
}

/* ---- XML round trip ---- */

static void test_xml(const char *synth)
{
    char path[] = "/tmp/test_pin_XXXXXX.xml", name[128];
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        check(false, "XML temp file", "mkstemps: %s", strerror(errno));
        return;
    }
    close(fd);
    hwloc_topology_t h;
    bool ok = hwloc_topology_init(&h) == 0;
    ok = ok && hwloc_topology_set_synthetic(h, synth) == 0 && hwloc_topology_load(h) == 0 &&
         hwloc_topology_export_xml(h, path, 0) == 0;
    hwloc_topology_destroy(h);
    snprintf(name, sizeof name, "XML export of '%s'", synth);
    check(ok, name, "hwloc could not export to %s", path);

    char err[256] = "";
    struct pin_topology *ts = pin_topology_load(synth, err, sizeof err);
    struct pin_topology *tx = ok ? pin_topology_load(path, err, sizeof err) : NULL;
    snprintf(name, sizeof name, "XML load of '%s'", synth);
    check(ts && tx, name, "%s", err);
    if (ts && tx) {
        char ds[128], dx[128], why[320] = "";
        pin_topology_describe(ts, ds, sizeof ds);
        pin_topology_describe(tx, dx, sizeof dx);
        if (strcmp(ds, dx))
            snprintf(why, sizeof why, "describe '%s' vs '%s'", ds, dx);
        unsigned n = pin_topology_pus(ts) + 3;   /* include wrap-around */
        for (int pol = PIN_COMPACT; pol <= PIN_BALANCED && !why[0]; pol++) {
            struct pin_plan a, b;
            if (!make(ts, (enum pin_policy)pol, n, &a)) {
                snprintf(why, sizeof why, "synthetic plan failed");
                break;
            }
            if (!make(tx, (enum pin_policy)pol, n, &b)) {
                snprintf(why, sizeof why, "XML plan failed");
                pin_plan_free(&a);
                break;
            }
            if (a.numa_nodes != b.numa_nodes || a.oversubscribed != b.oversubscribed)
                snprintf(why, sizeof why, "%s: numa_nodes %u/%u oversubscribed %d/%d",
                         pin_policy_name((enum pin_policy)pol), a.numa_nodes, b.numa_nodes,
                         a.oversubscribed, b.oversubscribed);
            for (unsigned i = 0; i < n && !why[0]; i++)
                if (memcmp(&a.slot[i], &b.slot[i], sizeof a.slot[i]))
                    snprintf(why, sizeof why, "%s thread %u: pu %d/%d core %d/%d socket %d/%d numa %d/%d",
                             pin_policy_name((enum pin_policy)pol), i, a.slot[i].pu, b.slot[i].pu,
                             a.slot[i].core, b.slot[i].core, a.slot[i].socket, b.slot[i].socket,
                             a.slot[i].numa, b.slot[i].numa);
            pin_plan_free(&a);
            pin_plan_free(&b);
        }
        snprintf(name, sizeof name, "XML round trip '%s': same plans", synth);
        check(!why[0], name, "%s", why);
    }
    pin_topology_free(ts);
    pin_topology_free(tx);
    unlink(path);
}

/* ---- the real machine ---- */

static int mask_cpus(cpu_set_t *m, int *list, int max)
{
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, m)) {
            if (n < max)
                list[n] = c;
            n++;
        }
    return n;
}

struct apply_arg {
    const struct pin_topology *t;
    const struct pin_plan *p;
    unsigned tid;
    int rc, cpu, mask_n, mask_first;
    char err[256];
};

static void *apply_thread(void *v)
{
    struct apply_arg *a = v;
    a->rc = pin_apply(a->t, a->p, a->tid, a->err, sizeof a->err);
    cpu_set_t m;
    CPU_ZERO(&m);
    sched_getaffinity(0, sizeof m, &m);
    int first = -1;
    a->mask_n = mask_cpus(&m, &first, 1);
    a->mask_first = first;
    sched_yield();
    a->cpu = sched_getcpu();
    return NULL;
}

static void test_real(void)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        check(false, "real: sched_getaffinity", "%s", strerror(errno));
        return;
    }
    int cpus[CPU_SETSIZE];
    int ncpu = mask_cpus(&allowed, cpus, CPU_SETSIZE);

    struct pin_topology *t = load_or_die(NULL);
    const char *fake = getenv("HWLOC_XMLFILE") ? "HWLOC_XMLFILE"
                     : getenv("HWLOC_SYNTHETIC") ? "HWLOC_SYNTHETIC"
                     : getenv("HWLOC_FSROOT") ? "HWLOC_FSROOT" : NULL;
    if (fake) {
        /* hwloc loads what the variable names instead of this machine:
         * plans may be printed, binding must be refused. */
        struct pin_plan p;
        char err[256] = "";
        if (make(t, PIN_COMPACT, 1, &p)) {
            int rc = pin_apply(t, &p, 0, err, sizeof err);
            check(rc == -1 && starts_with(err, "--pin: "), "real: binding refused when hwloc is redirected",
                  "rc %d err '%s'", rc, err);
            pin_plan_free(&p);
        }
        printf("skip real machine checks: %s is set\n", fake);
        pin_topology_free(t);
        return;
    }
    char d[128];
    pin_topology_describe(t, d, sizeof d);
    printf("     real machine: %s; allowed CPUs: %d\n", d, ncpu);
    check((int)pin_topology_pus(t) == ncpu, "real: usable PUs = sched_getaffinity count",
          "pin_topology_pus %u, affinity %d", pin_topology_pus(t), ncpu);
    check(pin_topology_numa_nodes(t) >= 1, "real: >= 1 NUMA node", "got %u", pin_topology_numa_nodes(t));

    unsigned n = pin_topology_pus(t);
    for (int pol = PIN_COMPACT; pol <= PIN_BALANCED; pol++) {
        unsigned counts[4] = { 1, n / 2 > 1 ? n / 2 : 2, n, n + 1 };
        for (unsigned ci = 0; ci < 4; ci++) {
            unsigned threads = counts[ci];
            if (ci > 0 && threads == counts[ci - 1])
                continue;
            struct pin_plan p;
            char name[96], why[160] = "";
            if (!make(t, (enum pin_policy)pol, threads, &p)) {
                check(false, "real: plan", "%s %u failed", pin_policy_name((enum pin_policy)pol), threads);
                continue;
            }
            if (p.threads != threads)
                snprintf(why, sizeof why, "plan has %u threads", p.threads);
            for (unsigned i = 0; i < threads && !why[0]; i++) {
                if (p.slot[i].pu < 0 || p.slot[i].pu >= CPU_SETSIZE || !CPU_ISSET(p.slot[i].pu, &allowed))
                    snprintf(why, sizeof why, "thread %u on PU %d, outside the affinity mask", i, p.slot[i].pu);
                for (unsigned j = 0; j < i && !why[0] && i < n; j++)
                    if (p.slot[j].pu == p.slot[i].pu)
                        snprintf(why, sizeof why, "threads %u and %u share PU %d", j, i, p.slot[i].pu);
            }
            if (!why[0] && p.oversubscribed != (threads > n))
                snprintf(why, sizeof why, "oversubscribed %d with %u threads on %u PUs", p.oversubscribed,
                         threads, n);
            snprintf(name, sizeof name, "real: %s %u threads within the allowed PUs",
                     pin_policy_name((enum pin_policy)pol), threads);
            check(!why[0], name, "%s", why);
            pin_plan_free(&p);
        }
    }

    /* pin_apply moves each thread onto its PU */
    struct pin_plan p;
    if (make(t, PIN_BALANCED, n, &p)) {
        for (unsigned i = 0; i < n; i++) {
            struct apply_arg a = { t, &p, i, -1, -1, 0, -1, "" };
            pthread_t th;
            char name[96];
            if (pthread_create(&th, NULL, apply_thread, &a) != 0) {
                check(false, "real: pthread_create", "%s", strerror(errno));
                break;
            }
            pthread_join(th, NULL);
            snprintf(name, sizeof name, "real: pin_apply thread %u -> PU %d (sched_getcpu, affinity)", i,
                     p.slot[i].pu);
            check(a.rc == 0 && a.cpu == p.slot[i].pu && a.mask_n == 1 && a.mask_first == p.slot[i].pu,
                  name, "rc %d '%s', running on CPU %d, affinity %d CPUs first %d", a.rc, a.err, a.cpu,
                  a.mask_n, a.mask_first);
        }
        pin_plan_free(&p);
    }
    if (make(t, PIN_DEFAULT, 2, &p)) {
        struct apply_arg a = { t, &p, 1, -1, -1, 0, -1, "" };
        pthread_t th;
        if (pthread_create(&th, NULL, apply_thread, &a) == 0) {
            pthread_join(th, NULL);
            check(a.rc == 0 && a.mask_n == ncpu, "real: default pin_apply leaves the affinity alone",
                  "rc %d, %d CPUs after (was %d)", a.rc, a.mask_n, ncpu);
        }
        pin_plan_free(&p);
    }
    /* a list naming a CPU we may not use is rejected (the first CPU number not in the mask) */
    {
        int outside = 0;
        while (outside < CPU_SETSIZE && CPU_ISSET(outside, &allowed))
            outside++;
        char spec[32], err[256] = "";
        struct pin_spec s;
        snprintf(spec, sizeof spec, "list:%d", outside);
        if (pin_parse(spec, &s, err, sizeof err) == 0) {
            int rc = pin_plan_make(t, &s, 1, &p, err, sizeof err);
            check(rc == -1 && strstr(err, "is not available") && strstr(err, "this machine has PU"),
                  "real: list with a PU outside the mask rejected", "rc %d err '%s'", rc, err);
            if (rc == 0)
                pin_plan_free(&p);
            pin_spec_free(&s);
        }
    }
    pin_topology_free(t);
}

/* Load the real topology from a thread whose mask is one CPU: the inherited
 * mask must be respected (taskset -c N chtbench ...). */
struct narrow_arg { int cpu; unsigned pus; int pu0, pu1; bool over; char err[256]; int list_rc; };

static void *narrow_thread(void *v)
{
    struct narrow_arg *a = v;
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(a->cpu, &m);
    if (sched_setaffinity(0, sizeof m, &m) != 0) {
        snprintf(a->err, sizeof a->err, "sched_setaffinity: %s", strerror(errno));
        return NULL;
    }
    struct pin_topology *t = pin_topology_load(NULL, a->err, sizeof a->err);
    if (!t)
        return NULL;
    a->pus = pin_topology_pus(t);
    struct pin_plan p;
    struct pin_spec s = { PIN_COMPACT, NULL, 0 };
    if (pin_plan_make(t, &s, 2, &p, a->err, sizeof a->err) == 0) {
        a->pu0 = p.slot[0].pu;
        a->pu1 = p.slot[1].pu;
        a->over = p.oversubscribed;
        pin_plan_free(&p);
    }
    unsigned other = a->cpu == 0 ? 1 : 0;
    struct pin_spec ls = { PIN_LIST, &other, 1 };
    a->list_rc = pin_plan_make(t, &ls, 1, &p, a->err, sizeof a->err);
    if (a->list_rc == 0)
        pin_plan_free(&p);
    pin_topology_free(t);
    return NULL;
}

static void test_narrow(void)
{
    if (getenv("HWLOC_XMLFILE") || getenv("HWLOC_SYNTHETIC") || getenv("HWLOC_FSROOT"))
        return;
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    int cpus[CPU_SETSIZE];
    int n = mask_cpus(&allowed, cpus, CPU_SETSIZE);
    if (n < 2) {
        printf("skip real: inherited single-CPU mask (only %d CPU allowed)\n", n);
        return;
    }
    struct narrow_arg a = { cpus[n - 1], 0, -1, -1, false, "", 0 };
    pthread_t th;
    if (pthread_create(&th, NULL, narrow_thread, &a) != 0) {
        check(false, "real: narrow thread", "pthread_create failed");
        return;
    }
    pthread_join(th, NULL);
    check(a.pus == 1 && a.pu0 == a.cpu && a.pu1 == a.cpu && a.over,
          "real: mask of one CPU -> 1 usable PU, compact 2 wraps onto it, oversubscribed",
          "cpu %d: pus %u, plan PUs %d %d, oversubscribed %d, err '%s'", a.cpu, a.pus, a.pu0, a.pu1,
          a.over, a.err);
    check(a.list_rc == -1 && strstr(a.err, "is not available"),
          "real: mask of one CPU -> list naming another CPU rejected", "rc %d err '%s'", a.list_rc, a.err);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_parse();
    test_topology_errors();
    test_e5();
    test_e7();
    test_opteron();
    test_phi();
    test_xml("pack:2 core:8 pu:2");
    test_xml("pack:4 core:12 pu:2");
    test_xml("pack:4 numa:2 core:6 pu:1");
    test_xml("pack:1 core:61 pu:4");
    test_real();
    test_narrow();
    printf("%d checks, %d failed\n", checks, failures);
    if (failures) {
        printf("test_pin: FAILED\n");
        return 1;
    }
    return 0;
}
