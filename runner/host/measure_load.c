/* measure_load.c -- see measure.h: one timed load of a concurrency group. */
#include "measure.h"

#include "util.h"

void pgcb_measure_load(const struct pgcb_plan *p, const struct pgcb_load *shape, size_t n,
                       uint64_t *samples, struct pgcb_measured_load *out, char *err,
                       size_t errlen)
{
    struct pgcb_params params = {p->nparams, p->values, p->lengths};
    struct pgcb_load ld = *shape;
    ld.stmt = p->stmt;
    ld.max_queries = (uint32_t)n;
    ld.params = p->nparams ? &params : NULL;
    struct pgcb_load_out lo = {.latency_ns = samples, .sums = p->sums}; /* not zeroed */
    uint64_t cpu0 = pgcb_thread_cpu_ns();
    uint64_t start = pgcb_now_ns();
    int rc = p->drv->run_load(p->conn, &ld, &lo, err, errlen);
    uint64_t end = pgcb_now_ns();
    uint64_t cpu1 = pgcb_thread_cpu_ns();
    size_t done = lo.done <= n ? lo.done : n;
    uint64_t rows_bad = 0, sum_bad = 0;
    for (size_t i = 0; i < done; i++) {
        rows_bad += p->check_rows && p->sums[i].rows != p->expect_rows;
        sum_bad += p->check_sum && p->sums[i].hash != p->expect_sum;
    }
    /* The driver's thread is the client when it runs in ours: its CPU time
     * is the driver's figure (it read it around its loop), and what this
     * thread spent around the call beyond it is overhead; the bridge's
     * figure is its adapter's, this thread only waited. */
    uint64_t here = cpu1 - cpu0;
    *out = (struct pgcb_measured_load){
        .n = done, .wall_ns = lo.wall_ns, .cpu_ns = lo.cpu_ns, .late_ns = lo.late_ns,
        .rows_bad = rows_bad, .sum_bad = sum_bad, .rc = rc,
        .last_rows = done ? p->sums[done - 1].rows : 0,
        .last_sum = done ? p->sums[done - 1].hash : 0,
        .overhead_ns = end - start > lo.wall_ns ? end - start - lo.wall_ns : 0,
        .overhead_cpu_ns = here > lo.cpu_ns ? here - lo.cpu_ns : here,
    };
}
