/*
 * rtm.c - Intel RTM lock elision over a fallback lock: htm-retry, slr-mcs,
 * slr-scm-mcs, scm-ttas, scm-ttas-opt (+ run-time RTM detection).
 *
 * Source: the 2017 Hunan Univ. thesis, chapter 4: RTM and its abort
 * status bits (§4.2.2, table 4.1), the lemming effect (§4.2.3), software-
 * assisted lock removal SLR (§4.3.1, algorithms 4.1/4.2) and software-assisted
 * conflict management SCM (§4.3.2, algorithms 4.3/4.4), both from Afek, Levy
 * & Morrison, "Software-improved hardware lock elision" (PODC'14); the RTM MCS
 * locks (§4.4.3, algorithms 4.6/4.7, and chapter 5 algorithms 5.3/5.4) and the
 * six global-lock variants compared in §4.5.3. MAX_RETRIES = 10 as there.
 *
 * Every variant runs the critical section as a transaction started in lock()
 * and committed in unlock(); after aborts it takes the fallback ("main") lock
 * for real. They differ in when the transaction looks at the main lock and in
 * what an aborted thread does:
 *
 * htm-retry   (§4.5.3 variant 3; algorithms 5.3/5.4) eager subscription: the
 *             transaction reads the main MCS lock right after XBEGIN and
 *             aborts (XABORT 0xff) if it is held. After an abort: wait until
 *             the main lock is free (against the lemming effect), retry; after
 *             MAX_RETRIES aborts take the MCS lock.
 * slr-mcs     (algorithms 4.1/4.2) lock removal: the transaction does not
 *             read the lock at start, only at commit: unlock() aborts if the
 *             main lock is held, else XEND. A fallback holder therefore does
 *             not abort running transactions by acquiring the lock, and new
 *             transactions start while it holds it (they commit only after it
 *             released it). Retry at once, MAX_RETRIES times, then take MCS.
 * slr-scm-mcs (algorithms 4.6/4.7) SLR speculation; after MAX_RETRIES aborts
 *             the thread takes an auxiliary MCS lock (serialising the
 *             threads that keep conflicting, while the others go on
 *             speculating) and, while it holds it, retries speculatively as
 *             long as the abort status has the retry bit and fewer than
 *             MAX_RETRIES aux retries were made; then it takes the main MCS
 *             lock. unlock releases the aux lock after commit/release.
 *             (As printed, alg. 4.6 records the aux ownership only when the
 *             aux lock was contended; here every aux holder records it.)
 * scm-ttas    (algorithms 4.3/4.4 over a TTAS main lock, §4.5.3 variant 4)
 *             eager subscription to the TTAS lock; at the first abort the
 *             thread takes the auxiliary MCS lock and keeps retrying
 *             speculatively under it (waiting for the main lock to be free
 *             before each retry); after MAX_RETRIES aborts under the aux
 *             lock it takes the TTAS lock. (Algorithm 4.3 as printed tests
 *             the aux owner flag the other way round; this follows the prose
 *             of §4.3.2: an aborted thread takes the aux lock, then rejoins
 *             the speculation.)
 * scm-ttas-opt (§4.5.3 variant 6, "optimistic SCM") as scm-ttas, but an
 *             aborted thread first keeps retrying without serialising; only
 *             after MAX_RETRIES aborts does it take the aux lock and go on
 *             transactionally under it (up to MAX_RETRIES more aborts), and
 *             only then take the TTAS lock. (The thesis gives this variant
 *             one sentence: "after 10 failed retries the thread takes the
 *             lock and completes the operation transactionally"; this is our
 *             reading of it.)
 * Whether the current hold is speculative is kept in the ctx (the thesis,
 * §4.2.3 point 5, warns against deciding it with XTEST in unlock).
 * trylock takes the main lock non-speculatively with its trylock (correct
 * with both subscriptions: eager transactions abort when it is written, lazy
 * ones cannot commit while it is held).
 *
 * Counters (struct lock_stats, through lock_ops.ctx_stats; per thread in the
 * ctx, so no false sharing): acquisitions (lock + successful trylock),
 * fallbacks (main lock taken for real), tx_begins, tx_commits, tx_aborts and
 * the abort causes from the status bits of table 4.1: abort_conflict (bit 2),
 * abort_capacity (bit 3), abort_explicit (bit 0, XABORT), abort_retry (bit 1,
 * "may succeed on retry"; it accompanies other causes), abort_other (none of
 * bits 0, 2, 3: debug, nested, interrupts, unfriendly instructions...).
 * When quiescent: acquisitions == tx_commits + fallbacks and
 * tx_begins == tx_commits + tx_aborts (an RTM lock taken inside another RTM
 * lock's transaction is flattened into it; its counters roll back with it).
 *
 * Availability: CPUID.(EAX=7,ECX=0):EBX bit 11, then up to 64 trial
 * transactions of which one must commit (with TSX disabled by microcode,
 * XBEGIN always aborts); the test hook CHTBENCH_TEST_RTM_DISABLE=1 forces "no",
 * and so does a ThreadSanitizer build (TSan cannot model transactions: it
 * would report every speculative critical section as a race).
 * available() reports the reason. XBEGIN is never executed when unavailable:
 * a lock created anyway (a caller that ignored available()) only uses its
 * fallback lock. The instructions are emitted with inline assembly, so no
 * file needs -mrtm.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include "lock_internal.h"
#include "rtm.h"
#include "cht_env.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define RTM_X86 1
#else
#define RTM_X86 0
#endif

/* ThreadSanitizer cannot model hardware transactions: its instrumentation
 * runs inside them (its own bookkeeping aborts them or is rolled back) and it
 * reports the speculative accesses as races. A TSan build (CHT_UNDER_TSAN,
 * cht_atomic.h) never uses RTM. */

#define MAX_RETRIES 10
#define XA_LOCKED   0xff   /* XABORT code: the main lock was held */

/* ---- the instructions (Intel SDM vol. 2: XBEGIN C7 F8 rel32, XEND 0F 01 D5,
 * XABORT C6 F8 ib). XBEGIN with rel32 = 0 resumes right after itself on an
 * abort, with the status in EAX; on a start EAX keeps its ~0 preset. */
#if RTM_X86
static inline unsigned hw_xbegin(void)
{
    unsigned status = RTM_STARTED;
    __asm__ __volatile__(".byte 0xc7, 0xf8; .long 0" : "+a"(status) :: "memory");
    return status;
}
static inline void hw_xend(void)
{
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd5" ::: "memory");
}
#define hw_xabort(code) __asm__ __volatile__(".byte 0xc6, 0xf8, %c0" :: "i"(code) : "memory")
#else
static inline unsigned hw_xbegin(void) { return 0; }
static inline void hw_xend(void) { }
#define hw_xabort(code) ((void)0)
#endif

/* ---- detection ---- */

static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static bool detect_ok;
static char detect_why[200];

bool cht_rtm_cpuid(void)
{
#if RTM_X86
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7)
        return false;
    __cpuid_count(7, 0, a, b, c, d);
    (void)a; (void)c; (void)d;
    return (b >> 11) & 1u;
#else
    return false;
#endif
}

static void detect(void)
{
    if (cht_env()->rtm_disable) {   /* test hook: the "no RTM" paths on a CPU that has it */
        snprintf(detect_why, sizeof detect_why, "RTM disabled by CHTBENCH_TEST_RTM_DISABLE");
        return;
    }
#if CHT_UNDER_TSAN
    snprintf(detect_why, sizeof detect_why,
             "ThreadSanitizer build: TSan cannot model hardware transactions, so RTM is never used "
             "(RTM locks run only their fallback lock)");
#elif !RTM_X86
    snprintf(detect_why, sizeof detect_why, "RTM needs an x86 CPU");
#else
    if (!cht_rtm_cpuid()) {
        snprintf(detect_why, sizeof detect_why,
                 "CPU has no RTM (CPUID.(EAX=7,ECX=0):EBX bit 11 is clear)");
        return;
    }
    unsigned last = 0;
    for (int i = 0; i < 64; i++) {
        unsigned s = hw_xbegin();
        if (s == RTM_STARTED) {
            hw_xend();
            detect_ok = true;
            return;
        }
        last = s;
    }
    snprintf(detect_why, sizeof detect_why,
             "CPU enumerates RTM but 64 of 64 trial transactions aborted (last status 0x%x): "
             "TSX is probably disabled (microcode, tsx=off)", last);
#endif
}

bool cht_rtm_available(char *why, size_t len)
{
    pthread_once(&detect_once, detect);
    if (!detect_ok && why && len)
        snprintf(why, len, "%s", detect_why);
    return detect_ok;
}

/* ---- simulation hook for tests ---- */

static bool rtm_simulate;
static const unsigned sim_cycle[] = {
    RTM_ABORT_CONFLICT | RTM_ABORT_RETRY,
    RTM_ABORT_CAPACITY,
    RTM_ABORT_EXPLICIT | (0x42u << 24),
    RTM_ABORT_RETRY,
    0,
};
#define SIM_N (sizeof sim_cycle / sizeof sim_cycle[0])

void cht_rtm_simulate_aborts(bool on) { CHT_ST(&rtm_simulate, on, RELAXED); }

const unsigned *cht_rtm_simulated_cycle(unsigned *n)
{
    *n = SIM_N;
    return sim_cycle;
}

/* ---- the locks ---- */

enum rtm_kind { K_HTM_RETRY, K_SLR, K_SLR_SCM, K_SCM, K_SCM_OPT };
enum rtm_mode { MODE_NONE, MODE_HW, MODE_SIM };

struct rtm_variant {
    const char *name;
    enum rtm_kind kind;
    bool lazy;                        /* SLR: read the main lock only at commit */
    const struct lock_ops *main_ops, *aux_ops;
};

#define MAIN_SLOT (LOCK_LINE - 2 * sizeof(void *))

/* Line 0: read-only variant info and the main lock (transactions read it:
 * eager ones at XBEGIN, lazy ones at commit). Line 1: the aux lock (SCM),
 * which no transaction reads, so serialising threads never abort others. */
struct rtm_lock {
    alignas(LOCK_LINE) const struct rtm_variant *v;
    uintptr_t mode;
    alignas(sizeof(void *)) unsigned char main[MAIN_SLOT];
    alignas(LOCK_LINE) unsigned char aux[LOCK_SLOT_SIZE];
};

struct rtm_counters {
    uint64_t acquisitions, fallbacks, begins, commits, aborts;
    uint64_t conflict, capacity, explicit_, retry, other;
};

struct rtm_ctx {
    alignas(LOCK_LINE) struct rtm_counters n;
    uint8_t spec;                     /* the current hold is a transaction */
    uint8_t aux_owner;                /* this thread holds the aux lock */
    uint32_t sim_idx;
    alignas(LOCK_LINE) unsigned char main_ctx[LOCK_SLOT_CTX];
    alignas(LOCK_LINE) unsigned char aux_ctx[LOCK_SLOT_CTX];
};

static void rtm_setup(void *l, const struct lock_config *cfg, const struct rtm_variant *v)
{
    lock_component_check(v->name, "fallback", v->main_ops, MAIN_SLOT, LOCK_SLOT_CTX,
                         NEED_IS_LOCKED);
    if (v->aux_ops)
        lock_component_check(v->name, "auxiliary", v->aux_ops, LOCK_SLOT_SIZE, LOCK_SLOT_CTX, 0);
    struct rtm_lock *L = l;
    memset(L, 0, sizeof *L);
    L->v = v;
    char why[200] = "";
    if (CHT_LD(&rtm_simulate, RELAXED))
        L->mode = MODE_SIM;
    else if (cht_rtm_available(why, sizeof why))
        L->mode = MODE_HW;
    else {
        static bool warned;
        if (!CHT_XCHG(&warned, true, RELAXED))
            fprintf(stderr, "lock %s: %s; using only its fallback lock %s\n",
                    v->name, why, v->main_ops->name);
        L->mode = MODE_NONE;
    }
    v->main_ops->init(L->main, cfg);
    if (v->aux_ops)
        v->aux_ops->init(L->aux, cfg);
}

static void rtm_destroy(void *l)
{
    struct rtm_lock *L = l;
    L->v->main_ops->destroy(L->main);
    if (L->v->aux_ops)
        L->v->aux_ops->destroy(L->aux);
}

static void ctx_init_with(void *ctx, unsigned tid, unsigned node,
                          const struct lock_ops *main_ops, const struct lock_ops *aux_ops)
{
    struct rtm_ctx *c = ctx;
    memset(c, 0, sizeof *c);
    if (main_ops->ctx_init)
        main_ops->ctx_init(c->main_ctx, tid, node);
    if (aux_ops && aux_ops->ctx_init)
        aux_ops->ctx_init(c->aux_ctx, tid, node);
}

static void count_abort(struct rtm_ctx *c, unsigned s)
{
    c->n.aborts++;
    if (s & RTM_ABORT_CONFLICT)
        c->n.conflict++;
    if (s & RTM_ABORT_CAPACITY)
        c->n.capacity++;
    if (s & RTM_ABORT_EXPLICIT)
        c->n.explicit_++;
    if (s & RTM_ABORT_RETRY)
        c->n.retry++;
    if (!(s & (RTM_ABORT_CONFLICT | RTM_ABORT_CAPACITY | RTM_ABORT_EXPLICIT)))
        c->n.other++;
}

/* Against the lemming effect (§4.2.3): do not retry while the lock is held. */
static void wait_main_free(struct rtm_lock *L)
{
    struct spin_wait w = SPIN_WAIT_INIT;
    while (L->v->main_ops->is_locked(L->main))
        spin_wait(&w);
}

static void aux_acquire(struct rtm_lock *L, struct rtm_ctx *c)
{
    L->v->aux_ops->lock(L->aux, c->aux_ctx);
    c->aux_owner = 1;
}

/* After an abort with status s: true to try another transaction, false to
 * take the main lock. */
static bool retry_after_abort(struct rtm_lock *L, struct rtm_ctx *c, unsigned s,
                              unsigned *retries, unsigned *aux_retries)
{
    switch (L->v->kind) {
    case K_HTM_RETRY:                               /* alg. 5.3 */
        if (++*retries >= MAX_RETRIES)
            return false;
        wait_main_free(L);
        return true;
    case K_SLR:                                     /* alg. 4.1 */
        return ++*retries < MAX_RETRIES;
    case K_SLR_SCM:                                 /* alg. 4.6 */
        if (++*retries < MAX_RETRIES)
            return true;
        if (c->aux_owner)
            ++*aux_retries;
        else {
            aux_acquire(L, c);
            *aux_retries = 1;
        }
        return (s & RTM_ABORT_RETRY) && *aux_retries < MAX_RETRIES;
    case K_SCM:                                     /* alg. 4.3 */
        if (!c->aux_owner)
            aux_acquire(L, c);
        else if (++*retries >= MAX_RETRIES)
            return false;
        wait_main_free(L);
        return true;
    case K_SCM_OPT:
        if (!c->aux_owner) {
            if (++*retries >= MAX_RETRIES)
                aux_acquire(L, c);
        } else if (++*aux_retries >= MAX_RETRIES)
            return false;
        wait_main_free(L);
        return true;
    }
    return false;
}

static inline unsigned tx_begin(struct rtm_lock *L, struct rtm_ctx *c)
{
    if (L->mode == MODE_SIM)
        return sim_cycle[c->sim_idx++ % SIM_N];
    return hw_xbegin();
}

static void rtm_lock(void *l, void *ctx)
{
    struct rtm_lock *L = l;
    struct rtm_ctx *c = ctx;
    const struct rtm_variant *v = L->v;
    c->n.acquisitions++;
    if (L->mode != MODE_NONE) {
        unsigned retries = 0, aux_retries = 0;
        for (;;) {
            c->spec = 1;
            c->n.begins++;
            unsigned s = tx_begin(L, c);
            if (s == RTM_STARTED) {
                /* transactional from here until unlock() */
                if (!v->lazy && v->main_ops->is_locked(L->main))
                    hw_xabort(XA_LOCKED);
                return;
            }
            c->spec = 0;
            count_abort(c, s);
            if (!retry_after_abort(L, c, s, &retries, &aux_retries))
                break;
        }
    }
    c->spec = 0;
    v->main_ops->lock(L->main, c->main_ctx);
    c->n.fallbacks++;
}

static bool rtm_trylock(void *l, void *ctx)
{
    struct rtm_lock *L = l;
    struct rtm_ctx *c = ctx;
    if (!L->v->main_ops->trylock(L->main, c->main_ctx))
        return false;
    c->spec = 0;
    c->n.acquisitions++;
    c->n.fallbacks++;
    return true;
}

static void rtm_unlock(void *l, void *ctx)
{
    struct rtm_lock *L = l;
    struct rtm_ctx *c = ctx;
    const struct rtm_variant *v = L->v;
    if (c->spec) {
        if (v->lazy && v->main_ops->is_locked(L->main))
            hw_xabort(XA_LOCKED);               /* SLR: subscribe at commit */
        hw_xend();
        c->spec = 0;
        c->n.commits++;
    } else {
        v->main_ops->unlock(L->main, c->main_ctx);
    }
    if (c->aux_owner) {
        c->aux_owner = 0;
        v->aux_ops->unlock(L->aux, c->aux_ctx);
    }
}

static bool rtm_is_locked(void *l)
{
    struct rtm_lock *L = l;
    return L->v->main_ops->is_locked(L->main);
}

static void rtm_ctx_stats(void *ctx, struct lock_stats *s)
{
    const struct rtm_counters *n = &((struct rtm_ctx *)ctx)->n;
    s->acquisitions += n->acquisitions;
    s->fallbacks += n->fallbacks;
    s->tx_begins += n->begins;
    s->tx_commits += n->commits;
    s->tx_aborts += n->aborts;
    s->abort_conflict += n->conflict;
    s->abort_capacity += n->capacity;
    s->abort_explicit += n->explicit_;
    s->abort_retry += n->retry;
    s->abort_other += n->other;
}

static bool rtm_lock_available(char *why, size_t len)
{
    if (CHT_LD(&rtm_simulate, RELAXED))
        return true;
    return cht_rtm_available(why, len);
}

/* ---- the five variants: a main (fallback) lock, an optional aux lock ---- */

static const struct rtm_variant v_htm_retry =
    { "htm-retry", K_HTM_RETRY, false, &lock_ops_mcs, NULL };
static const struct rtm_variant v_slr_mcs =
    { "slr-mcs", K_SLR, true, &lock_ops_mcs, NULL };
static const struct rtm_variant v_slr_scm_mcs =
    { "slr-scm-mcs", K_SLR_SCM, true, &lock_ops_mcs, &lock_ops_mcs };
static const struct rtm_variant v_scm_ttas =
    { "scm-ttas", K_SCM, false, &lock_ops_ttas, &lock_ops_mcs };
static const struct rtm_variant v_scm_ttas_opt =
    { "scm-ttas-opt", K_SCM_OPT, false, &lock_ops_ttas, &lock_ops_mcs };

static void htm_retry_init(void *l, const struct lock_config *c) { rtm_setup(l, c, &v_htm_retry); }
static void slr_mcs_init(void *l, const struct lock_config *c) { rtm_setup(l, c, &v_slr_mcs); }
static void slr_scm_mcs_init(void *l, const struct lock_config *c) { rtm_setup(l, c, &v_slr_scm_mcs); }
static void scm_ttas_init(void *l, const struct lock_config *c) { rtm_setup(l, c, &v_scm_ttas); }
static void scm_ttas_opt_init(void *l, const struct lock_config *c) { rtm_setup(l, c, &v_scm_ttas_opt); }

/* ctx_init is not given the lock, so it is told the component types. */
static void mcs_ctx(void *x, unsigned t, unsigned n) { ctx_init_with(x, t, n, &lock_ops_mcs, NULL); }
static void mcs_mcs_ctx(void *x, unsigned t, unsigned n) { ctx_init_with(x, t, n, &lock_ops_mcs, &lock_ops_mcs); }
static void ttas_mcs_ctx(void *x, unsigned t, unsigned n) { ctx_init_with(x, t, n, &lock_ops_ttas, &lock_ops_mcs); }

#define RTM_CAPS (LOCK_CAP_TRYLOCK | LOCK_CAP_NEEDS_CTX | LOCK_CAP_RTM)

#define RTM_OPS(sym, nm, sum, initfn, ctxfn)                                   \
    const struct lock_ops sym = {                                              \
        .name = nm, .summary = sum, .caps = RTM_CAPS,                          \
        .lock_size = sizeof(struct rtm_lock), .ctx_size = sizeof(struct rtm_ctx), \
        .available = rtm_lock_available,                                       \
        .init = initfn, .destroy = rtm_destroy, .ctx_init = ctxfn,             \
        .lock = rtm_lock, .trylock = rtm_trylock, .unlock = rtm_unlock,        \
        .read_lock = rtm_lock, .read_unlock = rtm_unlock,                      \
        .is_locked = rtm_is_locked, .ctx_stats = rtm_ctx_stats,                \
    }

RTM_OPS(lock_ops_htm_retry, "htm-retry",
        "RTM elision of an MCS lock, retry up to 10x (thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 5.3/5.4)",
        htm_retry_init, mcs_ctx);
RTM_OPS(lock_ops_slr_mcs, "slr-mcs",
        "RTM + software-assisted lock removal over MCS: lock read at commit (Afek, Levy, Morrison, \"Software-improved hardware lock elision\", PODC'14; thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 4.1/4.2)",
        slr_mcs_init, mcs_ctx);
RTM_OPS(lock_ops_slr_scm_mcs, "slr-scm-mcs",
        "RTM + SLR + conflict management (aux MCS lock) over MCS (Afek, Levy, Morrison, \"Software-improved hardware lock elision\", PODC'14; thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 4.6/4.7)",
        slr_scm_mcs_init, mcs_mcs_ctx);
RTM_OPS(lock_ops_scm_ttas, "scm-ttas",
        "RTM elision of TTAS + software-assisted conflict management, aux MCS lock (Afek, Levy, Morrison, \"Software-improved hardware lock elision\", PODC'14; thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) alg. 4.3/4.4)",
        scm_ttas_init, ttas_mcs_ctx);
RTM_OPS(lock_ops_scm_ttas_opt, "scm-ttas-opt",
        "as scm-ttas, retrying 10x before serialising on the aux lock (thesis \"Concurrent Hashing on Multi-core Systems\" (Hunan Univ., 2017) §4.5.3)",
        scm_ttas_opt_init, ttas_mcs_ctx);
