/*
 * host_load.c -- see host_child.h: a concurrency group's warm-up and
 * measured orders on a measuring thread's pool (ABI 1.5 run_load), one
 * load per block. A block is at most HLOAD_BLOCK_NS of load (and at most
 * PGCB_BLOCK_MAX queries, the thread's sample buffer): the heartbeat and
 * the progress line move between blocks, and each block's end drains the
 * queries in flight (a ramp of about one query's latency per block, well
 * under 1% at a second). The order's figure is its queries over the loads'
 * wall time (group_order.c); each query's latency goes into the thread's
 * histogram.
 */
#include "host_child.h"

#include <stdatomic.h>
#include <stdio.h>

#include "util.h"

/* The most load time per block. */
#define HLOAD_BLOCK_NS 1000000000ull

/* Queries in the next block: what about `ns` of load takes at the rate seen
 * so far (est_qps; 0: unknown), with room to spare, at most `cap` (0: no
 * limit) and PGCB_BLOCK_MAX. */
static size_t hload_size(double est_qps, uint64_t ns, uint64_t min_queries, size_t cap,
                         uint32_t concurrency)
{
    double n = est_qps > 0 ? est_qps * (double)ns / 1e9 * 1.5 + concurrency + 64
                           : (double)PGCB_BLOCK_MAX;
    if (n < (double)min_queries)
        n = (double)min_queries;
    if (n > PGCB_BLOCK_MAX)
        n = PGCB_BLOCK_MAX;
    size_t k = (size_t)n;
    if (cap && cap < k)
        k = cap;
    return k ? k : 1;
}

/* One block of load: `ns` of it, or min_queries queries. */
static void hload_block(struct pgcb_hworker *w, const struct pgcb_job *job,
                        const struct pgcb_plan *plan, size_t cap, uint64_t ns,
                        uint64_t min_queries, double est_qps, struct pgcb_measured_load *m,
                        char *why, size_t whylen)
{
    const struct pgcb_cfg_query *cq = &w->c->env->cfg->queries[job->query];
    struct pgcb_load shape = {.mode = (uint32_t)job->load_mode,
                              .concurrency = job->concurrency, .rate = job->load_rate,
                              .duration_ns = ns, .min_queries = min_queries};
    size_t n = hload_size(est_qps, ns, min_queries, cap, job->concurrency);
    pgcb_hconn_params_draw(w, cq, 1, n);
    struct pgcb_plan p = *plan;
    p.sums = w->sums;
    p.values = w->values;
    p.lengths = w->lengths;
    pgcb_measure_load(&p, &shape, n, w->samples, m, why, whylen);
    atomic_store(&w->c->sh->threads[w->index].heartbeat_ns, pgcb_now_ns());
}

void pgcb_hload_warmup(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                       const struct pgcb_job *job, struct pgcb_plan *plan, size_t cap)
{
    struct pgcb_hchild *c = w->c;
    const struct pgcb_cfg_query *cq = &c->env->cfg->queries[job->query];
    char why[PGCB_ERRLEN] = "";
    if (pgcb_hchild_phase(w, ht, job, PGCB_PHASE_WARMUP) != 0)
        return;
    /* The first query sets the group's checksum: one run_batch on the
     * pool, as for any group. */
    pgcb_hconn_params_draw(w, cq, 1, 1);
    struct pgcb_plan first = *plan;
    struct pgcb_measured b;
    first.check_rows = first.check_sum = 0;
    first.sums = NULL;
    pgcb_measure_block(&first, 1, w->samples, &b, why, sizeof why);
    atomic_store(&ht->heartbeat_ns, pgcb_now_ns());
    if (b.rc != PGCB_OK) {
        pgcb_hchild_failed(w, ht, job, b.rc, "first query", why);
        return;
    }
    ht->expect_sum = plan->expect_sum = b.last_sum;
    ht->note[0] = '\0';
    if (plan->stmt && PGCB_DRIVER_HAS(plan->drv, 4, note)) {
        plan->drv->note(plan->conn, plan->stmt, ht->note, sizeof ht->note);
        ht->note[sizeof ht->note - 1] = '\0';
    }
    ht->rows_bad += job->check_rows && b.last_rows != job->expect_rows;
    ht->batches++;
    uint64_t spent = 0, done = 0;
    double est = 0;
    while (spent < job->warmup_ns && !atomic_load(&c->sh->stop)) {
        uint64_t left = job->warmup_ns - spent;
        struct pgcb_measured_load m;
        hload_block(w, job, plan, cap, left < HLOAD_BLOCK_NS ? left : HLOAD_BLOCK_NS, 0, est,
                    &m, why, sizeof why);
        if (m.rc != PGCB_OK) {
            pgcb_hchild_failed(w, ht, job, m.rc, "warm-up", why);
            return;
        }
        uint64_t ns = left < HLOAD_BLOCK_NS ? left : HLOAD_BLOCK_NS;
        spent += m.wall_ns > ns ? m.wall_ns : ns; /* an open loop covers its schedule */
        done += m.n;
        if (m.n && m.wall_ns)
            est = (double)m.n * 1e9 / (double)m.wall_ns;
        atomic_store_explicit(&ht->live_ns, spent, memory_order_relaxed);
        atomic_store_explicit(&ht->live_batches, done, memory_order_relaxed);
    }
    w->est_ns = est > 0 ? 1e9 / est : 0; /* ns per query, for the order's first block */
}

void pgcb_hload_measure(struct pgcb_hworker *w, struct pgcb_host_thread *ht,
                        const struct pgcb_job *job, const struct pgcb_plan *plan, size_t cap)
{
    struct pgcb_hchild *c = w->c;
    char why[PGCB_ERRLEN] = "";
    if (pgcb_hchild_phase(w, ht, job, PGCB_PHASE_ORDER) != 0)
        return;
    const int self_timed = c->hd.self_timed;
    double est = w->est_ns > 0 ? 1e9 / w->est_ns : 0;
    uint64_t spent = 0, done = 0, inv0, vol0, inv1, vol1;
    pgcb_hchild_switches(&inv0, &vol0);
    while ((spent < job->time_floor_ns || done < job->batch_floor) &&
           !atomic_load(&c->sh->stop)) {
        uint64_t ns = 0, minq = 0;
        if (spent < job->time_floor_ns) {
            ns = job->time_floor_ns - spent;
            ns = ns < HLOAD_BLOCK_NS ? ns : HLOAD_BLOCK_NS;
        } else {
            minq = job->batch_floor - done;
            double most = est > 0 ? est * HLOAD_BLOCK_NS / 1e9 : (double)PGCB_BLOCK_MAX;
            if ((double)minq > most)
                minq = most >= 1 ? (uint64_t)most : 1;
        }
        struct pgcb_measured_load m;
        hload_block(w, job, plan, cap, ns, minq, est, &m, why, sizeof why);
        pgcb_hist_add_many(&ht->hist, w->samples, m.n);
        /* An open loop's block covers its schedule, `ns`, even when its last
         * reply comes a little before the end of it: counting only up to
         * that reply would leave a sliver of schedule for one more block of
         * a query or two, whose queries over their few microseconds would
         * inflate the throughput. */
        uint64_t wall = job->load_mode == PGCB_LOAD_RATE && m.wall_ns < ns ? ns : m.wall_ns;
        spent += wall ? wall : 1;
        done += m.n;
        ht->load_wall_ns += wall;
        if (m.late_ns > ht->late_ns)
            ht->late_ns = m.late_ns;
        ht->cpu_ns += m.cpu_ns;
        ht->rows_bad += m.rows_bad;
        ht->sum_bad += m.sum_bad;
        ht->blocks += self_timed;
        ht->overhead_ns += self_timed ? m.overhead_ns : 0;
        ht->overhead_cpu_ns += self_timed ? m.overhead_cpu_ns : 0;
        atomic_store_explicit(&ht->live_ns, spent, memory_order_relaxed);
        atomic_store_explicit(&ht->live_batches, done, memory_order_relaxed);
        if (m.n && m.wall_ns)
            est = (double)m.n * 1e9 / (double)m.wall_ns;
        if (m.rc != PGCB_OK) {
            char when[96];
            snprintf(when, sizeof when, "order %zu, after %llu queries", job->order + 1,
                     (unsigned long long)done);
            pgcb_hchild_failed(w, ht, job, m.rc, when, why);
            break;
        }
    }
    pgcb_hchild_switches(&inv1, &vol1);
    ht->nivcsw += inv1 - inv0;
    ht->nvcsw += vol1 - vol0;
    ht->batches += done;
}
