/*
 * pin.c - machine topology (hwloc) and thread pinning plans.
 *
 * Policies (the 2017 Hunan Univ. thesis, section 3.4.6 "线程绑定方案的
 * 影响" - default / compact / balanced binding on E5-2630, E7-4850, Opteron
 * 6172 and Xeon Phi 7120P; see pin.h for the exact rules):
 *   default   no affinity, the OS scheduler decides (slots are -1);
 *   compact   fill a core's hardware threads, then the next core, then the
 *             next socket (24 threads on 2x8x2: t0-t15 = socket 0, two per
 *             core; t16-t23 = socket 1's first 4 cores);
 *   balanced  round-robin over sockets, one thread per physical core before
 *             any SMT sibling (16 threads on 2x8x2: 16 distinct cores, 8 per
 *             socket; the 17th thread is the first SMT sibling); inside a
 *             socket with several NUMA nodes its cores alternate between nodes;
 *   list      thread i on OS PU list[i].
 * Beyond the number of usable PUs, compact and balanced wrap around
 * (thread k takes slot k mod PUs) and the plan is flagged oversubscribed;
 * list wraps around the same way beyond its number of entries.
 *
 * How: at load time every usable PU is recorded in hwloc's logical order,
 * which is tree order (package, then whatever lies between - dies, groups,
 * caches, NUMA groups - then core, then PU), so that order *is* the compact
 * order. The balanced order is derived from it once (per socket, cores
 * interleaved across NUMA nodes; then socket round-robin per core position,
 * per SMT rank). Making a plan afterwards only reads these arrays; binding uses
 * sched_setaffinity on the calling thread, so neither touches hwloc and both
 * may run in many threads at once.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pin.h"

#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PIN_MAX_PU_INDEX 1048575u  /* largest OS PU number list: accepts */
#define PIN_MAX_LIST     65536u    /* most entries list: may expand to */

struct pu_rec {
    int pu, core, socket, numa;    /* OS indexes as reported in slots */
    unsigned core_grp, sock_grp;   /* dense group numbers, tree order */
    unsigned smt;                  /* rank of this PU inside its core */
};

struct pin_topology {
    hwloc_topology_t topo;
    bool native;                   /* this machine (pin_apply allowed) */
    char what[96];                 /* "this machine" or "topology '...'" for messages */
    hwloc_bitmap_t usable;         /* usable PUs (OS indexes) */
    unsigned npu, ncores, nsockets, nnuma;
    struct pu_rec *rec;            /* npu entries, compact order */
    unsigned *bal;                 /* npu indexes into rec, balanced order */
};

/* ---- small helpers ---- */

static void seterr(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
    if (!err || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    /* one line, whatever the user typed */
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

/* A user string fit to be quoted in a one-line message: control characters
 * become '?', long strings are cut with "...". */
static const char *quote(const char *s, char *buf, size_t len)
{
    size_t n = 0, cap = len - 1;
    bool cut = false;
    for (; s[n] && n < cap; n++)
        buf[n] = ((unsigned char)s[n] < 0x20 || s[n] == 0x7f) ? '?' : s[n];
    buf[n] = '\0';
    if (s[n])
        cut = true;
    if (cut && cap >= 3)
        memcpy(buf + cap - 3, "...", 4);
    return buf;
}

const char *pin_policy_name(enum pin_policy p)
{
    switch (p) {
    case PIN_DEFAULT:  return "default";
    case PIN_COMPACT:  return "compact";
    case PIN_BALANCED: return "balanced";
    case PIN_LIST:     return "list";
    }
    return "?";
}

/* ---- --pin parsing ---- */

#define PIN_ACCEPTED "expected default, compact, balanced or list:CPUS " \
    "(OS PU numbers N or ranges N-M separated by commas, e.g. list:0,2,4-7)"

/* Decimal number at *p (digits only), advanced past it. */
static bool parse_uint(const char **p, unsigned *v)
{
    const char *s = *p;
    unsigned long x = 0;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        x = x * 10 + (unsigned long)(*s - '0');
        if (x > PIN_MAX_PU_INDEX)
            return false;
        s++;
    }
    *v = (unsigned)x;
    *p = s;
    return true;
}

int pin_parse(const char *s, struct pin_spec *out, char *err, size_t len)
{
    char q[72];
    struct pin_spec r = { PIN_DEFAULT, NULL, 0 };
    if (out)
        *out = r;
    if (!s || !out) {
        seterr(err, len, "--pin: missing value; " PIN_ACCEPTED);
        return -1;
    }
    if (!strcmp(s, "default")) { out->policy = PIN_DEFAULT; return 0; }
    if (!strcmp(s, "compact")) { out->policy = PIN_COMPACT; return 0; }
    if (!strcmp(s, "balanced")) { out->policy = PIN_BALANCED; return 0; }
    if (strncmp(s, "list:", 5) != 0) {
        seterr(err, len, "--pin: unknown policy '%s'; " PIN_ACCEPTED, quote(s, q, sizeof q));
        return -1;
    }

    /* two passes: count, then fill */
    unsigned *list = NULL;
    for (int pass = 0; pass < 2; pass++) {
        unsigned n = 0;
        const char *p = s + 5;
        for (;;) {
            unsigned a, b;
            const char *at = p;
            if (!parse_uint(&p, &a)) {
                seterr(err, len, "--pin: bad list '%s' at '%.12s': want a PU number <= %u; " PIN_ACCEPTED,
                       quote(s, q, sizeof q), *at ? at : "(end)", PIN_MAX_PU_INDEX);
                free(list);
                return -1;
            }
            b = a;
            if (*p == '-') {
                p++;
                if (!parse_uint(&p, &b)) {
                    seterr(err, len, "--pin: bad list '%s': range '%.*s' lacks an end PU number; " PIN_ACCEPTED,
                           quote(s, q, sizeof q), (int)(p - at), at);
                    free(list);
                    return -1;
                }
                if (b < a) {
                    seterr(err, len, "--pin: bad list '%s': range %u-%u is descending; " PIN_ACCEPTED,
                           quote(s, q, sizeof q), a, b);
                    free(list);
                    return -1;
                }
            }
            if ((unsigned long)n + (b - a) + 1 > PIN_MAX_LIST) {
                seterr(err, len, "--pin: list '%s' names more than %u PUs", quote(s, q, sizeof q),
                       PIN_MAX_LIST);
                free(list);
                return -1;
            }
            for (unsigned long v = a; v <= b; v++, n++)
                if (list)
                    list[n] = (unsigned)v;
            if (*p == '\0')
                break;
            if (*p != ',') {
                seterr(err, len, "--pin: bad list '%s': unexpected '%c'; " PIN_ACCEPTED,
                       quote(s, q, sizeof q), ((unsigned char)*p < 0x20) ? '?' : *p);
                free(list);
                return -1;
            }
            p++;
        }
        if (pass == 0) {
            list = malloc(n * sizeof *list);
            if (!list) {
                seterr(err, len, "--pin: out of memory");
                return -1;
            }
        } else {
            r.list_len = n;
        }
    }
    r.policy = PIN_LIST;
    r.list = list;
    *out = r;
    return 0;
}

void pin_spec_free(struct pin_spec *s)
{
    if (!s)
        return;
    free(s->list);
    s->list = NULL;
    s->list_len = 0;
}

/* ---- topology ---- */

static int os_or_logical(hwloc_obj_t o)
{
    if (!o)
        return -1;
    if (o->os_index != HWLOC_UNKNOWN_INDEX && o->os_index <= INT_MAX)
        return (int)o->os_index;
    return (int)o->logical_index;
}

/* OS index of the NUMA node local to pu: the first NUMA node among the memory
 * children of the nearest ancestor that has any (looking through memory-side
 * caches); 0 when there is none. */
static int pu_numa(hwloc_obj_t pu)
{
    for (hwloc_obj_t a = pu->parent; a; a = a->parent) {
        if (a->memory_arity == 0)
            continue;
        hwloc_obj_t m = a->memory_first_child;
        while (m && m->type != HWLOC_OBJ_NUMANODE)
            m = m->memory_first_child;
        if (m)
            return os_or_logical(m);
    }
    return 0;
}

/* Build rec[] (compact order) and bal[] (balanced order) from t->topo. */
static int build_orders(struct pin_topology *t, char *err, size_t len)
{
    hwloc_topology_t topo = t->topo;
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (n <= 0) {
        seterr(err, len, "--topology: %s has no usable PU", t->what);
        return -1;
    }
    t->rec = calloc((size_t)n, sizeof *t->rec);
    t->bal = calloc((size_t)n, sizeof *t->bal);
    if (!t->rec || !t->bal) {
        seterr(err, len, "--topology: out of memory");
        return -1;
    }

    hwloc_obj_t prev_core = NULL, prev_sock = NULL;
    unsigned npu = 0, ncores = 0, nsock = 0, smt = 0;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
        if (!pu || !hwloc_bitmap_isset(t->usable, pu->os_index))
            continue;
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t sock = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
        if (npu == 0 || sock != prev_sock) {
            nsock++;
            prev_sock = sock;
            prev_core = NULL;
            ncores++;
            smt = 0;
        } else if (!core || core != prev_core) {
            ncores++;           /* a PU without a core object is its own core */
            smt = 0;
        } else {
            smt++;
        }
        prev_core = core;
        struct pu_rec *r = &t->rec[npu++];
        r->pu = (int)pu->os_index;
        r->core = os_or_logical(core);
        r->socket = os_or_logical(sock);
        r->numa = pu_numa(pu);
        r->core_grp = ncores - 1;
        r->sock_grp = nsock - 1;
        r->smt = smt;
    }
    if (npu == 0) {
        seterr(err, len, "--topology: %s has no usable PU", t->what);
        return -1;
    }
    t->npu = npu;
    t->ncores = ncores;
    t->nsockets = nsock;
    int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    t->nnuma = nn > 0 ? (unsigned)nn : 1;

    /* Balanced order. core_first[c]: rec index of core c's first PU;
     * core_npu[c]: its PU count. sock_cores[s]: cores of socket s, listed in
     * the order "core j of socket s" (NUMA nodes of the socket interleaved). */
    unsigned *core_first = calloc(ncores, sizeof *core_first);
    unsigned *core_npu = calloc(ncores, sizeof *core_npu);
    unsigned *sock_start = calloc(nsock + 1, sizeof *sock_start);  /* cores of socket s: [start[s], start[s+1]) */
    unsigned *order = calloc(ncores, sizeof *order);
    unsigned *used = calloc(ncores, sizeof *used);
    if (!core_first || !core_npu || !sock_start || !order || !used) {
        free(core_first); free(core_npu); free(sock_start); free(order); free(used);
        seterr(err, len, "--topology: out of memory");
        return -1;
    }
    unsigned maxsmt = 0;
    for (unsigned i = 0; i < npu; i++) {
        struct pu_rec *r = &t->rec[i];
        if (core_npu[r->core_grp]++ == 0) {
            core_first[r->core_grp] = i;
            sock_start[r->sock_grp + 1]++;
        }
        if (r->smt + 1 > maxsmt)
            maxsmt = r->smt + 1;
    }
    for (unsigned s = 0; s < nsock; s++)
        sock_start[s + 1] += sock_start[s];
    /* Cores are numbered in tree order, so socket s owns cores
     * [sock_start[s], sock_start[s+1]). Interleave them over NUMA nodes:
     * repeatedly take, for each distinct node in order of first appearance,
     * the next unused core of that node. */
    unsigned maxper = 0;
    for (unsigned s = 0; s < nsock; s++) {
        unsigned lo = sock_start[s], hi = sock_start[s + 1], k = lo;
        if (hi - lo > maxper)
            maxper = hi - lo;
        while (k < hi) {
            /* one sweep: the first unused core of each node, nodes in order
             * of first appearance among the unused cores */
            unsigned sweep_start = k;
            for (unsigned c = lo; c < hi; c++) {
                if (used[c])
                    continue;
                int node = t->rec[core_first[c]].numa;
                bool seen = false;
                for (unsigned j = sweep_start; j < k; j++)
                    if (t->rec[core_first[order[j]]].numa == node)
                        seen = true;
                if (!seen) {
                    order[k++] = c;
                    used[c] = 1;
                }
            }
        }
    }
    unsigned nb = 0;
    for (unsigned rank = 0; rank < maxsmt; rank++)
        for (unsigned j = 0; j < maxper; j++)
            for (unsigned s = 0; s < nsock; s++) {
                if (sock_start[s] + j >= sock_start[s + 1])
                    continue;
                unsigned c = order[sock_start[s] + j];
                if (rank < core_npu[c])
                    t->bal[nb++] = core_first[c] + rank;
            }
    free(core_first); free(core_npu); free(sock_start); free(order); free(used);
    if (nb != npu) {   /* cannot happen: every PU has exactly one (core, rank) */
        seterr(err, len, "--topology: internal error building the balanced order");
        return -1;
    }
    return 0;
}

static bool looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 4 && !strcmp(s + n - 4, ".xml"));
}

/* Most PUs of a synthetic topology: hwloc's synthetic loading grows about
 * quadratically (measured 0.9 s at 16384 PUs, 20 s at 65536), so a description
 * beyond this is refused before hwloc sees it (4 x the largest thread count). */
#define PIN_MAX_SYNTH_PUS 16384u

/* Product of the arities of a synthetic description ("pack:2 core:8 pu:2",
 * "2 8 2", attributes in parentheses, attached memory in brackets skipped);
 * saturates at UINT64_MAX. Tokens it cannot read are left to hwloc. */
static uint64_t synth_leaves(const char *spec)
{
    uint64_t n = 1;
    const char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t tl = strcspn(p, " \t\n");
        const char *end = memchr(p, '(', tl);
        if (!end)
            end = p + tl;
        const char *num = p;
        for (const char *c = p; c < end; c++)
            if (*c == ':')
                num = c + 1;
        if (*p != '[' && num < end && num[strspn(num, "0123456789")] == *end) {
            uint64_t a = 0;
            for (const char *c = num; c < end; c++)
                a = a > (UINT64_MAX - 9) / 10 ? UINT64_MAX : a * 10 + (uint64_t)(*c - '0');
            n = a && n > UINT64_MAX / a ? UINT64_MAX : n * a;
        }
        p += tl;
    }
    return n;
}

#define SYNTH_EXAMPLE "an hwloc synthetic description such as \"pack:2 core:8 pu:2\" " \
    "or \"pack:4 numa:2 core:6 pu:1\", or the path of an existing hwloc XML file"

struct pin_topology *pin_topology_load(const char *spec, char *err, size_t len)
{
    char q[72];
    struct pin_topology *t = calloc(1, sizeof *t);
    if (!t) {
        seterr(err, len, "--topology: out of memory");
        return NULL;
    }
    if (spec && !*spec) {
        seterr(err, len, "--topology: empty value; expected " SYNTH_EXAMPLE);
        free(t);
        return NULL;
    }
    if (hwloc_topology_init(&t->topo) != 0) {
        seterr(err, len, "--topology: hwloc_topology_init failed: %s", strerror(errno));
        free(t);
        return NULL;
    }
    t->usable = hwloc_bitmap_alloc();
    if (!t->usable) {
        seterr(err, len, "--topology: out of memory");
        goto fail;
    }

    if (!spec) {
        snprintf(t->what, sizeof t->what, "this machine");
#if HWLOC_API_VERSION >= 0x00020500
        /* never rebind this thread during discovery (the x86 backend would) */
        hwloc_topology_set_flags(t->topo, HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING);
#endif
        if (hwloc_topology_load(t->topo) != 0) {
            seterr(err, len, "--topology: hwloc could not read this machine's topology: %s",
                   strerror(errno));
            goto fail;
        }
        /* HWLOC_XMLFILE / HWLOC_SYNTHETIC in the environment make hwloc load
         * something else: plans can still be printed, but not applied. */
        t->native = hwloc_topology_is_thissystem(t->topo) != 0;
        if (!t->native)
            snprintf(t->what, sizeof t->what, "the topology named by HWLOC_XMLFILE/HWLOC_SYNTHETIC");
        /* The CPUs this thread may run on (inherited taskset / cpuset mask),
         * within what hwloc considers allowed (cgroup). */
        if (hwloc_get_cpubind(t->topo, t->usable, HWLOC_CPUBIND_THREAD) != 0 ||
            hwloc_bitmap_iszero(t->usable))
            hwloc_bitmap_copy(t->usable, hwloc_topology_get_allowed_cpuset(t->topo));
        hwloc_bitmap_and(t->usable, t->usable, hwloc_topology_get_allowed_cpuset(t->topo));
        hwloc_bitmap_and(t->usable, t->usable, hwloc_topology_get_topology_cpuset(t->topo));
        if (hwloc_bitmap_iszero(t->usable)) {
            seterr(err, len, "--topology: this process may run on no CPU that hwloc knows");
            goto fail;
        }
        if (!hwloc_bitmap_isequal(t->usable, hwloc_topology_get_topology_cpuset(t->topo)) &&
            hwloc_topology_restrict(t->topo, t->usable, 0) != 0) {
            seterr(err, len, "--topology: cannot restrict the topology to the allowed CPUs: %s",
                   strerror(errno));
            goto fail;
        }
    } else {
        struct stat st;
        int st_rc = stat(spec, &st), st_errno = errno;
        quote(spec, q, sizeof q);
        snprintf(t->what, sizeof t->what, "topology '%s'", q);
        if (st_rc == 0) {
            if (!S_ISREG(st.st_mode)) {
                seterr(err, len, "--topology: '%s' is not a regular file (expected an hwloc XML file)", q);
                goto fail;
            }
            if (hwloc_topology_set_xml(t->topo, spec) != 0 || hwloc_topology_load(t->topo) != 0) {
                seterr(err, len, "--topology: '%s' is not a valid hwloc XML file "
                       "(make one with: lstopo FILE.xml)", q);
                goto fail;
            }
        } else if (looks_like_path(spec)) {
            seterr(err, len, "--topology: cannot open XML file '%s': %s (expected " SYNTH_EXAMPLE ")",
                   q, strerror(st_errno));
            goto fail;
        } else {
            uint64_t leaves = synth_leaves(spec);
            if (leaves > PIN_MAX_SYNTH_PUS) {
                char many[32];
                snprintf(many, sizeof many, leaves == UINT64_MAX ? "more than 2^64" : "%llu",
                         (unsigned long long)leaves);
                seterr(err, len, "--topology: '%s' describes %s PUs; at most %u (hwloc's time to build a "
                       "synthetic topology grows quadratically: 20 s at 65536 PUs)", q, many, PIN_MAX_SYNTH_PUS);
                goto fail;
            }
            if (hwloc_topology_set_synthetic(t->topo, spec) != 0 ||
                hwloc_topology_load(t->topo) != 0) {
                seterr(err, len, "--topology: '%s' is neither an existing file nor a valid "
                       "synthetic description; expected " SYNTH_EXAMPLE, q);
                goto fail;
            }
        }
        hwloc_bitmap_copy(t->usable, hwloc_topology_get_allowed_cpuset(t->topo));
        hwloc_bitmap_and(t->usable, t->usable, hwloc_topology_get_topology_cpuset(t->topo));
    }
    if (build_orders(t, err, len) != 0)
        goto fail;
    return t;
fail:
    pin_topology_free(t);
    return NULL;
}

void pin_topology_free(struct pin_topology *t)
{
    if (!t)
        return;
    if (t->usable)
        hwloc_bitmap_free(t->usable);
    if (t->topo)
        hwloc_topology_destroy(t->topo);
    free(t->rec);
    free(t->bal);
    free(t);
}

unsigned pin_topology_pus(const struct pin_topology *t)
{
    return t ? t->npu : 0;
}

unsigned pin_topology_numa_nodes(const struct pin_topology *t)
{
    return t && t->nnuma ? t->nnuma : 1;
}

void pin_topology_describe(const struct pin_topology *t, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!t) {
        snprintf(buf, len, "no topology");
        return;
    }
    snprintf(buf, len, "%u socket%s, %u core%s, %u PU%s, %u NUMA node%s",
             t->nsockets, t->nsockets == 1 ? "" : "s",
             t->ncores, t->ncores == 1 ? "" : "s",
             t->npu, t->npu == 1 ? "" : "s",
             t->nnuma, t->nnuma == 1 ? "" : "s");
}

/* ---- plans ---- */

static struct pin_slot slot_of(const struct pu_rec *r)
{
    struct pin_slot s = { r->pu, r->core, r->socket, r->numa };
    return s;
}

static const struct pu_rec *find_pu(const struct pin_topology *t, unsigned pu)
{
    for (unsigned i = 0; i < t->npu; i++)
        if ((unsigned)t->rec[i].pu == pu)
            return &t->rec[i];
    return NULL;
}

int pin_plan_make(const struct pin_topology *t, const struct pin_spec *s, unsigned threads,
                  struct pin_plan *out, char *err, size_t len)
{
    if (!out) {
        seterr(err, len, "--pin: no plan to fill");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (!t || !s) {
        seterr(err, len, "--pin: no topology or no pinning spec");
        return -1;
    }
    if (threads == 0) {
        seterr(err, len, "--pin: cannot plan for 0 threads");
        return -1;
    }
    if (s->policy == PIN_LIST) {
        char avail[128];
        if (!s->list || s->list_len == 0) {
            seterr(err, len, "--pin: list: names no PU; expected e.g. list:0,2,4-7");
            return -1;
        }
        for (unsigned i = 0; i < s->list_len; i++) {
            if (!find_pu(t, s->list[i])) {
                if (hwloc_bitmap_list_snprintf(avail, sizeof avail, t->usable) >= (int)sizeof avail)
                    memcpy(avail + sizeof avail - 4, "...", 4);
                seterr(err, len, "--pin: PU %u is not available (%s has PU%s %s)", s->list[i],
                       t->what, t->npu == 1 ? "" : "s", avail);
                return -1;
            }
        }
    } else if (s->policy != PIN_DEFAULT && s->policy != PIN_COMPACT && s->policy != PIN_BALANCED) {
        seterr(err, len, "--pin: unknown policy %d", (int)s->policy);
        return -1;
    }

    struct pin_slot *slot = calloc(threads, sizeof *slot);
    if (!slot) {
        seterr(err, len, "--pin: out of memory for %u threads", threads);
        return -1;
    }
    bool over = false;
    switch (s->policy) {
    case PIN_DEFAULT:
        for (unsigned i = 0; i < threads; i++)
            slot[i] = (struct pin_slot){ -1, -1, -1, -1 };
        over = threads > t->npu;
        break;
    case PIN_COMPACT:
        for (unsigned i = 0; i < threads; i++)
            slot[i] = slot_of(&t->rec[i % t->npu]);
        over = threads > t->npu;
        break;
    case PIN_BALANCED:
        for (unsigned i = 0; i < threads; i++)
            slot[i] = slot_of(&t->rec[t->bal[i % t->npu]]);
        over = threads > t->npu;
        break;
    case PIN_LIST:
        /* more threads than entries: the list wraps around, like compact and balanced */
        for (unsigned i = 0; i < threads; i++) {
            slot[i] = slot_of(find_pu(t, s->list[i % s->list_len]));
            for (unsigned j = 0; j < i && !over; j++)
                if (slot[j].pu == slot[i].pu)
                    over = true;
        }
        break;
    }
    out->threads = threads;
    out->policy = s->policy;
    out->slot = slot;
    out->numa_nodes = pin_topology_numa_nodes(t);
    out->oversubscribed = over;
    return 0;
}

void pin_plan_oversubscription(const struct pin_spec *s, const struct pin_plan *p, unsigned pus, char *buf,
                               size_t len)
{
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (!p)
        return;
    for (unsigned i = 0; p->slot && p->policy != PIN_DEFAULT && i < p->threads; i++)
        for (unsigned j = 0; j < i; j++) {
            if (p->slot[i].pu < 0 || p->slot[j].pu != p->slot[i].pu)
                continue;
            if (p->policy == PIN_LIST && s && s->list_len && i < s->list_len)
                snprintf(buf, len, "the --pin list names CPU %d twice (threads %u and %u share it)", p->slot[i].pu,
                         j, i);
            else if (p->policy == PIN_LIST && s && s->list_len)
                snprintf(buf, len, "%u threads on the %u CPU%s of the --pin list (it wraps around: threads %u and "
                         "%u share CPU %d)", p->threads, s->list_len, s->list_len == 1 ? "" : "s", j, i,
                         p->slot[i].pu);
            else
                snprintf(buf, len, "%u threads on %u usable CPUs (threads %u and %u share CPU %d)", p->threads, pus,
                         j, i, p->slot[i].pu);
            return;
        }
    if (p->threads > pus)
        snprintf(buf, len, "%u threads on %u usable CPUs", p->threads, pus);
}

void pin_plan_free(struct pin_plan *p)
{
    if (!p)
        return;
    free(p->slot);
    memset(p, 0, sizeof *p);
}

static void print_field(FILE *f, int v)
{
    if (v < 0)
        fputs(" -", f);
    else
        fprintf(f, " %d", v);
}

void pin_plan_print(FILE *f, const struct pin_plan *p)
{
    if (!f || !p)
        return;
    fputs("# thread pu core socket numa\n", f);
    for (unsigned i = 0; i < p->threads && p->slot; i++) {
        fprintf(f, "%u", i);
        print_field(f, p->slot[i].pu);
        print_field(f, p->slot[i].core);
        print_field(f, p->slot[i].socket);
        print_field(f, p->slot[i].numa);
        fputc('\n', f);
    }
}

int pin_apply(const struct pin_topology *t, const struct pin_plan *p, unsigned tid,
              char *err, size_t len)
{
    if (!p || !p->slot || tid >= p->threads) {
        seterr(err, len, "--pin: thread %u is not in the plan (%u threads)", tid, p ? p->threads : 0);
        return -1;
    }
    if (p->policy == PIN_DEFAULT || p->slot[tid].pu < 0)
        return 0;
    if (!t || !t->native) {
        seterr(err, len, "--pin: cannot bind thread %u: the plan was made for %s, not this machine",
               tid, t ? t->what : "no topology");
        return -1;
    }
    int pu = p->slot[tid].pu;
    cpu_set_t *set = CPU_ALLOC((size_t)pu + 1);
    if (!set) {
        seterr(err, len, "--pin: out of memory binding thread %u", tid);
        return -1;
    }
    size_t sz = CPU_ALLOC_SIZE((size_t)pu + 1);
    CPU_ZERO_S(sz, set);
    CPU_SET_S((size_t)pu, sz, set);
    int rc = sched_setaffinity(0, sz, set);   /* 0: the calling thread */
    int e = errno;
    CPU_FREE(set);
    if (rc != 0) {
        seterr(err, len, "--pin: cannot bind thread %u to PU %d: %s", tid, pu, strerror(e));
        return -1;
    }
    return 0;
}

unsigned pin_plan_node(const struct pin_plan *p, unsigned tid)
{
    if (!p || !p->slot || tid >= p->threads || p->slot[tid].numa < 0)
        return 0;
    return (unsigned)p->slot[tid].numa;
}
