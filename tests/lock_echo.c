/*
 * lock_echo.c - a test plugin lock, "lock-echo", that says which lock_config
 * it was given (tests/test_lock_plumbing.py, mode run): the end-to-end check
 * that --handoff and --waiters reach the locks of a table run
 * (cli -> runner -> cht_config.lock_config -> cht_locks_init -> init).
 *
 * init prints "lock-echo: handoff_bound=H waiter_threshold=T numa_nodes=N
 * max_threads=M" to stderr whenever its config differs from the one it
 * printed last (a table inits all its stripes with one config: one line per
 * create). Tables create their locks single-threaded, so the last-printed
 * config needs no synchronisation.
 *
 * The lock itself is test-and-set with a per-thread ctx: lock/unlock abort
 * when the table hands them no ctx or one that ctx_init never saw, so a
 * table that drops the ctx plumbing fails the run too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cht_atomic.h>
#include <cht_plugin.h>

#define ECHO_CTX_MAGIC 0x6563686fu   /* "echo" */

struct echo_ctx {
    unsigned magic, tid;
};

static struct lock_config echo_printed;
static bool echo_printed_any;

static void echo_init(void *l, const struct lock_config *cfg)
{
    CHT_ST((int *)l, 0, RELAXED);
    if (echo_printed_any && memcmp(&echo_printed, cfg, sizeof *cfg) == 0)
        return;
    echo_printed = *cfg;
    echo_printed_any = true;
    fprintf(stderr, "lock-echo: handoff_bound=%u waiter_threshold=%u numa_nodes=%u max_threads=%u\n",
            cfg->handoff_bound, cfg->waiter_threshold, cfg->numa_nodes, cfg->max_threads);
}

static void echo_destroy(void *l) { (void)l; }

static void echo_ctx_init(void *ctx, unsigned tid, unsigned numa_node)
{
    (void)numa_node;
    *(struct echo_ctx *)ctx = (struct echo_ctx){ .magic = ECHO_CTX_MAGIC, .tid = tid };
}

static void echo_check_ctx(const void *ctx)
{
    if (!ctx || ((const struct echo_ctx *)ctx)->magic != ECHO_CTX_MAGIC) {
        fprintf(stderr, "lock-echo: lock taken with %s\n", ctx ? "a ctx that ctx_init never saw" : "no ctx");
        abort();
    }
}

static void echo_lock(void *l, void *ctx)
{
    echo_check_ctx(ctx);
    unsigned spins = 0;
    while (CHT_LD((int *)l, RELAXED) || CHT_XCHG((int *)l, 1, ACQUIRE))
        cht_spin_yield(&spins, 64);
}

static void echo_unlock(void *l, void *ctx)
{
    echo_check_ctx(ctx);
    CHT_ST((int *)l, 0, RELEASE);
}

static bool echo_is_locked(void *l) { return CHT_LD((int *)l, RELAXED) != 0; }

static const struct lock_ops echo_ops = {
    .name = "lock-echo",
    .summary = "test lock: test-and-set that prints the lock_config it is given (tests/lock_echo.c)",
    .caps = LOCK_CAP_NEEDS_CTX,
    .lock_size = sizeof(int),
    .ctx_size = sizeof(struct echo_ctx),
    .init = echo_init,
    .destroy = echo_destroy,
    .ctx_init = echo_ctx_init,
    .lock = echo_lock,
    .unlock = echo_unlock,
    .read_lock = echo_lock,
    .read_unlock = echo_unlock,
    .is_locked = echo_is_locked,
};

static const struct lock_ops *const echo_locks[] = { &echo_ops, NULL };

static const struct cht_plugin echo_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "lock-echo",
    .tables = NULL,
    .locks = echo_locks,
    .sizes = CHT_ABI_SIZES,
};

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void)
{
    return &echo_plugin;
}
