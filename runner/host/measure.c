/* measure.c -- see measure.h. */
#include "measure.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

/* Inline in the loop below: the common plan (no transaction, no
 * parameters) costs one branch more than a bare run_batch call. */
/* The plan's fields come in as values: copied once per block, they stay in
 * registers across the driver's calls (through a pointer they would be
 * loaded again after every call). */
struct hot {
    int (*run_batch)(struct pgcb_conn *, struct pgcb_stmt *, uint32_t, struct pgcb_sum *,
                     char *, size_t);
    int (*run_batch_params)(struct pgcb_conn *, struct pgcb_stmt *, uint32_t,
                            const struct pgcb_params *, struct pgcb_sum *, char *, size_t);
    struct pgcb_conn *conn;
    struct pgcb_stmt *stmt, *begin, *commit;
    uint32_t depth, nparams;
    const char **values;
    const int *lengths;
};

static inline struct hot hot_of(const struct pgcb_plan *p)
{
    return (struct hot){p->drv->run_batch, p->nparams ? p->drv->run_batch_params : NULL,
                        p->conn, p->stmt, p->begin, p->commit, p->depth, p->nparams,
                        p->values, p->lengths};
}

static inline int batch(const struct hot h, size_t i, struct pgcb_sum *sum, char *err,
                        size_t errlen)
{
    int rc;
    sum->hash = 0;
    sum->rows = 0;
    if (h.begin && (rc = h.run_batch(h.conn, h.begin, 1, sum, err, errlen)) != PGCB_OK)
        return rc;
    if (h.nparams) {
        size_t at = i * h.depth * h.nparams;
        struct pgcb_params params = {h.nparams, h.values + at, h.lengths + at};
        rc = h.run_batch_params(h.conn, h.stmt, h.depth, &params, sum, err, errlen);
    } else {
        rc = h.run_batch(h.conn, h.stmt, h.depth, sum, err, errlen);
    }
    if (rc == PGCB_OK && h.commit)
        rc = h.run_batch(h.conn, h.commit, 1, sum, err, errlen);
    return rc;
}

/* One COPY of a COPY plan into *sum: its row count. */
static int copy_once(const struct pgcb_plan *p, struct pgcb_sum *sum, char *err, size_t errlen)
{
    uint64_t rows = 0;
    sum->hash = 0;
    sum->rows = 0;
    int rc = p->drv->run_copy(p->conn, p->copy, &rows, err, errlen);
    if (rc == PGCB_OK) {
        pgcb_sum_int(sum, (int64_t)rows);
        sum->rows = rows;
    }
    return rc;
}

/* Empty a COPY plan's table (outside every sample). */
static int copy_reset(const struct pgcb_plan *p, char *err, size_t errlen)
{
    struct pgcb_sum ignored = {0, 0};
    return p->drv->run_batch(p->conn, p->stmt, 1, &ignored, err, errlen);
}

int pgcb_measure_batch(const struct pgcb_plan *p, size_t i, struct pgcb_sum *sum, char *err,
                       size_t errlen)
{
    if (p->copy) {
        int rc = copy_once(p, sum, err, errlen);
        return rc == PGCB_OK ? copy_reset(p, err, errlen) : rc;
    }
    return batch(hot_of(p), i, sum, err, errlen);
}

/* The COPY block: each sample one COPY, timed alone; the table emptied
 * after it, untimed. */
static void measure_copy(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                         struct pgcb_measured *out, char *err, size_t errlen)
{
    uint64_t rows_bad = 0, sum_bad = 0, wall = 0, cpu = 0;
    struct pgcb_sum sum = {0, 0};
    size_t i = 0;
    int rc = PGCB_OK;
    while (i < n) {
        uint64_t cpu0 = pgcb_thread_cpu_ns();
        uint64_t t0 = pgcb_now_ns();
        rc = copy_once(p, &sum, err, errlen);
        uint64_t t1 = pgcb_now_ns();
        uint64_t cpu1 = pgcb_thread_cpu_ns();
        if (rc != PGCB_OK)
            break;
        samples[i++] = t1 - t0;
        wall += t1 - t0;
        cpu += cpu1 - cpu0;
        rows_bad += p->check_rows && sum.rows != p->expect_rows;
        sum_bad += p->check_sum && sum.hash != p->expect_sum;
        if ((rc = copy_reset(p, err, errlen)) != PGCB_OK)
            break;
    }
    *out = (struct pgcb_measured){.n = i, .wall_ns = wall, .cpu_ns = cpu, .rows_bad = rows_bad,
                                  .sum_bad = sum_bad, .last_rows = sum.rows,
                                  .last_sum = sum.hash, .rc = rc};
}

/* The self-timed block: one call; the checks as in the loop below. */
static void measure_self_timed(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                               struct pgcb_measured *out, char *err, size_t errlen)
{
    struct pgcb_params params = {p->nparams, p->values, p->lengths};
    struct pgcb_block req = {p->stmt, p->begin, p->commit, p->depth, (uint32_t)n,
                             p->nparams ? &params : NULL};
    struct pgcb_block_out bo = {.samples = samples, .sums = p->sums};
    memset(p->sums, 0, n * sizeof *p->sums);
    uint64_t cpu0 = pgcb_thread_cpu_ns();
    uint64_t start = pgcb_now_ns();
    int rc = p->drv->run_block(p->conn, &req, &bo, err, errlen);
    uint64_t end = pgcb_now_ns();
    uint64_t cpu1 = pgcb_thread_cpu_ns();
    size_t done = bo.done <= n ? bo.done : n;
    uint64_t wall = 0, rows_bad = 0, sum_bad = 0;
    for (size_t i = 0; i < done; i++) {
        wall += samples[i];
        rows_bad += p->check_rows && p->sums[i].rows != p->expect_rows;
        sum_bad += p->check_sum && p->sums[i].hash != p->expect_sum;
    }
    *out = (struct pgcb_measured){
        .n = done, .wall_ns = wall, .cpu_ns = bo.cpu_ns, .rows_bad = rows_bad,
        .sum_bad = sum_bad, .rc = rc,
        .last_rows = done ? p->sums[done - 1].rows : 0,
        .last_sum = done ? p->sums[done - 1].hash : 0,
        .overhead_ns = end - start > wall ? end - start - wall : 0,
        .overhead_cpu_ns = (cpu1 - cpu0) + bo.outside_cpu_ns,
    };
}

/* The streaming block: each sample one run_stream, timed by the driver. */
static void measure_stream(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                           struct pgcb_measured *out, char *err, size_t errlen)
{
    uint64_t rows_bad = 0, sum_bad = 0, wall = 0, cpu = 0, over = 0, over_cpu = 0;
    struct pgcb_sum last = {0, 0};
    struct pgcb_stream req = *p->stream;
    struct pgcb_params params = {p->nparams, NULL, NULL};
    size_t i = 0;
    int rc = PGCB_OK;
    req.stmt = p->stmt;
    for (; i < n; i++) {
        struct pgcb_stream_out o = {0};
        if (p->nparams) {
            params.values = p->values + i * p->nparams;
            params.lengths = p->lengths + i * p->nparams;
            req.params = &params;
        }
        uint64_t cpu0 = pgcb_thread_cpu_ns();
        uint64_t t0 = pgcb_now_ns();
        rc = p->drv->run_stream(p->conn, &req, &o, err, errlen);
        uint64_t t1 = pgcb_now_ns();
        uint64_t cpu1 = pgcb_thread_cpu_ns();
        if (p->idiom && o.idiom[0])
            memcpy(p->idiom, o.idiom, PGCB_IDIOM_LEN);
        if (rc != PGCB_OK)
            break;
        uint64_t total = o.total_ns ? o.total_ns : 1;
        samples[i] = total;
        if (p->firsts)
            p->firsts[i] = o.first_row_ns <= total ? o.first_row_ns : total;
        wall += total;
        /* An adapter's CPU time is its own; the call's thread CPU is then
         * the exchange's, beside it. */
        cpu += o.cpu_ns ? o.cpu_ns : cpu1 - cpu0;
        over_cpu += o.cpu_ns ? cpu1 - cpu0 : 0;
        over += t1 - t0 > total ? t1 - t0 - total : 0;
        rows_bad += p->check_rows && o.sum.rows != p->expect_rows;
        sum_bad += p->check_sum && o.sum.hash != p->expect_sum;
        last = o.sum;
    }
    *out = (struct pgcb_measured){.n = i, .wall_ns = wall, .cpu_ns = cpu, .rows_bad = rows_bad,
                                  .sum_bad = sum_bad, .last_rows = last.rows,
                                  .last_sum = last.hash, .rc = rc, .overhead_ns = over,
                                  .overhead_cpu_ns = over_cpu};
}

/* One whole connection of a connection plan: open, prepare, execute once
 * (batch i of the parameter arrays), close. Returns the failing step's
 * status, its message in err behind the step's name. */
static int one_connection(const struct pgcb_plan *p, size_t i, struct pgcb_sum *sum, char *err,
                          size_t errlen)
{
    const struct pgcb_connect *k = p->connect;
    char why[PGCB_ERRLEN];
    struct pgcb_conn *conn = NULL;
    struct pgcb_stmt *stmt = NULL;
    why[0] = '\0';
    sum->hash = 0;
    sum->rows = 0;
    int rc = p->drv->open(k->conninfo, k->opts, k->nopts, &conn, why, sizeof why);
    if (rc != PGCB_OK) {
        snprintf(err, errlen, "cannot connect: %s", why);
        return rc;
    }
    const char *step = "prepare failed";
    rc = p->drv->prepare(conn, k->name, k->sql, &stmt, why, sizeof why);
    if (rc == PGCB_OK) {
        step = "execution failed";
        if (p->nparams) {
            struct pgcb_params params = {p->nparams, p->values + i * p->nparams,
                                         p->lengths + i * p->nparams};
            rc = p->drv->run_batch_params(conn, stmt, 1, &params, sum, why, sizeof why);
        } else {
            rc = p->drv->run_batch(conn, stmt, 1, sum, why, sizeof why);
        }
    }
    p->drv->close(conn);
    if (rc != PGCB_OK)
        snprintf(err, errlen, "%s: %s", step, why);
    return rc;
}

void pgcb_measure_block(const struct pgcb_plan *p, size_t n, uint64_t *samples,
                        struct pgcb_measured *out, char *err, size_t errlen)
{
    if (p->sums) {
        measure_self_timed(p, n, samples, out, err, errlen);
        return;
    }
    if (p->copy) {
        measure_copy(p, n, samples, out, err, errlen);
        return;
    }
    if (p->stream) {
        measure_stream(p, n, samples, out, err, errlen);
        return;
    }
    uint64_t rows_bad = 0, sum_bad = 0;
    const uint64_t expect_rows = p->expect_rows, expect_sum = p->expect_sum;
    const int check_rows = p->check_rows, check_sum = p->check_sum;
    const int connect = p->connect != NULL; /* a connection suite: a connection per sample */
    const struct hot h = hot_of(p);
    struct pgcb_sum sum = {0, 0};
    size_t i = 0;
    int rc = PGCB_OK;

    uint64_t cpu0 = pgcb_thread_cpu_ns();
    uint64_t start = pgcb_now_ns();
    uint64_t prev = start;
    for (; i < n; i++) {
        rc = connect ? one_connection(p, i, &sum, err, errlen) : batch(h, i, &sum, err, errlen);
        uint64_t now = pgcb_now_ns();
        if (rc != PGCB_OK)
            break;
        samples[i] = now - prev;
        prev = now;
        rows_bad += check_rows && sum.rows != expect_rows;
        sum_bad += check_sum && sum.hash != expect_sum;
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
    out->overhead_ns = out->overhead_cpu_ns = 0;
}
