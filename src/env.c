/*
 * env.c - the one place chtbench calls getenv (include/cht_env.h says what
 * is read and why; docs/cli.md "Test hooks" lists the hooks).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cht_env.h"

static struct cht_env env;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* a decimal integer >= 0 in *out; false when unset or anything else */
static bool env_uint(const char *name, uint64_t *out)
{
    const char *e = getenv(name);
    if (!e || *e < '0' || *e > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(e, &end, 10);
    if (*end || errno)
        return false;
    *out = n;
    return true;
}

/* a count hook: positive, else 0 (no hook) */
static uint64_t env_count(const char *name)
{
    uint64_t n = 0;
    return env_uint(name, &n) ? n : 0;
}

static bool env_flag(const char *name)
{
    const char *e = getenv(name);
    return e && *e && strcmp(e, "0") != 0;
}

static void env_read(void)
{
    env.fault_drop_insert = env_count("CHTBENCH_TEST_FAULT_DROP_INSERT");
    env.fault_drop_remove = env_count("CHTBENCH_TEST_FAULT_DROP_REMOVE");
    env.fault_stale_get = env_count("CHTBENCH_TEST_FAULT_STALE_GET");
    env.fault_miss_get = env_count("CHTBENCH_TEST_FAULT_MISS_GET");
    env.fault_torn_get = env_count("CHTBENCH_TEST_FAULT_TORN_GET");
    env.fault_unwritten_get = env_count("CHTBENCH_TEST_FAULT_UNWRITTEN_GET");
    env.fault_drop_update = env_count("CHTBENCH_TEST_FAULT_DROP_UPDATE");
    env.fault_pipe_miss_get = env_count("CHTBENCH_TEST_FAULT_PIPE_MISS_GET");
    env.fault_drop_pair = env_count("CHTBENCH_TEST_FAULT_DROP_PAIR");
    env.fault_filter_always = env_count("CHTBENCH_TEST_FAULT_FILTER_ALWAYS");
    env.fault_size_skew = env_count("CHTBENCH_TEST_FAULT_SIZE_SKEW");
    env.rtm_disable = env_flag("CHTBENCH_TEST_RTM_DISABLE");
    env.lockbench_no_lock = env_flag("CHTBENCH_TEST_LOCKBENCH_NO_LOCK");
    uint64_t d;
    if (env_uint("CHTBENCH_TEST_INJECT_GET_DELAY", &d) && d <= 1000000) {   /* meson's range for N */
        env.inject_get_delay_set = true;
        env.inject_get_delay = (unsigned)d;
    }

    env.plugins = getenv("CHTBENCH_PLUGINS");
    const char *dir = getenv("CHTBENCH_TEST_ALLOCATOR_DIR");
    env.test_allocator_dir = dir && *dir ? dir : NULL;

    env.glibc_tunables = getenv("GLIBC_TUNABLES");
    env.ld_preload = getenv("LD_PRELOAD");
    env.allocator_reexec = getenv(CHT_ENV_ALLOCATOR_REEXEC);
    env.hugepages_reexec = getenv(CHT_ENV_HUGEPAGES_REEXEC) != NULL;
    env.likwid_marker_env = getenv("LIKWID_MODE") && getenv("LIKWID_EVENTS") && getenv("LIKWID_FILEPATH");
}

const struct cht_env *cht_env(void)
{
    pthread_once(&env_once, env_read);
    return &env;
}
