/* measure.c -- see measure.h. */
#include "measure.h"

#include "util.h"

void pgcb_measure_block(const struct pgcb_driver *drv, struct pgcb_conn *conn,
                        struct pgcb_stmt *stmt, uint32_t depth, size_t n, uint64_t expect_rows,
                        uint64_t expect_sum, uint64_t *samples, struct pgcb_block *out,
                        char *err, size_t errlen)
{
    int (*run_batch)(struct pgcb_conn *, struct pgcb_stmt *, uint32_t, struct pgcb_sum *,
                     char *, size_t) = drv->run_batch;
    uint64_t rows_bad = 0, sum_bad = 0;
    struct pgcb_sum sum = {0, 0};
    size_t i = 0;
    int rc = PGCB_OK;

    uint64_t cpu0 = pgcb_thread_cpu_ns();
    uint64_t start = pgcb_now_ns();
    uint64_t prev = start;
    for (; i < n; i++) {
        sum.hash = 0;
        sum.rows = 0;
        rc = run_batch(conn, stmt, depth, &sum, err, errlen);
        uint64_t now = pgcb_now_ns();
        if (rc != PGCB_OK)
            break;
        samples[i] = now - prev;
        prev = now;
        rows_bad += sum.rows != expect_rows;
        sum_bad += sum.hash != expect_sum;
    }
    uint64_t cpu1 = pgcb_thread_cpu_ns();

    out->n = i;
    out->wall_ns = prev - start;
    out->cpu_ns = cpu1 - cpu0;
    out->rows_bad = rows_bad;
    out->sum_bad = sum_bad;
    out->last_rows = sum.rows;
    out->last_sum = sum.hash;
    out->rc = rc;
}
