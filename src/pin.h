/*
 * pin.h - machine topology (hwloc) and thread pinning plans.
 *
 * A pinning plan maps worker thread i to one processing unit (PU, a hardware
 * thread). The policies are the three of the thesis (Hunan Univ. 2017, section 3.4.6
 * "线程绑定方案的影响", the influence of the thread-binding scheme) plus an
 * explicit list:
 *
 *   default   No affinity: the OS scheduler places and migrates threads.
 *             Every slot is -1 and pin_apply() does nothing.
 *   compact   Consecutive threads on the topologically closest PUs: fill all
 *             hardware threads of one core, then the next core of the same
 *             socket, then the next socket. Thesis example, E5-2630
 *             (2 sockets x 8 cores x 2 PUs), 24 threads: t0..t15 on socket 0's
 *             8 cores (two per core), t16..t23 on socket 1's first 4 cores.
 *   balanced  Round-robin over sockets, one thread per physical core before any
 *             SMT sibling is used: t0 -> socket 0 core 0 PU 0, t1 -> socket 1
 *             core 0 PU 0, t2 -> socket 0 core 1 ..., and once every core of
 *             every socket holds a thread, the second PUs of the cores follow
 *             in the same order (16 threads on the E5-2630 = 16 distinct
 *             cores, the 17th is the first SMT sibling). Inside a socket that
 *             holds several NUMA nodes (Opteron 6172: 2 per socket) the socket's
 *             "core j" alternates between its nodes, so balanced also spreads
 *             threads over memory controllers.
 *   list      list:0,2,4-7 - thread i runs on OS PU list[i mod entries]:
 *             more threads than entries wrap around, and repeating a PU is
 *             allowed (both are flagged as oversubscribed). A PU outside the
 *             topology / allowed set is an error.
 *
 * More threads than usable PUs: compact and balanced wrap around (thread k
 * takes the slot of thread k mod PUs) and the plan is marked oversubscribed;
 * the driver prints the warning.
 *
 * Numbers in a slot are hwloc OS indexes (os_index): pu is the Linux CPU
 * number (what sched_getcpu() returns), numa the Linux NUMA node number (what
 * libnuma takes). For core and socket the OS index is used too; hwloc falls
 * back to the logical index when the OS does not give one. NOTE: on a real
 * Linux machine a core's OS index is its core_id *within* its package, so
 * core numbers repeat across sockets (socket 0 core 0, socket 1 core 0) and may
 * be sparse; read (socket, core) as the pair that names a core. On hwloc
 * synthetic topologies every object type is numbered 0,1,2,... across the
 * whole machine in tree order, e.g. "pack:2 core:8 pu:2" has cores 0-7 on
 * socket 0, cores 8-15 on socket 1 and PUs 2c and 2c+1 on core c. A PU with no
 * core (socket) object above it reports -1 for core (socket) and counts as its
 * own core (the whole machine is one socket); a PU with no NUMA node -> 0.
 *
 * Thread safety: pin_topology_load/free are not to be called concurrently
 * with other calls on the same topology; pin_plan_make, pin_plan_node and
 * pin_apply only read and may be called from all worker threads at once.
 */
#ifndef CHTBENCH_PIN_H
#define CHTBENCH_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pin_policy { PIN_DEFAULT = 0, PIN_COMPACT, PIN_BALANCED, PIN_LIST };

/* list: OS PU indexes, list_len entries (malloc'd, owned by the spec). */
struct pin_spec { enum pin_policy policy; unsigned *list; unsigned list_len; };

/* "default" | "compact" | "balanced" | "list:0,2,4-7" (entries N or N-M with
 * N <= M, separated by commas; repeats allowed). On error: one line into err
 * starting "--pin: " saying what is accepted, *out = {PIN_DEFAULT, NULL, 0},
 * return -1. Returns 0 on success; release with pin_spec_free(). */
int  pin_parse(const char *s, struct pin_spec *out, char *err, size_t len);
void pin_spec_free(struct pin_spec *s);
/* "default", "compact", "balanced", "list" ("?" for anything else). */
const char *pin_policy_name(enum pin_policy p);

struct pin_topology;  /* opaque, wraps hwloc */

/* spec NULL: this machine, restricted to the CPUs the calling thread may run
 * on (sched_getaffinity: the inherited taskset / cgroup cpuset mask is
 * respected, never widened; call it before pinning any thread) intersected
 * with hwloc's allowed set. Otherwise spec is a path to an hwloc XML file when
 * it names an existing file, else an hwloc synthetic description
 * ("pack:2 core:8 pu:2", "pack:4 numa:2 core:6 pu:1"). Such a topology is only
 * for computing and printing plans: pin_apply() refuses to bind with it.
 * Error: NULL and one line into err starting "--topology: ". */
struct pin_topology *pin_topology_load(const char *spec, char *err, size_t len);
void pin_topology_free(struct pin_topology *t);
unsigned pin_topology_pus(const struct pin_topology *t);        /* usable PUs (>= 1) */
unsigned pin_topology_numa_nodes(const struct pin_topology *t); /* NUMA nodes in the topology, >= 1 */
/* e.g. "2 sockets, 16 cores, 32 PUs, 2 NUMA nodes" (usable ones; a machine
 * without package information counts as 1 socket). */
void pin_topology_describe(const struct pin_topology *t, char *buf, size_t len);

/* OS indexes as described above; -1 each for PIN_DEFAULT. */
struct pin_slot { int pu, core, socket, numa; };
struct pin_plan {
    unsigned threads;         /* slot[0..threads-1] */
    enum pin_policy policy;
    struct pin_slot *slot;
    unsigned numa_nodes;      /* pin_topology_numa_nodes() of the topology */
    bool oversubscribed;      /* some PU carries more than one thread (for
                                 default: threads > usable PUs) */
};

/* threads >= 1. On error (threads 0, list PU not available):
 * one line into err starting "--pin: ", *out zeroed, return -1. */
int  pin_plan_make(const struct pin_topology *t, const struct pin_spec *s, unsigned threads,
                   struct pin_plan *out, char *err, size_t len);
void pin_plan_free(struct pin_plan *p);
/* Why the plan is oversubscribed, for the driver's warning, e.g. "the --pin
 * list names CPU 0 twice (threads 0 and 1 share it)", "4 threads on the 2 CPUs
 * of the --pin list (it wraps around: ...)" or "3 threads on 2 usable CPUs";
 * "" when no CPU carries two threads and threads <= pus. s may be NULL. */
void pin_plan_oversubscription(const struct pin_spec *s, const struct pin_plan *p, unsigned pus, char *buf,
                               size_t len);
/* "# thread pu core socket numa" then one line per thread, e.g. "0 0 0 0 0",
 * space separated, "-" for -1. */
void pin_plan_print(FILE *f, const struct pin_plan *p);
/* Called by worker tid itself: binds the calling thread to slot[tid].pu
 * (sched_setaffinity on the thread). No-op returning 0 for PIN_DEFAULT.
 * Error (-1, one line into err starting "--pin: "): tid out of range, the
 * topology is synthetic/XML rather than this machine, or the kernel refused. */
int  pin_apply(const struct pin_topology *t, const struct pin_plan *p, unsigned tid,
               char *err, size_t len);
/* NUMA node of tid for locks/tables: slot[tid].numa (an OS node number, as
 * libnuma uses; it may be >= numa_nodes on machines with sparse node
 * numbering), or 0 when unknown / default pinning / tid out of range. */
unsigned pin_plan_node(const struct pin_plan *p, unsigned tid);

#ifdef __cplusplus
}
#endif

#endif /* CHTBENCH_PIN_H */
