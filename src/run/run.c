/*
 * run/run.c - one CHTBench run ("Concurrent Hashing on Multi-core Systems",
 * PhD thesis, Hunan University, 2017, §3.3; docs/design.md "One run"): the
 * orchestration.
 *
 *   main: create table -> spawn n workers
 *   worker: pin -> thread_init -> B1 -> [main reads the allocator, thread 0
 *           the table's resizes] -> B1b
 *           -> prefill (thread 0, or a slice each; timed: the build phase)
 *           -> B2 -> thread 0 reads the allocator, checks size()==i -> B3 (start)
 *           -> [--warmup: uncounted loop until main raises warm_stop -> BW]
 *           -> [--verify history: thread 0 reads the watched keys -> BH]
 *           -> timed loop -> B4 -> thread 0 takes size() -> B5
 *           -> verify: each worker get()s its slice of the key range -> B6
 *           -> thread_exit
 *   main joins B1..B6; in --duration mode it sets the stop flag d ms after
 *   B3 (after BW with --warmup).
 *
 * All table calls come from worker threads after their thread_init (tables
 * with RCU registration need that); size() is called by worker 0. PAPI
 * event sets start right after B3 and stop right after the loop; likwid
 * regions "prefill" and "run" wrap the prefill and the timed loop. Memory
 * snapshots: main before create and after the run, thread 0 after the
 * prefill check. The allocator's count (alloc_bytes_per_key) is read around
 * create() and around the prefill, so that what the driver allocates in
 * between (filter bitmaps, key buffers, per-thread state) is not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "worker.h"
#include "faults.h"
#include "marker.h"
#include "pin.h"
#include "registry.h"

static inline bool counting(const struct run_params *p) { return p->counters && p->counters->active; }

static void barrier(struct shared *s) { team_wait(&s->team); }

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->s;
    const struct run_params *p = s->p;
    if (pin_apply(p->topo, p->plan, w->tid, w->pin_error, sizeof w->pin_error) != 0 && !w->pin_error[0])
        snprintf(w->pin_error, sizeof w->pin_error, "--pin: cannot pin thread %u", w->tid);
    if (s->ops->thread_init)
        s->ops->thread_init(s->table, w->tid);
    const struct bench_config *cfg = p->cfg;
    if (cfg->likwid_marker)
        marker_thread_init();
    if (counting(p))
        counters_thread_init(p->counters, &w->cnt);
    run_opbuf_prepare(w);
    barrier(s);                              /* B1: all registered */
    if (w->tid == 0 && s->ops->stats) {      /* every thread_init done, no insert yet */
        struct cht_stats st = { 0 };
        s->ops->stats(s->table, &st);
        s->resizes_at_create = st.resizes;
    }
    barrier(s);                              /* B1b: main has read the allocator's count */
    if (cfg->likwid_marker)
        marker_start("prefill");
    w->build_start = now_ns();
    run_prefill(w);
    w->build_end = now_ns();
    if (cfg->likwid_marker)
        marker_stop("prefill");
    barrier(s);                              /* B2: prefill done */
    if (w->tid == 0) {
        memstat_alloc_take(&s->alloc_after_prefill, s->alloc_rss_only);
        s->prefill_size = s->ops->size(s->table);
        if (s->ops->stats) {
            struct cht_stats st = { 0 };
            s->ops->stats(s->table, &st);
            s->table_bytes_after_prefill = st.bytes;
            s->resizes_after_prefill = st.resizes;
        }
        memstat_take(&s->mem_after_prefill);
        run_pipe_choose(s);
        run_slices_build(s);
    }
    barrier(s);                              /* B3: start */
    if (s->chase)
        ceiling_chase_chains(s->chase, w->tid, w->chase_q);
    if (cfg->warmup_ms) {
        /* its own key stream, so the timed phase draws the same keys with or without it */
        run_source_init(w, (cfg->seed + p->rep) ^ 0x7761726d75700000ull);
        run_warmup_loop(w);
        barrier(s);                          /* BW: warm-up over */
    }
    if (s->hist_on) {
        if (w->tid == 0)
            run_hist_read_initial(s);
        barrier(s);                          /* BH: the watched keys' states read */
    }
    run_source_init(w, cfg->seed + p->rep);
    if (counting(p))
        counters_thread_start(&w->cnt);
    if (cfg->likwid_marker)
        marker_start("run");
    if (s->bytes_ops)
        run_bytes_timed_loop(w);
    else
        run_timed_loop(w);
    if (cfg->likwid_marker)
        marker_stop("run");
    if (counting(p))
        counters_thread_stop(&w->cnt);
    barrier(s);                              /* B4: all stopped */
    if (w->tid == 0) {
        s->final_size = s->ops->size(s->table);
        s->wrote[0] = 1;                     /* the prefill's seq 0 */
        for (unsigned t = 0; t < p->threads; t++) {
            const uint64_t *c = s->workers[t].count, *wc = s->workers[t].warm_count;
            const bool wrote_any = c[INS_SUC] + c[UPD_SUC] + wc[INS_SUC] + wc[UPD_SUC] > 0;
            s->wrote[t + 1] = wrote_any ? s->workers[t].seq : 0;
        }
        if (cfg->workload == WL_YCSB_D && s->verify == VERIFY_FULL)
            s->verify_n = s->ycsb.next;      /* the new keys lie above the range */
    }
    barrier(s);                              /* B5 */
    run_verify_slice(w);
    barrier(s);                              /* B6: verified */
    if (s->ops->thread_exit)
        s->ops->thread_exit(s->table, w->tid);
    if (counting(p))
        counters_thread_exit(&w->cnt);
    free(w->opbuf);
    w->opbuf = NULL;
    return NULL;
}

/* --mem: the policy applies to the main thread while it creates the table
 * and is inherited by the workers it spawns (prefill allocations). */
static void mem_policy_set(const struct bench_config *cfg)
{
#ifdef HAVE_NUMA
    if (cfg->mem == MEM_INTERLEAVE)
        numa_set_interleave_mask(numa_all_nodes_ptr);
    else if (cfg->mem == MEM_NODE)
        numa_set_preferred(cfg->mem_node);
#else
    (void)cfg;
#endif
}

static void mem_policy_reset(const struct bench_config *cfg)
{
#ifdef HAVE_NUMA
    if (cfg->mem != MEM_LOCAL)
        numa_set_localalloc();
#else
    (void)cfg;
#endif
}

/* Undoes run_create's steps before the table exists. */
static void run_create_undo(const struct run_params *p, struct worker *w)
{
    mem_policy_reset(p->cfg);
    for (unsigned i = 0; p->cfg->latency_every && i < p->threads; i++)
        lat_buf_free(&w[i].lat);
}

/* The table with the run's settings, the latency buffers and a filter's
 * bitmap; 0, or -1 with r->error set and nothing of them left. */
static int run_create(const struct run_params *p, struct shared *s, struct worker *w, const unsigned *nodes,
                      struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    /* the run's lock settings reach the table's locks as they reach a lock bench's (lockbench.c) */
    struct lock_config lc = {
        .numa_nodes = p->plan->numa_nodes ? p->plan->numa_nodes : 1,
        .max_threads = p->threads,
        .handoff_bound = cfg->handoff_bound,
        .waiter_threshold = cfg->waiter_threshold,
    };
    /* --initial-capacity / --grow: a resizable table sized for fewer keys than it is prefilled with */
    struct cht_config tc = {
        .initial = cfg->initial_capacity ? cfg->initial_capacity : cfg->initial, .density = cfg->density, .range = p->range,
        .max_threads = p->threads, .numa_nodes = lc.numa_nodes,
        .thread_node = nodes, .lock_config = &lc, .value_size = cfg->value_size, .hugepages = cfg->hugepages,
    };
    registry_apply_choice(p->table, &tc);
    if (cfg->latency_every) {
        /* per thread and store; a budget of 2^24 samples per store in all, 4096..2^20 per thread */
        uint64_t cap = (1ull << 24) / p->threads;
        cap = cap < 4096 ? 4096 : cap > LAT_CAP_PER_STORE ? LAT_CAP_PER_STORE : cap;
        for (unsigned i = 0; i < p->threads; i++)
            if (lat_buf_init(&w[i].lat, cap) != 0) {
                for (unsigned j = 0; j < i; j++)
                    lat_buf_free(&w[j].lat);
                snprintf(r->error, sizeof r->error, "--latency: out of memory for the sample buffers");
                return -1;
            }
    }
    memstat_take(&r->memory.mem_before_create);
    mem_policy_set(cfg);
    char err[256] = "";
    s->alloc_rss_only = registry_table_plugin(p->table->ops) != NULL;   /* a plugin's heap may not be malloc's */
    memstat_alloc_take(&s->alloc_before_create, s->alloc_rss_only);
    s->table = s->ops->create(&tc, err, sizeof err);
    memstat_alloc_take(&s->alloc_after_create, s->alloc_rss_only);
    if (!s->table) {
        run_create_undo(p, w);
        snprintf(r->error, sizeof r->error, "--table %s: cannot create the table: %s", s->ops->name,
                 err[0] ? err : "unknown error");
        return -1;
    }
    if (s->ops->caps & CHT_CAP_APPROXIMATE) {
        s->shadow = calloc((p->range + 63) / 64, sizeof *s->shadow);
        if (!s->shadow) {
            s->ops->destroy(s->table);
            s->table = NULL;
            run_create_undo(p, w);
            snprintf(r->error, sizeof r->error, "out of memory for the membership bitmap of a filter (%llu keys)",
                     (unsigned long long)p->range);
            return -1;
        }
    }
    return 0;
}

/* Main's side of the barriers (the file's header): starts the workers, ends
 * the warm-up and (--duration, --timeline) the timed phase, moves a shifting
 * hot set, times the final check, joins. */
static int run_phases(const struct run_params *p, struct shared *s, struct worker *w, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    for (unsigned i = 0; i < p->threads; i++) {
        w[i].tid = i;
        w[i].s = s;
    }
    runner_watch_stop(&s->warm_stop, &s->stop);
    if (team_start(&s->team, p->threads, true, worker_main, w, sizeof *w) != 0) {
        runner_watch_stop(NULL, NULL);
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    barrier(s);                   /* B1 */
    memstat_alloc_take(&s->alloc_before_prefill, s->alloc_rss_only);
    barrier(s);                   /* B1b */
    barrier(s);                   /* B2 */
    barrier(s);                   /* B3: go */
    if (cfg->warmup_ms) {
        runner_sleep_ms(cfg->warmup_ms);
        __atomic_store_n(&s->warm_stop, 1, __ATOMIC_RELAXED);
        barrier(s);               /* BW */
    }
    if (s->hist_on)
        barrier(s);               /* BH: thread 0 has read the watched keys (the duration starts after it) */
    pthread_t shifter;
    bool shifting = p->keys->dist == KEYGEN_HOTSPOT && p->keys->spec.shift_ms &&
                    team_spawn_blocked(&shifter, run_shifter_main, s) == 0;
    if (cfg->timeline_ms) {
        run_timeline_sample(s, w, p->threads, r);
    } else if (cfg->duration_ms) {
        if (s->chase)
            run_slice_phase(s, cfg->duration_ms, cfg->ceiling_slice_ms);
        else
            runner_sleep_ms(cfg->duration_ms);
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
    }
    barrier(s);                   /* B4 */
    clock_gettime(CLOCK_REALTIME, &r->end_time);
    if (shifting) {
        __atomic_store_n(&s->shifter_stop, 1, __ATOMIC_RELEASE);
        pthread_join(shifter, NULL);
    }
    barrier(s);                   /* B5 */
    uint64_t v0 = now_ns();
    barrier(s);                   /* B6 */
    r->check.verify_s = (double)(now_ns() - v0) / 1e9;
    runner_watch_stop(NULL, NULL);
    team_join(&s->team);
    mem_policy_reset(cfg);
    return 0;
}

/* The workers' counts and times summed into r, the size accounting and the
 * final check judged. Returns whether a prefill insert was refused; sets
 * *pin_error (the first thread's) and *opbuf_failed. */
static bool run_collect(const struct run_params *p, const struct shared *s, const struct worker *w,
                        struct run_result *r, const char **pin_error, bool *opbuf_failed)
{
    uint64_t t0 = UINT64_MAX, t1 = 0, found = 0, present_seen = 0, present_found = 0, warm[N_OUTCOMES] = { 0 };
    bool full = false;
    *pin_error = NULL;
    *opbuf_failed = false;
    for (unsigned i = 0; i < p->threads; i++) {
        if (w[i].pin_error[0] && !*pin_error)
            *pin_error = w[i].pin_error;
        for (int o = 0; o < N_OUTCOMES; o++) {
            r->count[o] += w[i].count[o];
            warm[o] += w[i].warm_count[o];
        }
        t0 = w[i].t_start < t0 ? w[i].t_start : t0;
        t1 = w[i].t_end > t1 ? w[i].t_end : t1;
        r->cpu_ns += w[i].cpu_ns;
        full |= w[i].prefill_full;
        r->check.prefilled += w[i].prefilled;
        found += w[i].verify_found;
        present_seen += w[i].verify_present;
        present_found += w[i].verify_present_found;
        r->filter.filter_skipped[0] += w[i].skipped[0];
        r->filter.filter_skipped[1] += w[i].skipped[1];
        r->opbuf.opbuf_ns += w[i].opbuf_ns;
        r->opbuf.opbuf_wrapped |= w[i].opbuf_wrapped;
        *opbuf_failed |= w[i].opbuf_failed;
        if (w[i].opbuf_failed && !r->error[0])
            snprintf(r->error, sizeof r->error, "--keybuf: out of memory for %llu entries per thread",
                     (unsigned long long)p->opbuf_len);
    }
    r->opbuf.opbuf_len = p->opbuf_len;
    memcpy(r->warmup_count, warm, sizeof warm);
    for (int o = 0; o < N_OUTCOMES; o++)
        r->total_ops += r->count[o];
    r->elapsed_s = (double)(t1 - t0) / 1e9;
    if (s->sliced)
        run_slices_collect(w, p->threads, r);
    r->mops = r->elapsed_s > 0 ? (double)r->total_ops / r->elapsed_s / 1e6 : 0;
    r->check.prefill_size = s->prefill_size;
    r->check.final_size = s->final_size;
    r->check.prefill_ok = s->prefill_size == r->check.prefilled;
    r->check.expected_size = r->check.prefilled + r->count[INS_SUC] + warm[INS_SUC] - r->count[REM_SUC] - warm[REM_SUC];
    r->check.size_ok = r->check.prefill_ok && r->check.final_size == r->check.expected_size;
    r->interrupted = runner_interrupted != 0;
    for (unsigned i = 0; i < p->threads; i++) {   /* the answers of the timed loop (--pipeline) */
        if (w[i].pipe_bad && !r->pipe.pipe_bad)
            r->pipe.pipe_first_bad = w[i].pipe_first_bad;
        r->pipe.pipe_bad += w[i].pipe_bad;
    }
    run_verify_judge(s, r, found, present_seen, present_found);
    run_verify_contents(s, r, w, p->threads);
    return full;
}

/* --counters per op and --latency's merged histograms; frees the latency buffers. */
static void run_collect_measures(const struct run_params *p, struct worker *w, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    if (counting(p)) {
        r->counters.counters_ok = true;
        for (unsigned i = 0; i < p->threads; i++)
            r->counters.counters_ok &= w[i].cnt.ok;
        for (unsigned e = 0; e < p->counters->n && r->counters.counters_ok; e++) {
            double sum = 0;
            for (unsigned i = 0; i < p->threads; i++)
                sum += (double)w[i].cnt.v[e];
            r->counters.counter_per_op[e] = r->total_ops ? sum / (double)r->total_ops : 0;
        }
    }
    if (cfg->latency_every) {
        struct lat_buf *bufs = malloc(p->threads * sizeof *bufs);
        r->lat.on = bufs != NULL;
        r->lat.every = cfg->latency_every;
        r->lat.tsc_hz = p->lat_clock->tsc_hz;
        r->lat.overhead_cycles = p->lat_clock->overhead_cycles;
        for (unsigned i = 0; bufs && i < p->threads; i++)
            bufs[i] = w[i].lat;
        if (bufs && lat_merge(bufs, p->threads, &r->lat) != 0)
            r->lat.on = false;
        free(bufs);
        for (unsigned i = 0; i < p->threads; i++)
            lat_buf_free(&w[i].lat);
    }
}

int runner_run(const struct run_params *p, struct run_result *r)
{
    const struct bench_config *cfg = p->cfg;
    int rc = -1;
    memset(r, 0, sizeof *r);
    struct shared *s = aligned_alloc(CHT_CACHE_LINE, sizeof *s);
    struct worker *w = aligned_alloc(CHT_CACHE_LINE, sizeof *w * p->threads);
    unsigned *nodes = calloc(p->threads, sizeof *nodes);
    uint64_t *wrote = calloc(p->threads + 1, sizeof *wrote);
    bool cleared = false;                /* s and w zeroed: what out: frees is known */
    if (!s || !w || !nodes || !wrote) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto out;
    }
    memset(s, 0, sizeof *s);
    memset(w, 0, sizeof *w * p->threads);
    cleared = true;
    s->p = p;
    s->workers = w;
    s->wrote = wrote;
    fault_reset();
    const struct cht_ops *ops = p->table->ops;
    const struct key_arena *arena = NULL;
    if (cfg->key_type.kind != KEYTYPE_U64) {  /* byte keys: the arena before the table, off the clock */
        arena = key_arena_for(&cfg->key_type, p->range, r->error, sizeof r->error);
        if (!arena)
            goto out;
        ops = bytekeys_wrap(ops, arena);
    }
    s->ops = fault_wrap(ops);
    if (arena && s->ops == ops) {     /* byte keys, no fault hooks: the timed loop calls the byte ops (LOOP_BYTES) */
        s->bytes_ops = p->table->ops;
        s->arena = arena;
    }
    run_loop_prepare(s->ops);
    for (unsigned i = 0; i < p->threads; i++)
        nodes[i] = pin_plan_node(p->plan, i);
    if (run_create(p, s, w, nodes, r) != 0)
        goto out;
    run_choose_verify(p, s);
    if (run_hist_prepare(p, s, w, r) != 0)
        goto out;
    ycsb_latest_init(&s->ycsb, p->range);
    s->mix = op_mix_basic(cfg->insert, cfg->remove);
    if (cfg->workload)
        op_mix_ycsb(workload_name(cfg->workload), &s->mix);

    if (run_phases(p, s, w, r) != 0)
        goto out;
    ceiling_chase_free(s->chase);     /* the workers are joined; before the memory snapshot after the run */
    s->chase = NULL;

    const char *pin_error;
    bool opbuf_failed;
    bool full = run_collect(p, s, w, r, &pin_error, &opbuf_failed);
    if (full)
        snprintf(r->error, sizeof r->error, "prefill: the table refused a fresh key after %llu of %llu (each "
                 "prefill thread stops at its first refusal)",
                 (unsigned long long)r->check.prefilled, (unsigned long long)cfg->initial);
    if (s->ops->stats) {
        run_stats_take(s->ops, s->table, &r->memory.stats, &r->table_counters);
        r->memory.has_stats = true;
        r->memory.table_bytes_after_prefill = s->table_bytes_after_prefill;
    }
    run_build_collect(s, w, p->threads, &r->build);
    r->pipe.pipeline_w = s->pipe_w;
    r->pipe.pipeline_mode = s->pipe_mode;
    r->memory.mem_after_prefill = s->mem_after_prefill;
    memstat_take(&r->memory.mem_after_run);
    if (s->shadow && s->verify != VERIFY_OFF)
        run_filter_bound(r);
    if (s->hist_on && run_hist_collect(p, s, w, r) != 0)
        goto out;
    r->outcome = run_outcome_of(r, full);
    run_collect_measures(p, w, r);
    rc = 0;
    if (pin_error) {
        snprintf(r->error, sizeof r->error, "%s", pin_error);
        rc = -1;
    } else if (opbuf_failed) {
        rc = -1;                      /* r->error says why */
    } else if (s->chase_error[0]) {
        snprintf(r->error, sizeof r->error, "%s", s->chase_error);
        rc = -1;
    } else if (r->table_counters.refused[0]) {
        snprintf(r->error, sizeof r->error, "%s", r->table_counters.refused);
        rc = -1;
    }
out:
    if (cleared && s->table) {       /* run_create succeeded: undone here, whether the run went on or not */
        s->ops->destroy(s->table);
        free(s->shadow);
        run_create_undo(p, w);
    }
    for (unsigned i = 0; cleared && i < p->threads; i++)
        hist_buf_free(&w[i].hist);
    if (cleared)
        free(s->hist_init);
    free(w);
    free(s);
    free(nodes);
    free(wrote);
    return rc;
}
