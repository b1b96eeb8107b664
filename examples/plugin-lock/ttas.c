/*
 * ttas.c - an example chtbench plugin: one lock, test-and-test-and-set.
 *
 * lock:    spin reading the word until it is 0 (the line stays shared in
 *          every waiter's cache), then try to exchange 1 in; on failure
 *          spin reading again.
 * unlock:  store 0 (release).
 * trylock: one exchange, only when the word reads 0.
 * Not FIFO; no per-thread state, so ctx_size is 0. Waiters pause and give
 * the CPU away now and then (cht_spin_yield), so an oversubscribed run lets
 * a preempted holder finish.
 *
 * Build (docs/plugins.md): meson setup build && ninja -C build
 * Use:   chtbench --plugin build/libex-ttas.so --table locked:lock=ex-ttas
 */
#include <cht_atomic.h>
#include <cht_plugin.h>

struct ex_ttas {
    int held;   /* 0 free, 1 held */
};

static void ex_ttas_init(void *l, const struct lock_config *cfg)
{
    (void)cfg;
    CHT_ST(&((struct ex_ttas *)l)->held, 0, RELAXED);
}

static void ex_ttas_destroy(void *l) { (void)l; }

static bool ex_ttas_trylock(void *l, void *ctx)
{
    (void)ctx;
    struct ex_ttas *t = l;
    return CHT_LD(&t->held, RELAXED) == 0 && CHT_XCHG(&t->held, 1, ACQUIRE) == 0;
}

static void ex_ttas_lock(void *l, void *ctx)
{
    struct ex_ttas *t = l;
    unsigned spins = 0;
    while (!ex_ttas_trylock(l, ctx))
        while (CHT_LD(&t->held, RELAXED))
            cht_spin_yield(&spins, 256);
}

static void ex_ttas_unlock(void *l, void *ctx)
{
    (void)ctx;
    CHT_ST(&((struct ex_ttas *)l)->held, 0, RELEASE);
}

static bool ex_ttas_is_locked(void *l) { return CHT_LD(&((struct ex_ttas *)l)->held, RELAXED) != 0; }

static const struct lock_ops ex_ttas_ops = {
    .name = "ex-ttas",
    .summary = "example plugin lock: test-and-test-and-set (examples/plugin-lock)",
    .caps = LOCK_CAP_TRYLOCK,
    .lock_size = sizeof(struct ex_ttas),
    .ctx_size = 0,
    .init = ex_ttas_init,
    .destroy = ex_ttas_destroy,
    .lock = ex_ttas_lock,
    .trylock = ex_ttas_trylock,
    .unlock = ex_ttas_unlock,
    .read_lock = ex_ttas_lock,       /* no shared mode: readers take it exclusively */
    .read_unlock = ex_ttas_unlock,
    .is_locked = ex_ttas_is_locked,
};

static const struct lock_ops *const ex_locks[] = { &ex_ttas_ops, NULL };

static const struct cht_plugin ex_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "example-lock",
    .tables = NULL,
    .locks = ex_locks,
    .sizes = CHT_ABI_SIZES,
};

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void);   /* declared: -Wmissing-prototypes */

CHT_PLUGIN_EXPORT const struct cht_plugin *cht_plugin(void)
{
    return &ex_plugin;
}
