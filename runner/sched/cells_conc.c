/*
 * cells_conc.c -- the figures of a concurrency group's cells (issue 27):
 * its throughput (what its verdict tests, as a time per query: lower is
 * better, like every other figure), how busy the client's CPU was, and
 * which side was the bottleneck. See group_int.h.
 */
#include <math.h>

#include "group_int.h"

/* Busy share from which a side counts as saturated. */
#define CONC_SATURATED 0.90

double pgcb_cells_conc_order(const struct pgcb_host_shared *sh, uint32_t nthreads)
{
    double qps = 0;
    for (uint32_t t = 0; t < nthreads; t++) {
        const struct pgcb_host_thread *ht = &sh->threads[t];
        if (ht->load_wall_ns && ht->batches)
            qps += (double)ht->batches * 1e9 / (double)ht->load_wall_ns;
    }
    return qps > 0 ? 1e9 / qps : NAN;
}

void pgcb_cells_conc_figures(struct pgcb_res_cell *c, const struct pgcb_gstate *gs,
                             uint32_t threads, int server_ncpus)
{
    c->time_per_query_ns = c->client_busy = NAN;
    c->bottleneck = PGCB_BOTTLENECK_UNKNOWN;
    c->late_ns = gs->late_ns;
    if (!gs->load_wall_ns || !c->queries)
        return;
    /* Per instance, its queries over its wall time; the instances ran side
     * by side: summed. (wall summed over threads: T x the mean.) */
    const double qps = (double)c->queries * threads * 1e9 / (double)gs->load_wall_ns;
    c->queries_per_s = c->ops_per_s = qps;
    c->time_per_query_ns = 1e9 / qps;
    /* The loads' wall time (every instance's summed), not the sum of the
     * queries' latencies, which overlap: what a block of it lasted. */
    c->wall_ns = gs->load_wall_ns;
    c->client_busy = (double)gs->cpu_ns / (double)gs->load_wall_ns;
    if (c->client_busy >= CONC_SATURATED)
        c->bottleneck = PGCB_BOTTLENECK_CLIENT;
    else if (server_ncpus > 0 && isfinite(c->server_busy) &&
             c->server_busy >= CONC_SATURATED * server_ncpus)
        c->bottleneck = PGCB_BOTTLENECK_SERVER;
    else if (server_ncpus > 0 && isfinite(c->server_busy))
        c->bottleneck = PGCB_BOTTLENECK_NEITHER;
}
