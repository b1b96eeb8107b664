/*
 * test_team.c - src/team.c's team_start_or_none, which `chtbench check`
 * starts its threads with (src/check/): no thread runs fn before all n have
 * started, every one then does and meets the others in the barrier; when a
 * thread cannot start (the address space cut by RLIMIT_AS: no room for its
 * stack) it returns -1 with how many did start, none of them ran fn or is
 * left in the barrier, and the process goes on to start a team again.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include "team.h"
#include "test_check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#define STACK_BYTES (8u << 20)

struct member {
    struct team *team;
    unsigned members_seen;   /* team->n when fn ran: all n started */
};

static unsigned ran;         /* fn calls */

static void *member_main(void *arg)
{
    struct member *m = arg;
    m->members_seen = m->team->n;   /* written before the gate opened */
    __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
    team_wait(m->team);
    return NULL;
}

/* a team of n (main meets it too with main_waits): 0, n started, n ran, each after all started */
static void start_all(unsigned n, bool main_waits)
{
    struct team team;
    struct member m[64];
    for (unsigned i = 0; i < n; i++)
        m[i] = (struct member){ .team = &team };
    __atomic_store_n(&ran, 0, __ATOMIC_RELAXED);
    unsigned started = 0;
    int rc = team_start_or_none(&team, n, main_waits, member_main, m, sizeof m[0], &started);
    CHECK(rc == 0, "team_start_or_none(%u) expected 0 got %d", n, rc);
    CHECK(started == n, "started expected %u got %u", n, started);
    if (rc != 0)
        return;
    if (main_waits)
        team_wait(&team);
    team_join(&team);
    CHECK(ran == n, "fn ran expected %u times got %u", n, ran);
    for (unsigned i = 0; i < n; i++)
        CHECK(m[i].members_seen == n, "thread %u ran fn with %u of %u started", i, m[i].members_seen, n);
}

static size_t address_space_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* room for a few 8 MB stacks, not 64: -1, some started, none ran fn */
static void start_some(void)
{
    struct rlimit old, cut;
    getrlimit(RLIMIT_AS, &old);
    cut = old;
    cut.rlim_cur = address_space_bytes() + 5 * (size_t)STACK_BYTES;
    if (setrlimit(RLIMIT_AS, &cut) != 0) {
        printf("skip: setrlimit(RLIMIT_AS) failed\n");
        return;
    }
    struct team team;
    struct member m[64];
    for (unsigned i = 0; i < 64; i++)
        m[i] = (struct member){ .team = &team };
    __atomic_store_n(&ran, 0, __ATOMIC_RELAXED);
    unsigned started = 99;
    int rc = team_start_or_none(&team, 64, false, member_main, m, sizeof m[0], &started);
    setrlimit(RLIMIT_AS, &old);
    CHECK(rc == -1, "team_start_or_none(64) with room for ~5 stacks expected -1 got %d", rc);
    CHECK(started < 64, "started expected fewer than 64 got %u", started);
    CHECK(ran == 0, "fn expected to run in no thread got %u", ran);
    if (rc == 0)
        team_join(&team);
    printf("64 threads with room for ~5 stacks: %u started, -1, fn ran %u times\n", started, ran);
}

int main(void)
{
    /* every thread's stack STACK_BYTES, whatever RLIMIT_STACK says */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);

    start_all(1, false);
    start_all(16, false);
    start_all(64, true);
    if (UNDER_SANITIZER)
        printf("skip: RLIMIT_AS cannot work under a sanitizer's reservations\n");
    else
        start_some();
    start_all(64, false);   /* and the process goes on */
    if (failures)
        return 1;
    printf("team: all checks passed\n");
    return 0;
}
