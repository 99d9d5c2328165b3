/* csv.c -- the aggregate as CSV, for spreadsheets and pandas; see agg.h.
 *
 * One header row, then one row per run, group and driver: every group of
 * every run's own file with every driver of that run (not only what the
 * runs share: the ranking's choices are not the CSV's), in file order.
 * RFC 4180: fields separated by commas, records by CRLF; a field holding a
 * comma, a double quote, CR or LF is enclosed in double quotes, a double
 * quote in it doubled. Numbers are plain C-locale numbers (no thousands
 * separators; reals with up to 12 significant digits, an exponent when
 * very large or small); booleans are "true" and "false"; an unknown value
 * is an empty field.
 *
 * Columns (docs/cli.md has them in a table):
 *   run, file, label                the run: 1-based index, the file as given, its label
 *                                   (--label, or CPU model and cores)
 *   cpu_model, cores, server_version, started_at    that run's machine and server
 *   suite, query, depth, transaction, connect, threads, ops  the group (depth is
 *                                   rows_per_txn in a transaction group; connect: a
 *                                   connection group, whose samples are connections and
 *                                   whose per-query figures are per connection; ops empty
 *                                   for a time budget)
 *   group                           "suite / query, depth D" (or "connect"), as in the tables
 *   driver, reference               the [driver.NAME] label; a reference driver (the floor,
 *                                   null) is never ranked
 *   status, error                   ok, invalid, failed, skipped or not_run, as in the
 *                                   result file; why, when not ok
 *   samples, queries                batches timed, queries in them
 *   mean_ns, rme_pct, median_ns, p90_ns, p99_ns, p999_ns, min_ns, max_ns   latency of a batch
 *   ops_per_s, queries_per_s        throughput
 *   client_cpu_ns_per_query, server_cpu_ns_per_query, backend_cpu_ns_per_query
 *   spread_cv_pct                   spread of the per-order medians (robust CV)
 *   relative_latency, relative_lo, relative_hi   the median over the group's lowest median
 *                                   among the valid client drivers of that run, with its
 *                                   interval from the per-order ratios (empty with too few
 *                                   orders); empty for a driver that is not valid
 *   lowest_median, winner           the group's leader; its verdict's winner
 *   orders                          the execution orders the group ran
 *   orders_won, orders_lost, sign_p against the group's leader: the orders in which this
 *                                   driver was faster / slower, and the sign test's p; for
 *                                   the leader its weakest result against any rival (the
 *                                   fewest orders won, the most lost, the largest p); empty
 *                                   for a reference driver, an invalid one, a lone leader
 *   concurrency, pool, mode, rate   a concurrency group's shape ([suite] concurrency, pool,
 *                                   mode, rate); empty for other groups
 *   time_per_query_ns, client_busy, bottleneck   a concurrency group's figure (1e9 /
 *                                   queries_per_s: what its verdict and relative_latency
 *                                   compare), the client's CPU share per instance and the
 *                                   side that was saturated (client, server, neither)
 *   peak_rss_kib, rss_growth_kib    the client processes' peak resident memory over the
 *                                   group and its growth in the orders above the level
 *                                   after the warm-up (the result's `memory`); empty when
 *                                   not read
 *   stream, stream_rows, first_row_ns, rows_per_s, memory_verdict, bytes_per_row   a
 *                                   streaming group's mode (buffered, streamed), the rows
 *                                   of a read, the median time to first row, rows per
 *                                   second at the median read, and in a suite's largest
 *                                   group the memory verdict (bounded, grows) and the
 *                                   peak's rise per extra row; empty for other groups
 *   rtt_ms, round_trips, bytes_out, bytes_in, expected_ns   a group at an emulated RTT:
 *                                   its RTT, and the cell's wire per query as the proxy
 *                                   counted it and its expectation (docs/network.md); empty
 *                                   for other groups (and where not counted)
 *   stalls_40ms                     samples 30-60 ms above the median over TCP; empty: none
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "pgcb/driver.h"
#include "util.h"

static const char *const columns[] = {
    "run", "file", "label", "cpu_model", "cores", "server_version", "started_at", "suite",
    "query", "depth", "transaction", "connect", "threads", "ops", "group", "driver", "reference",
    "status", "error", "samples", "queries", "mean_ns", "rme_pct", "median_ns", "p90_ns",
    "p99_ns", "p999_ns", "min_ns", "max_ns", "ops_per_s", "queries_per_s",
    "client_cpu_ns_per_query", "server_cpu_ns_per_query", "backend_cpu_ns_per_query",
    "spread_cv_pct", "relative_latency", "relative_lo", "relative_hi", "lowest_median",
    "winner", "orders", "orders_won", "orders_lost", "sign_p", "concurrency", "pool", "mode",
    "rate", "time_per_query_ns", "client_busy", "bottleneck", "peak_rss_kib", "rss_growth_kib",
    "stream", "stream_rows", "first_row_ns", "rows_per_s", "memory_verdict", "bytes_per_row",
    "rtt_ms", "round_trips", "bytes_out", "bytes_in", "expected_ns", "stalls_40ms",
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

/* A row being written: the separator goes before every field but the first. */
struct row {
    FILE *f;
    size_t col;
};

static void sep(struct row *w)
{
    if (w->col++)
        fputc(',', w->f);
}

static void put_str(struct row *w, const char *s)
{
    sep(w);
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, w->f);
        return;
    }
    fputc('"', w->f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', w->f);
        fputc(*s, w->f);
    }
    fputc('"', w->f);
}

static void put_u64(struct row *w, uint64_t v)
{
    sep(w);
    fprintf(w->f, "%" PRIu64, v);
}

/* A real, or an empty field when it is not finite. */
static void put_real(struct row *w, double v)
{
    sep(w);
    if (isfinite(v))
        fprintf(w->f, "%.12g", v);
}

static void put_bool(struct row *w, int v)
{
    put_str(w, v ? "true" : "false");
}

static void put_empty(struct row *w)
{
    sep(w);
}

static void end_row(struct row *w)
{
    fputs("\r\n", w->f);
    w->col = 0;
}

/* The verdict columns of driver d: lowest_median ... sign_p. */
static void put_verdict(struct row *w, const struct pgcb_result *r, size_t g, size_t d,
                        const struct pgcb_verdict *v)
{
    put_bool(w, v->lowest_median == d);
    put_bool(w, v->kind == PGCB_VERDICT_WINNER && v->winner == d);
    put_u64(w, pgcb_rank_group_orders(r, g));
    const struct pgcb_verdict_rival *rv = pgcb_rank_verdict_rival(v, d);
    if (rv) { /* its wins and losses are the leader's losses and wins */
        put_u64(w, rv->losses);
        put_u64(w, rv->wins);
        put_real(w, rv->p);
    } else if (v->lowest_median == d && v->nrivals > 0) {
        unsigned won = v->rivals[0].wins, lost = v->rivals[0].losses;
        for (size_t k = 1; k < v->nrivals; k++) {
            won = v->rivals[k].wins < won ? v->rivals[k].wins : won;
            lost = v->rivals[k].losses > lost ? v->rivals[k].losses : lost;
        }
        put_u64(w, won);
        put_u64(w, lost);
        put_real(w, v->p_max);
    } else {
        put_empty(w);
        put_empty(w);
        put_empty(w);
    }
}

static void put_cell(struct row *w, const struct pgcb_agg *a, size_t i, size_t g, size_t d,
                     const struct pgcb_verdict *v)
{
    const struct pgcb_result *r = a->res[i];
    const struct pgcb_res_group *gr = &r->groups[g];
    const struct pgcb_res_cell *c = &gr->cells[d];
    put_u64(w, i + 1);
    put_str(w, a->runs[i].path);
    put_str(w, a->runs[i].label);
    put_str(w, r->cpu_model);
    if (r->cores)
        put_u64(w, r->cores);
    else
        put_empty(w);
    put_str(w, r->server_version);
    put_str(w, r->started_at);
    put_str(w, gr->suite);
    put_str(w, gr->query);
    put_u64(w, gr->depth);
    put_bool(w, gr->transaction);
    put_bool(w, gr->connect);
    put_u64(w, gr->threads);
    if (gr->ops)
        put_u64(w, gr->ops);
    else
        put_empty(w);
    char *name = pgcb_agg_group_name(gr);
    put_str(w, name);
    free(name);
    put_str(w, r->drivers[d].label);
    put_bool(w, (r->drivers[d].caps & PGCB_CAP_REFERENCE) != 0);
    put_str(w, pgcb_cell_status_str(c->status));
    put_str(w, c->error);
    put_u64(w, c->samples);
    put_u64(w, c->queries);
    put_real(w, c->mean_ns);
    put_real(w, c->rme_pct);
    put_real(w, c->median_ns);
    put_real(w, c->pct_ns[1]); /* pgcb_pct_q: 0.5 0.9 0.99 0.999 */
    put_real(w, c->p99_ns);
    put_real(w, c->pct_ns[3]);
    if (c->samples) {
        put_u64(w, c->min_ns);
        put_u64(w, c->max_ns);
    } else {
        put_empty(w);
        put_empty(w);
    }
    put_real(w, c->ops_per_s);
    put_real(w, c->queries_per_s);
    put_real(w, c->cpu_ns_per_query);
    put_real(w, c->server_cpu_ns_per_query);
    put_real(w, pgcb_res_backend_known(&c->backend) ? c->backend.cpu_ns_per_query : NAN);
    put_real(w, c->spread_cv_pct);
    struct pgcb_ratio ratio = {.ratio = NAN, .lo = NAN, .hi = NAN};
    if (v->lowest_median != PGCB_RANK_NONE && pgcb_rank_cell_valid(r, g, d))
        pgcb_rank_ratio(r, g, d, v->lowest_median, &ratio);
    put_real(w, ratio.ratio);
    put_real(w, ratio.lo);
    put_real(w, ratio.hi);
    put_verdict(w, r, g, d, v);
    if (gr->concurrency) { /* a concurrency group's (result.h); empty elsewhere */
        put_u64(w, gr->concurrency);
        put_u64(w, gr->pool);
        put_str(w, gr->load_mode == PGCB_LOAD_RATE ? "rate" : "closed");
        put_real(w, gr->load_mode == PGCB_LOAD_RATE ? gr->rate : NAN);
        put_real(w, c->time_per_query_ns);
        put_real(w, c->client_busy);
        put_str(w, c->bottleneck ? pgcb_bottleneck_name(c->bottleneck) : NULL);
    } else {
        for (int k = 0; k < 7; k++)
            put_empty(w);
    }
    if (c->mem_known) {
        put_u64(w, c->mem_peak_kib);
        put_u64(w, c->mem_growth_kib);
    } else {
        put_empty(w);
        put_empty(w);
    }
    if (gr->result_mode) {
        put_str(w, pgcb_result_mode_name(gr->result_mode));
        put_u64(w, c->stream_rows);
        put_real(w, c->first_row_ns);
        put_real(w, c->status == PGCB_CELL_OK ? c->rows_per_s : NAN);
        put_str(w, c->mem_verdict ? pgcb_mem_verdict_name(c->mem_verdict) : NULL);
        put_real(w, c->mem_verdict ? c->mem_bytes_per_row : NAN);
    } else {
        for (int k = 0; k < 6; k++)
            put_empty(w);
    }
    const struct pgcb_res_wire *wi = &c->wire;
    put_real(w, gr->has_rtt ? gr->rtt_ms : NAN);
    put_real(w, wi->known ? wi->round_trips : NAN);
    put_real(w, wi->known ? wi->bytes_out : NAN);
    put_real(w, wi->known ? wi->bytes_in : NAN);
    put_real(w, wi->known ? wi->expected_ns : NAN);
    if (c->stalls)
        put_u64(w, c->stalls);
    else
        put_empty(w);
    end_row(w);
}

void pgcb_agg_csv(FILE *out, const struct pgcb_agg *a)
{
    struct row w = {.f = out};
    for (size_t k = 0; k < NCOLUMNS; k++)
        put_str(&w, columns[k]);
    end_row(&w);
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        for (size_t g = 0; g < r->ngroups; g++) {
            struct pgcb_verdict v;
            pgcb_rank_verdict(r, g, &v);
            for (size_t d = 0; d < r->ndrivers; d++)
                put_cell(&w, a, i, g, d, &v);
            pgcb_rank_verdict_free(&v);
        }
    }
}
