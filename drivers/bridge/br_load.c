/*
 * br_load.c -- the `load` request: a timed load over the adapter's pool
 * (ABI 1.5 run_load; docs/bridge-protocol.md, "load"). See br_conn.h.
 *
 * The adapter runs the whole load and answers once: the head (done,
 * wall_ns, cpu_ns, late_ns) and the arrays frame of the `done` queries, in
 * completion order. Each query's checksum is mapped as a block's batches
 * are (br_sum_of, at depth 1): a query whose rows and fold match the
 * statement's last dump at depth 1 stands for the dump's checksum.
 *
 * Memory: the rows and folds of a reply are read into two arrays
 * allocated per call (outside the adapter's timing: the load is over by
 * then) and freed before returning; latencies go straight into the
 * runner's out->latency_ns.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "br_conn.h"

static uint64_t br_load_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The load request, or NULL with why (parameters JSON cannot carry). */
static json_t *br_load_req(const struct pgcb_load *l, char *why, size_t whylen)
{
    json_t *pj = br_params(l->params, l->max_queries, why, whylen);
    if (!pj)
        return NULL;
    return json_pack("{s:s, s:I, s:s, s:I, s:f, s:I, s:I, s:I, s:o, s:o}", "op", "load", "stmt",
                     (json_int_t)l->stmt->id, "mode",
                     l->mode == PGCB_LOAD_RATE ? "rate" : "closed", "concurrency",
                     (json_int_t)l->concurrency, "rate",
                     l->mode == PGCB_LOAD_RATE ? l->rate : 0.0, "duration_ns",
                     (json_int_t)l->duration_ns, "min_queries", (json_int_t)l->min_queries,
                     "max_queries", (json_int_t)l->max_queries, "kinds", br_kinds(l->stmt),
                     "params", pj);
}

/* A required non-negative integer field of the reply into *v. 0, or -1. */
static int br_load_u64(const json_t *r, const char *key, uint64_t *v)
{
    const json_t *j = json_object_get(r, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return -1;
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* The load's arguments, checked before anything is sent: the runner's
 * mistakes are PGCB_ERR_CONFIG, not the adapter's. 0, or -1 with why. */
static int br_load_check(const struct pgcb_conn *c, const struct pgcb_load *l, char *why,
                         size_t whylen)
{
    if (!c->pool)
        snprintf(why, whylen, "run_load needs a pool: this connection was opened with open(), "
                 "not pool_open()");
    else if (!l->stmt)
        snprintf(why, whylen, "run_load without a statement");
    else if (l->mode != PGCB_LOAD_CLOSED && l->mode != PGCB_LOAD_RATE)
        snprintf(why, whylen, "run_load: mode %u is neither closed (%d) nor rate (%d)", l->mode,
                 PGCB_LOAD_CLOSED, PGCB_LOAD_RATE);
    else if (l->concurrency < 1 || l->max_queries < 1)
        snprintf(why, whylen, "run_load: concurrency (%u) and max_queries (%u) must be >= 1",
                 l->concurrency, l->max_queries);
    else if (l->mode == PGCB_LOAD_RATE && !(l->rate > 0 && l->rate < 1e12))
        snprintf(why, whylen, "run_load: a rate load needs a rate > 0 queries per second, "
                 "not %g", l->rate);
    else
        return 0;
    return -1;
}

int br_run_load(struct pgcb_conn *c, const struct pgcb_load *l, struct pgcb_load_out *out,
                char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    out->done = 0;
    out->wall_ns = out->cpu_ns = out->late_ns = 0;
    if (br_load_check(c, l, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", c->cfg.what, why);
        return PGCB_ERR_CONFIG;
    }
    if (br_proc_pin(&c->proc, why, sizeof why) != 0)
        return br_conn_fail(c, err, errlen, "%s", why);
    json_t *req = br_load_req(l, why, sizeof why);
    if (!req) {
        snprintf(err, errlen, "%s", why);
        return PGCB_ERR_UNSUPPORTED;
    }
    const uint64_t t0 = br_load_now_ns();
    json_t *r;
    /* A load bounded by its duration alone gets that and start_timeout_ms
     * to answer (an adapter whose client never settles a query must not
     * hang the run); one bounded by a query count cannot be bounded so. */
    int limit = -1;
    if (l->min_queries == 0) {
        const uint64_t ms = l->duration_ns / 1000000u + (uint64_t)c->cfg.timeout_ms;
        limit = ms > INT_MAX ? INT_MAX : (int)ms;
    }
    int rc = br_call(c, req, limit, &r, err, errlen);
    const uint64_t took = br_load_now_ns() - t0;
    if (!r)
        return rc;
    /* A failure keeps the queries that completed before it: its done,
     * times and frame are read as a success's are. */
    uint64_t done = 0, wall = 0, cpu = 0, late = 0;
    int bad = 0;
    if (br_load_u64(r, "done", &done) || done > l->max_queries) {
        snprintf(why, sizeof why, "no \"done\" in 0..%u", l->max_queries);
        bad = 1;
    } else if (br_load_u64(r, "wall_ns", &wall) || br_load_u64(r, "cpu_ns", &cpu)) {
        snprintf(why, sizeof why, "no \"wall_ns\" and \"cpu_ns\" (non-negative integers)");
        bad = 1;
    } else if (json_object_get(r, "late_ns") && br_load_u64(r, "late_ns", &late)) {
        snprintf(why, sizeof why, "\"late_ns\" is not a non-negative integer");
        bad = 1;
    } else if (wall > took) {
        snprintf(why, sizeof why, "its wall_ns %llu is more than the %llu ns the whole exchange "
                 "took", (unsigned long long)wall, (unsigned long long)took);
        bad = 1;
    }
    uint64_t *rows = bad ? NULL : malloc((done ? done : 1) * sizeof *rows);
    uint32_t *folds = bad ? NULL : malloc((done ? done : 1) * sizeof *folds);
    if (!bad && (!rows || !folds)) {
        snprintf(why, sizeof why, "out of memory reading %llu queries", (unsigned long long)done);
        bad = 1;
    }
    /* No query completed (a failure before the first): no arrays, no frame
     * (a frame is at least a byte: docs/bridge-protocol.md). */
    if (!bad && done)
        bad = br_arrays(c, r, done, out->latency_ns, rows, folds, why, sizeof why) != 0;
    json_decref(r);
    for (uint64_t i = 0; !bad && i < done; i++) {
        if (out->latency_ns[i] == 0 || out->latency_ns[i] > took) {
            snprintf(why, sizeof why, "the latency of query %llu (in completion order) is %llu "
                     "ns: not > 0 and within the %llu ns the exchange took",
                     (unsigned long long)i + 1, (unsigned long long)out->latency_ns[i],
                     (unsigned long long)took);
            bad = 1;
        }
    }
    if (bad) {
        free(rows);
        free(folds);
        return br_conn_fail(c, err, errlen, "its reply to a load is malformed: %s", why);
    }
    for (uint64_t i = 0; i < done; i++)
        br_sum_of(l->stmt, 1, rows[i], folds[i], &out->sums[i]);
    free(rows);
    free(folds);
    out->done = (uint32_t)done;
    out->wall_ns = wall;
    out->cpu_ns = cpu;
    out->late_ns = l->mode == PGCB_LOAD_RATE ? late : 0;
    return rc;
}
