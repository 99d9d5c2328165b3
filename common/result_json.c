/*
 * result_json.c -- struct pgcb_result <-> JSON with jansson, atomic write.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgcb/driver.h"
#include "proto.h"
#include "rank.h"
#include "result.h"
#include "stats.h"
#include "json_util.h"
#include "util.h"

const char *pgcb_cell_status_str(enum pgcb_cell_status s)
{
    switch (s) {
    case PGCB_CELL_OK: return "ok";
    case PGCB_CELL_INVALID: return "invalid";
    case PGCB_CELL_FAILED: return "failed";
    case PGCB_CELL_SKIPPED: return "skipped";
    case PGCB_CELL_NOT_RUN: break;
    }
    return "not_run";
}

const char *pgcb_res_group_unit(const struct pgcb_res_group *gr)
{
    return gr->connect ? "connection" : "batch";
}

char *pgcb_result_label(const struct pgcb_result *r)
{
    const char *cpu = r->cpu_model && r->cpu_model[0] ? r->cpu_model : "unknown CPU";
    if (r->cores == 0)
        return pgcb_xstrdup(cpu);
    return pgcb_xasprintf("%s, %u core%s", cpu, r->cores, r->cores == 1 ? "" : "s");
}

void pgcb_res_group_shape(const struct pgcb_res_group *gr, char *buf, size_t n)
{
    if (gr->connect)
        snprintf(buf, n, "connect");
    else if (gr->concurrency && gr->load_mode == PGCB_LOAD_RATE)
        snprintf(buf, n, "concurrency %u, pool %u, rate %g/s", gr->concurrency, gr->pool,
                 gr->rate);
    else if (gr->concurrency && gr->pool != gr->concurrency)
        snprintf(buf, n, "concurrency %u, pool %u", gr->concurrency, gr->pool);
    else if (gr->concurrency)
        snprintf(buf, n, "concurrency %u", gr->concurrency);
    else
        snprintf(buf, n, "%s %u", gr->transaction ? "rows_per_txn" : "depth", gr->depth);
}

static enum pgcb_cell_status status_from_str(const char *s)
{
    if (!s)
        return PGCB_CELL_NOT_RUN;
    if (strcmp(s, "ok") == 0)
        return PGCB_CELL_OK;
    if (strcmp(s, "invalid") == 0)
        return PGCB_CELL_INVALID;
    if (strcmp(s, "failed") == 0)
        return PGCB_CELL_FAILED;
    if (strcmp(s, "skipped") == 0)
        return PGCB_CELL_SKIPPED;
    return PGCB_CELL_NOT_RUN;
}

/* ---- writing ----------------------------------------------------------- */

static json_t *caps_json(unsigned caps)
{
    json_t *a = json_array();
    if (caps & PGCB_CAP_PIPELINE)
        json_array_append_new(a, json_string("pipeline"));
    if (caps & PGCB_CAP_NO_IO)
        json_array_append_new(a, json_string("no_io"));
    if (caps & PGCB_CAP_REFERENCE)
        json_array_append_new(a, json_string("reference"));
    if (caps & PGCB_CAP_SELF_TIMED)
        json_array_append_new(a, json_string("self_timed"));
    return a;
}

/* A cell's "percentiles_ns": {"50": .., "90": .., "99": .., "99.9": ..}, null
 * values without samples. */
static json_t *percentiles_json(const struct pgcb_res_cell *c)
{
    json_t *o = json_object();
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        json_object_set_new(o, pgcb_pct_key[k], pgcb_json_real(c->samples ? c->pct_ns[k] : NAN));
    return o;
}

/* A cell's "percentile_curve": [[q, ns], ...], [] without one. */
static json_t *curve_json(const struct pgcb_res_cell *c)
{
    json_t *a = json_array();
    for (size_t k = 0; k < c->ncurve; k++)
        json_array_append_new(a, json_pack("[o, o]", pgcb_json_real(c->curve[k].q),
                                           pgcb_json_real(c->curve[k].ns)));
    return a;
}

/* A cell's "backend": its driver's own backends per query (result.h),
 * null when unknown; then "backend_unknown" says why, if there is a
 * reason (a driver that does no I/O has none). */
static void cell_backend_json(json_t *j, const struct pgcb_res_backend *b)
{
    if (!pgcb_res_backend_known(b)) {
        json_object_set_new(j, "backend", json_null());
        if (b->why)
            json_object_set_new(j, "backend_unknown", json_string(b->why));
        return;
    }
    json_object_set_new(
        j, "backend",
        json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:I}", "cpu_ns_per_query",
                  pgcb_json_real(b->cpu_ns_per_query), "cpu_source",
                  b->cpu_exact ? "schedstat" : "ticks", "user_ns_per_query",
                  pgcb_json_real(b->user_ns_per_query), "sys_ns_per_query",
                  pgcb_json_real(b->sys_ns_per_query), "voluntary_switches_per_query",
                  pgcb_json_real(b->voluntary_switches_per_query),
                  "involuntary_switches_per_query",
                  pgcb_json_real(b->involuntary_switches_per_query), "pids",
                  (json_int_t)b->pids));
}

static json_t *cell_json(const struct pgcb_result *r, const struct pgcb_res_cell *c, size_t d)
{
    json_t *om = json_array();
    for (size_t o = 0; o < c->norders; o++)
        json_array_append_new(om, pgcb_json_real(c->order_medians_ns[o]));
    char sum[17];
    snprintf(sum, sizeof sum, "%016llx", (unsigned long long)c->checksum);
    json_t *j = json_object();
    json_object_set_new(j, "driver", json_string(r->drivers[d].label));
    json_object_set_new(j, "status", json_string(pgcb_cell_status_str(c->status)));
    json_object_set_new(j, "error", pgcb_json_str(c->error));
    json_object_set_new(j, "samples", json_integer((json_int_t)c->samples));
    json_object_set_new(j, "queries", json_integer((json_int_t)c->queries));
    json_object_set_new(j, "mean_ns", pgcb_json_real(c->mean_ns));
    json_object_set_new(j, "sd_ns", pgcb_json_real(c->sd_ns));
    json_object_set_new(j, "rme_pct", pgcb_json_real(c->rme_pct));
    json_object_set_new(j, "median_ns", pgcb_json_real(c->median_ns));
    json_object_set_new(j, "p99_ns", pgcb_json_real(c->p99_ns));
    json_object_set_new(j, "percentiles_ns", percentiles_json(c));
    json_object_set_new(j, "min_ns", json_integer((json_int_t)c->min_ns));
    json_object_set_new(j, "max_ns", json_integer((json_int_t)c->max_ns));
    json_object_set_new(j, "ops_per_s", pgcb_json_real(c->ops_per_s));
    json_object_set_new(j, "queries_per_s", pgcb_json_real(c->queries_per_s));
    if (c->rows_per_s > 0) /* bulk groups only (NAN and 0 elsewhere) */
        json_object_set_new(j, "rows_per_s", json_real(c->rows_per_s));
    json_object_set_new(j, "cpu_ns_per_query", pgcb_json_real(c->cpu_ns_per_query));
    json_object_set_new(j, "server_cpu_ns_per_query", pgcb_json_real(c->server_cpu_ns_per_query));
    json_object_set_new(j, "server_busy", pgcb_json_real(c->server_busy));
    cell_backend_json(j, &c->backend);
    json_object_set_new(j, "transport", pgcb_result_transport_json(&c->transport));
    json_object_set_new(j, "wall_ns", json_integer((json_int_t)c->wall_ns));
    json_object_set_new(j, "order_medians_ns", om);
    json_object_set_new(j, "checksum", json_string(sum));
    json_object_set_new(j, "rows_per_batch", json_integer((json_int_t)c->rows_per_batch));
    if (c->mem_known) { /* the client's processes (result.h), from /proc */
        json_t *m = json_object();
        json_object_set_new(m, "peak_kib", json_integer((json_int_t)c->mem_peak_kib));
        json_object_set_new(m, "after_warmup_kib", json_integer((json_int_t)c->mem_level_kib));
        json_object_set_new(m, "growth_kib", json_integer((json_int_t)c->mem_growth_kib));
        json_object_set_new(m, "processes", json_integer(c->mem_processes));
        json_object_set_new(j, "memory", m);
    }
    if (r->drivers[d].caps & PGCB_CAP_SELF_TIMED) {
        json_object_set_new(j, "blocks", json_integer((json_int_t)c->blocks));
        json_object_set_new(j, "overhead_ns_per_block", pgcb_json_real(c->overhead_ns_per_block));
        json_object_set_new(j, "overhead_cpu_ns_per_block",
                            pgcb_json_real(c->overhead_cpu_ns_per_block));
    }
    pgcb_result_cell_noise_json(j, c);
    json_object_set_new(j, "percentile_curve", curve_json(c)); /* bulky: last */
    return j;
}

/* A background load ([background.NAME]) that ran during a group; NULL if
 * its name, driver or query is missing (the file would not read back). */
static json_t *background_json(const struct pgcb_res_background *b)
{
    json_t *lat = json_pack("{s:o, s:o, s:o}", "median", pgcb_json_real(b->median_ns), "p99",
                            pgcb_json_real(b->p99_ns), "max", pgcb_json_real(b->max_ns));
    return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:b, s:o}",
                     "name", b->name, "driver", b->driver, "query", b->query, "connections",
                     (json_int_t)b->connections, "cpus", pgcb_json_str(b->cpus), "target_rate",
                     pgcb_json_real(b->target_rate), "achieved_rate", pgcb_json_real(b->achieved_rate),
                     "executions", (json_int_t)b->executions, "elapsed_s",
                     pgcb_json_real(b->elapsed_s), "latency_ns", lat, "sla", pgcb_json_real(b->sla),
                     "sla_met", b->sla_met, "error", pgcb_json_str(b->error));
}

/* One group; NULL if a field cannot be packed. Key order: what the group
 * is, how it ran (transaction, ops, params), the results, the background
 * load ("verdict" is added by add_derived()). */
static json_t *group_json(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    json_t *cpus = json_array();
    for (uint32_t t = 0; gr->thread_cpus && t < gr->threads; t++)
        json_array_append_new(cpus, json_integer(gr->thread_cpus[t]));
    json_t *one = json_pack("{s:s, s:s, s:o, s:I, s:I, s:o, s:o, s:b, s:o, s:I}", "suite",
                            gr->suite, "query", gr->query, "sql", pgcb_json_str(gr->sql), "depth",
                            (json_int_t)gr->depth, "threads", (json_int_t)gr->threads,
                            "thread_cpus", cpus, "rows",
                            gr->rows >= 0 ? json_integer(gr->rows) : json_null(),
                            "transaction", gr->transaction, "ops",
                            gr->ops ? json_integer((json_int_t)gr->ops) : json_null(), "params",
                            (json_int_t)gr->nparams);
    if (!one)
        return NULL;
    json_object_set_new(one, "transport", pgcb_json_str(gr->transport));
    json_object_set_new(one, "conninfo", pgcb_json_str(gr->conninfo));
    /* What one sample is (a connection group's figures are per connection). */
    json_object_set_new(one, "connect", json_boolean(gr->connect));
    json_object_set_new(one, "unit", json_string(pgcb_res_group_unit(gr)));
    json_object_set_new(one, "connections",
                        gr->connections ? json_integer((json_int_t)gr->connections)
                                        : json_null());
    if (gr->bulk_rows) /* bulk groups only: other groups' JSON is unchanged */
        json_object_set_new(one, "bulk", json_pack("{s:s, s:I}", "kind",
                                                   gr->bulk_copy ? "copy" : "insert", "rows",
                                                   (json_int_t)gr->bulk_rows));
    int ok = 1;
    json_t *results = json_array();
    for (size_t d = 0; d < r->ndrivers; d++)
        json_array_append_new(results, cell_json(r, &gr->cells[d], d));
    json_object_set_new(one, "results", results);
    json_object_set_new(one, "sla_failed", json_boolean(gr->sla_failed));
    json_object_set_new(one, "orders_run",
                        gr->orders_run ? json_integer((json_int_t)gr->orders_run) : json_null());
    json_object_set_new(one, "partial",
                        gr->partial ? json_pack("{s:I, s:I}", "orders",
                                                (json_int_t)gr->partial_orders, "of",
                                                (json_int_t)r->norders)
                                    : json_null());
    json_t *bg = json_array();
    for (size_t b = 0; b < gr->nbackgrounds; b++) {
        json_t *j = background_json(&gr->backgrounds[b]);
        ok &= j != NULL;
        json_array_append_new(bg, j);
    }
    json_object_set_new(one, "background", bg);
    pgcb_result_types_group_json(one, gr);
    pgcb_result_conc_group_json(one, gr);
    pgcb_result_stream_group_json(one, gr);
    pgcb_result_wire_group_json(one, gr);
    pgcb_result_profile_group_json(one, gr);
    if (!ok) {
        json_decref(one);
        return NULL;
    }
    return one;
}

/* "resumed": where a resumed run's kept groups came from (runner --resume);
 * absent from a run that was not resumed. */
static json_t *resumed_json(const struct pgcb_result *r)
{
    return json_pack("{s:o, s:I, s:o}", "from", pgcb_json_str(r->resumed_from), "groups_kept",
                     (json_int_t)r->resumed_groups_kept, "at", pgcb_json_str(r->resumed_at));
}

json_t *pgcb_result_group_json(const struct pgcb_result *r, size_t g)
{
    return g < r->ngroups ? group_json(r, &r->groups[g]) : NULL;
}

/* {"result_format": "text", "describe": ..., "sync": ..., "statements": ...},
 * null for what is unknown; with `explicit`, "set_by_section": [keys]. */
static json_t *proto_json(const struct pgcb_protocol *p, const unsigned *explicit_mask)
{
    json_t *o = json_object();
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        enum pgcb_proto_field pf = (enum pgcb_proto_field)f;
        json_object_set_new(o, pgcb_proto_key(pf), pgcb_json_str(pgcb_proto_value(pf,
                                                                   pgcb_proto_get(p, pf))));
    }
    if (explicit_mask) {
        json_t *a = json_array();
        for (int f = 0; f < PGCB_PROTO_NFIELDS; f++)
            if (*explicit_mask & (1u << f))
                json_array_append_new(a, json_string(pgcb_proto_key((enum pgcb_proto_field)f)));
        json_object_set_new(o, "set_by_section", a);
    }
    return o;
}

/* proto_json read back: a missing object or field, or an unknown word, is
 * unknown (0). */
static void proto_from_json(const json_t *o, struct pgcb_protocol *p, unsigned *explicit_mask)
{
    memset(p, 0, sizeof *p);
    for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
        enum pgcb_proto_field pf = (enum pgcb_proto_field)f;
        pgcb_proto_set(p, pf, pgcb_proto_parse(pf, json_string_value(json_object_get(
                                                           o, pgcb_proto_key(pf)))));
    }
    if (!explicit_mask)
        return;
    *explicit_mask = 0;
    const json_t *a = json_object_get(o, "set_by_section");
    for (size_t i = 0; i < json_array_size(a); i++)
        for (int f = 0; f < PGCB_PROTO_NFIELDS; f++) {
            const char *k = json_string_value(json_array_get(a, i));
            if (k && strcmp(k, pgcb_proto_key((enum pgcb_proto_field)f)) == 0)
                *explicit_mask |= 1u << f;
        }
}

static json_t *result_json(const struct pgcb_result *r)
{
    int ok = 1; /* a driver or group that cannot be packed fails the whole file */
    json_t *drivers = json_array();
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_driver *rd = &r->drivers[d];
        char abi[32];
        snprintf(abi, sizeof abi, "%u.%u", rd->abi_major, rd->abi_minor);
        json_t *one = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "name", rd->label,
                                "driver", pgcb_json_str(rd->name), "version",
                                pgcb_json_str(rd->version), "links", pgcb_json_str(rd->links),
                                "path", pgcb_json_str(rd->path), "description",
                                pgcb_json_str(rd->description), "caps", caps_json(rd->caps),
                                "abi", abi);
        if (one)
            json_object_set_new(one, "protocol", proto_json(&rd->proto, &rd->proto_explicit));
        ok &= one != NULL;
        json_array_append_new(drivers, one);
    }
    json_t *orders = json_array();
    for (size_t o = 0; o < r->norders; o++) {
        json_t *one = json_array();
        for (size_t k = 0; k < r->ndrivers; k++)
            json_array_append_new(one, json_string(r->drivers[r->orders[o][k]].label));
        json_array_append_new(orders, one);
    }
    json_t *groups = json_array();
    for (size_t g = 0; g < r->ngroups; g++) {
        json_t *one = pgcb_result_group_json(r, g);
        ok &= one != NULL;
        json_array_append_new(groups, one);
    }
    json_t *env = json_pack(
        "{s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "cpu_model",
        pgcb_json_str(r->cpu_model), "cores", (json_int_t)r->cores, "ram_bytes",
        (json_int_t)r->ram_bytes, "kernel", pgcb_json_str(r->kernel), "hostname",
        pgcb_json_str(r->hostname), "client_cpus", pgcb_json_str(r->client_cpus), "server_cpus",
        pgcb_json_str(r->server_cpus), "server_cpus_source", pgcb_json_str(r->server_cpus_source),
        "cpus_shared", r->cpus_shared, "libpq_version", pgcb_json_str(r->libpq_version));
    if (env) {
        json_object_set_new(env, "noise", pgcb_result_env_noise_json(r));
        json_object_set_new(env, "runner_cpus", pgcb_json_str(r->runner_cpus));
    }
    json_t *j = json_pack("{s:i, s:{s:o}, s:o, s:o, s:o, s:o, s:{s:o, s:o}, "
                     "s:{s:I, s:I, s:I, s:o}, s:{s:f, s:f, s:I, s:s, s:o, s:I, s:o}, s:o, s:o, s:o, s:b, s:o}",
                     "schema_version", PGCB_RESULT_SCHEMA_VERSION,
                     "runner", "version", pgcb_json_str(r->runner_version),
                     "started_at", pgcb_json_str(r->started_at),
                     "finished_at", pgcb_json_str(r->finished_at),
                     "config_file", pgcb_json_str(r->config_file),
                     "environment", env,
                     "server", "version", pgcb_json_str(r->server_version),
                     "conninfo", pgcb_json_str(r->conninfo),
                     "budget", "time_ms", (json_int_t)r->time_ms,
                     "queries", (json_int_t)r->min_queries,
                     "warmup_ms", (json_int_t)r->warmup_ms,
                     "orders", pgcb_json_str(r->orders_mode),
                     "verdicts", "alpha", pgcb_rank_alpha(r),
                     "interval_level", pgcb_rank_level(r),
                     "orders_repeats", (json_int_t)(r->orders_repeats ? r->orders_repeats : 1),
                     "until", r->until_decided ? "decided" : "budget",
                     "until_width", r->until_decided ? json_real(r->until_width) : json_null(),
                     "looks", (json_int_t)(r->looks ? r->looks : 1),
                     "checksum_reference", pgcb_json_str(r->checksum_reference),
                     "drivers", drivers, "orders", orders, "groups", groups,
                     "complete", r->complete,
                     "stop_reason", pgcb_json_str(r->stop_reason));
    if (j && r->wire_off)
        json_object_set_new(json_object_get(j, "budget"), "wire", json_string("off"));
    if (j && r->respawn_order)
        json_object_set_new(json_object_get(j, "budget"), "respawn", json_string("order"));
    if (j && r->resumed_from)
        json_object_set_new(j, "resumed", resumed_json(r));
    if (j)
        json_object_set_new(j, "protocol", proto_json(&r->proto, NULL));
    json_t *prof = pgcb_result_profile_run_json(&r->profile);
    if (j && prof)
        json_object_set_new(j, "profile", prof);
    if (j && r->selection.recorded) { /* result_selection.c */
        json_t *sel = pgcb_result_selection_json(&r->selection);
        ok &= sel != NULL;
        json_object_set_new(j, "selection", sel);
        pgcb_result_selection_budget(&r->selection, json_object_get(j, "budget"));
    }
    if (!ok) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* The derived figures, computed from r at write time (pgcb_result_read()
 * ignores them, so old and new files read alike): a "verdict" in every
 * group (rank.h) and the top-level "rankings" (per suite and overall). */
static void add_derived(json_t *j, const struct pgcb_result *r)
{
    json_t *groups = json_object_get(j, "groups");
    for (size_t g = 0; g < r->ngroups; g++) {
        struct pgcb_verdict v;
        pgcb_rank_verdict(r, g, &v);
        json_t *jg = json_array_get(groups, g);
        json_object_set_new(jg, "verdict", pgcb_rank_verdict_json(r, &v));
        /* each valid cell's median relative to the leader's, with its interval */
        json_t *cells = json_object_get(jg, "results");
        for (size_t d = 0; v.lowest_median != PGCB_RANK_NONE && d < r->ndrivers; d++) {
            struct pgcb_ratio q;
            if (pgcb_rank_ratio(r, g, d, v.lowest_median, &q) != 0)
                continue;
            json_t *iv = isfinite(q.lo) ? json_pack("[f, f]", q.lo, q.hi) : json_null();
            json_object_set_new(json_array_get(cells, d), "vs_leader",
                                json_pack("{s:s, s:f, s:o, s:f, s:f, s:I}", "driver",
                                          r->drivers[v.lowest_median].label, "ratio", q.ratio,
                                          "interval", iv, "level", q.level, "coverage",
                                          q.coverage, "orders", (json_int_t)q.orders));
        }
        pgcb_rank_verdict_free(&v);
    }
    json_object_set_new(j, "rankings", pgcb_rank_rankings_json(&r, 1, &r, 1, 0));
    json_object_set_new(j, "transport_summary", pgcb_result_transport_summary_json(r));
    json_object_set_new(j, "conversion_cost", pgcb_result_conversion_cost_json(r));
}

json_t *pgcb_result_json(const struct pgcb_result *r)
{
    json_t *j = result_json(r);
    if (j)
        add_derived(j, r);
    return j;
}

int pgcb_result_write(const struct pgcb_result *r, const char *path, char *err, size_t errlen)
{
    json_t *j = pgcb_result_json(r);
    if (!j) {
        snprintf(err, errlen, "%s: cannot build the JSON result (a field is invalid)", path);
        return -1;
    }
    if (pgcb_mkdir_parents(path) != 0) {
        snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(errno));
        json_decref(j);
        return -1;
    }
    char *tmp = pgcb_xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
        json_decref(j);
        free(tmp);
        return -1;
    }
    fchmod(fd, 0644);
    int rc = json_dumpfd(j, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (rc == 0 && write(fd, "\n", 1) != 1)
        rc = -1;
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write the result: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* ---- reading ----------------------------------------------------------- */

static double get_real(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static uint64_t get_u64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static unsigned caps_from_json(json_t *a)
{
    unsigned caps = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        const char *s = json_string_value(v);
        if (!s)
            continue;
        if (strcmp(s, "pipeline") == 0)
            caps |= PGCB_CAP_PIPELINE;
        else if (strcmp(s, "no_io") == 0)
            caps |= PGCB_CAP_NO_IO;
        else if (strcmp(s, "reference") == 0)
            caps |= PGCB_CAP_REFERENCE;
        else if (strcmp(s, "self_timed") == 0)
            caps |= PGCB_CAP_SELF_TIMED;
    }
    return caps;
}

/* ---- the optional keys (absent in files from before issue 8) ----------------
 * Each reads o[key] into *out and returns 0, or returns -1 with one line in
 * why ("WHO's "KEY" is not ..."). Absent reads as 0 (NAN for reals, NULL for
 * strings), and so does null where the type allows it. */

static int opt_fail(char *why, size_t n, const char *who, const char *key, const char *what)
{
    snprintf(why, n, "%s's \"%s\" is not %s", who, key, what);
    return -1;
}

static int opt_bool(json_t *o, const char *key, int *out, const char *who, char *why, size_t n)
{
    json_t *v = json_object_get(o, key);
    *out = json_is_true(v);
    return !v || json_is_boolean(v) ? 0 : opt_fail(why, n, who, key, "true or false");
}

/* An integer from 0 to max; null only when null_ok. */
static int opt_uint(json_t *o, const char *key, uint64_t max, int null_ok, uint64_t *out,
                    const char *who, char *why, size_t n)
{
    json_t *v = json_object_get(o, key);
    *out = 0;
    if (!v || (null_ok && json_is_null(v)))
        return 0;
    if (json_is_integer(v) && json_integer_value(v) >= 0 &&
        (uint64_t)json_integer_value(v) <= max) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    char what[80];
    if (max == UINT32_MAX)
        snprintf(what, sizeof what, "an integer from 0 to %u%s", UINT32_MAX,
                 null_ok ? " or null" : "");
    else
        snprintf(what, sizeof what, "a non-negative integer%s", null_ok ? " or null" : "");
    return opt_fail(why, n, who, key, what);
}

/* A number >= 0, or null (NAN). */
static int opt_real(json_t *o, const char *key, double *out, const char *who, char *why,
                    size_t n)
{
    json_t *v = json_object_get(o, key);
    *out = json_is_number(v) ? json_number_value(v) : NAN;
    if (!v || json_is_null(v) || (json_is_number(v) && *out >= 0))
        return 0;
    return opt_fail(why, n, who, key, "a non-negative number or null");
}

/* A string or null (malloc'd, or NULL). */
static int opt_str(json_t *o, const char *key, char **out, const char *who, char *why, size_t n)
{
    json_t *v = json_object_get(o, key);
    *out = json_is_string(v) ? pgcb_xstrdup(json_string_value(v)) : NULL;
    return !v || json_is_null(v) || json_is_string(v)
               ? 0 : opt_fail(why, n, who, key, "a string or null");
}

/* One entry of a group's "background" array into *b (zeroed by the caller). */
static int read_background(json_t *o, struct pgcb_res_background *b, char *why, size_t n)
{
    static const char who[] = "a background load";
    uint64_t conns;
    b->name = pgcb_json_dup_str(o, "name");
    b->driver = pgcb_json_dup_str(o, "driver");
    b->query = pgcb_json_dup_str(o, "query");
    if (!b->name || !b->driver || !b->query) {
        snprintf(why, n, "a background load lacks name, driver or query");
        return -1;
    }
    if (opt_uint(o, "connections", UINT32_MAX, 0, &conns, who, why, n) != 0 ||
        opt_real(o, "target_rate", &b->target_rate, who, why, n) != 0 ||
        opt_real(o, "achieved_rate", &b->achieved_rate, who, why, n) != 0 ||
        opt_uint(o, "executions", UINT64_MAX, 0, &b->executions, who, why, n) != 0 ||
        opt_real(o, "elapsed_s", &b->elapsed_s, who, why, n) != 0 ||
        opt_real(o, "sla", &b->sla, who, why, n) != 0 ||
        opt_bool(o, "sla_met", &b->sla_met, who, why, n) != 0 ||
        opt_str(o, "error", &b->error, who, why, n) != 0 ||
        opt_str(o, "cpus", &b->cpus, who, why, n) != 0)
        return -1;
    b->connections = (uint32_t)conns;
    json_t *lat = json_object_get(o, "latency_ns");
    b->median_ns = b->p99_ns = b->max_ns = NAN;
    if (!lat || json_is_null(lat))
        return 0;
    if (!json_is_object(lat))
        return opt_fail(why, n, who, "latency_ns", "an object or null");
    static const char *const keys[] = {"median", "p99", "max"};
    double *outs[] = {&b->median_ns, &b->p99_ns, &b->max_ns};
    for (size_t k = 0; k < 3; k++)
        if (opt_real(lat, keys[k], outs[k], who, why, n) != 0) {
            snprintf(why, n, "a background load's \"latency_ns\" \"%s\" is not a non-negative "
                     "number or null", keys[k]);
            return -1;
        }
    return 0;
}

#define PGCB_ORDERS_MAX_JSON 40320 /* orders.h's PGCB_ORDERS_MAX: what a run can have */

/* A cell's distribution (issue 13): "percentiles_ns" and "percentile_curve",
 * each absent or null in older files (NAN, no curve). */
static int read_distribution(json_t *o, struct pgcb_res_cell *c, char *why, size_t n)
{
    static const char who[] = "a result";
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        c->pct_ns[k] = NAN;
    json_t *pct = json_object_get(o, "percentiles_ns");
    if (pct && !json_is_null(pct)) {
        if (!json_is_object(pct))
            return opt_fail(why, n, who, "percentiles_ns", "an object or null");
        for (size_t k = 0; k < PGCB_PCT_N; k++)
            if (opt_real(pct, pgcb_pct_key[k], &c->pct_ns[k], who, why, n) != 0) {
                snprintf(why, n, "a result's \"percentiles_ns\" \"%s\" is not a non-negative "
                         "number or null", pgcb_pct_key[k]);
                return -1;
            }
    }
    json_t *curve = json_object_get(o, "percentile_curve");
    if (!curve || json_is_null(curve))
        return 0;
    static const char what[] = "an array of [q, ns] pairs (q ascending from 0 to 1, ns never "
                               "decreasing) or null";
    if (!json_is_array(curve) || json_array_size(curve) > PGCB_PCT_CURVE_MAX)
        return opt_fail(why, n, who, "percentile_curve", what);
    c->ncurve = json_array_size(curve);
    c->curve = c->ncurve ? pgcb_xcalloc(c->ncurve, sizeof *c->curve) : NULL;
    for (size_t k = 0; k < c->ncurve; k++) {
        json_t *pt = json_array_get(curve, k);
        json_t *q = json_array_get(pt, 0), *ns = json_array_get(pt, 1);
        if (json_array_size(pt) != 2 || !json_is_number(q) || !json_is_number(ns))
            return opt_fail(why, n, who, "percentile_curve", what);
        c->curve[k] = (struct pgcb_pct_point){json_number_value(q), json_number_value(ns)};
    }
    return pgcb_pct_curve_valid(c->curve, c->ncurve)
               ? 0 : opt_fail(why, n, who, "percentile_curve", what);
}

/* A group's keys from issue 8 (and orders_run, issue 13; connect, the
 * connection suites: connect, connections): transaction, ops, params,
 * sla_failed, background. ("unit" is derived from connect and not read.) */
static int read_group_extra(json_t *o, struct pgcb_res_group *gr, char *why, size_t n)
{
    static const char who[] = "a group";
    uint64_t nparams, orders_run = 0;
    if (opt_bool(o, "transaction", &gr->transaction, who, why, n) != 0 ||
        opt_bool(o, "connect", &gr->connect, who, why, n) != 0 ||
        opt_uint(o, "connections", UINT32_MAX, 1, &gr->connections, who, why, n) != 0 ||
        opt_uint(o, "ops", UINT64_MAX, 1, &gr->ops, who, why, n) != 0 ||
        opt_uint(o, "params", UINT32_MAX, 0, &nparams, who, why, n) != 0 ||
        opt_bool(o, "sla_failed", &gr->sla_failed, who, why, n) != 0 ||
        opt_uint(o, "orders_run", PGCB_ORDERS_MAX_JSON, 1, &orders_run, who, why, n) != 0)
        return -1;
    gr->nparams = (uint32_t)nparams;
    gr->orders_run = (size_t)orders_run;
    json_t *bulk = json_object_get(o, "bulk");
    if (json_is_object(bulk)) {
        json_t *kind = json_object_get(bulk, "kind");
        gr->bulk_copy = json_is_string(kind) && strcmp(json_string_value(kind), "copy") == 0;
        gr->bulk_rows = get_u64(bulk, "rows");
    }
    json_t *partial = json_object_get(o, "partial");
    if (json_is_object(partial)) {
        gr->partial = 1;
        gr->partial_orders = (size_t)get_u64(partial, "orders");
    }
    json_t *bg = json_object_get(o, "background");
    if (!bg || json_is_null(bg))
        return 0;
    if (!json_is_array(bg))
        return opt_fail(why, n, who, "background", "an array or null");
    gr->nbackgrounds = json_array_size(bg);
    gr->backgrounds = pgcb_xcalloc(gr->nbackgrounds ? gr->nbackgrounds : 1,
                                   sizeof *gr->backgrounds);
    for (size_t b = 0; b < gr->nbackgrounds; b++)
        if (read_background(json_array_get(bg, b), &gr->backgrounds[b], why, n) != 0)
            return -1;
    return 0;
}

/* ---- read tolerantly (absent, null or mistyped: unknown) ---------------- */

/* A cell's "backend" (cell_backend_json); absent, null or without a
 * positive "pids": unknown, every figure NAN. */
static void read_cell_backend(json_t *o, struct pgcb_res_cell *c)
{
    struct pgcb_res_backend *b = &c->backend;
    *b = (struct pgcb_res_backend){.cpu_ns_per_query = NAN, .user_ns_per_query = NAN,
                                   .sys_ns_per_query = NAN,
                                   .voluntary_switches_per_query = NAN,
                                   .involuntary_switches_per_query = NAN};
    b->why = pgcb_json_dup_str(o, "backend_unknown");
    json_t *j = json_object_get(o, "backend");
    json_t *pids = json_object_get(j, "pids");
    if (!json_is_object(j) || !json_is_integer(pids) || json_integer_value(pids) <= 0 ||
        json_integer_value(pids) > UINT32_MAX)
        return;
    b->pids = (uint32_t)json_integer_value(pids);
    b->cpu_ns_per_query = pgcb_json_num(json_object_get(j, "cpu_ns_per_query"));
    b->user_ns_per_query = pgcb_json_num(json_object_get(j, "user_ns_per_query"));
    b->sys_ns_per_query = pgcb_json_num(json_object_get(j, "sys_ns_per_query"));
    b->voluntary_switches_per_query =
        pgcb_json_num(json_object_get(j, "voluntary_switches_per_query"));
    b->involuntary_switches_per_query =
        pgcb_json_num(json_object_get(j, "involuntary_switches_per_query"));
    const char *src = json_string_value(json_object_get(j, "cpu_source"));
    b->cpu_exact = src && strcmp(src, "schedstat") == 0;
}

/* One group of a result (an element of "groups", or a journal line's
 * "data") into *gr, zeroed by the caller; r gives the drivers (their number
 * and labels, the order of "results"). See result.h. */
int pgcb_result_group_read(json_t *o, const struct pgcb_result *r, struct pgcb_res_group *gr,
                           char *why, size_t n)
{
    gr->suite = pgcb_json_dup_str(o, "suite");
    gr->query = pgcb_json_dup_str(o, "query");
    gr->sql = pgcb_json_dup_str(o, "sql");
    gr->depth = (uint32_t)get_u64(o, "depth");
    gr->threads = (uint32_t)get_u64(o, "threads");
    json_t *cpus = json_object_get(o, "thread_cpus");
    if (json_array_size(cpus) == gr->threads && gr->threads) {
        gr->thread_cpus = pgcb_xcalloc(gr->threads, sizeof *gr->thread_cpus);
        for (uint32_t t = 0; t < gr->threads; t++)
            gr->thread_cpus[t] = (int)json_integer_value(json_array_get(cpus, t));
    }
    json_t *rows = json_object_get(o, "rows");
    gr->rows = json_is_integer(rows) ? (int64_t)json_integer_value(rows) : -1;
    gr->transport = pgcb_json_dup_str(o, "transport");
    gr->conninfo = pgcb_json_dup_str(o, "conninfo");
    pgcb_result_types_group_read(o, gr);
    gr->cells = pgcb_xcalloc(r->ndrivers ? r->ndrivers : 1, sizeof *gr->cells);
    json_t *results = json_object_get(o, "results");
    if (!gr->suite || !gr->query || json_array_size(results) != r->ndrivers) {
        snprintf(why, n, "a group lacks suite, query or a result per driver");
        return -1;
    }
    if (read_group_extra(o, gr, why, n) != 0)
        return -1;
    for (size_t d = 0; d < r->ndrivers; d++) {
        json_t *c = json_array_get(results, d);
        struct pgcb_res_cell *cell = &gr->cells[d];
        const char *label = json_string_value(json_object_get(c, "driver"));
        if (!label || strcmp(label, r->drivers[d].label) != 0) {
            snprintf(why, n, "group results are not in driver order");
            return -1;
        }
        cell->status = status_from_str(json_string_value(json_object_get(c, "status")));
        cell->error = pgcb_json_dup_str(c, "error");
        cell->samples = get_u64(c, "samples");
        cell->queries = get_u64(c, "queries");
        cell->mean_ns = get_real(c, "mean_ns");
        cell->sd_ns = get_real(c, "sd_ns");
        cell->rme_pct = get_real(c, "rme_pct");
        cell->median_ns = get_real(c, "median_ns");
        cell->p99_ns = get_real(c, "p99_ns");
        cell->min_ns = get_u64(c, "min_ns");
        cell->max_ns = get_u64(c, "max_ns");
        cell->ops_per_s = get_real(c, "ops_per_s");
        cell->queries_per_s = get_real(c, "queries_per_s");
        cell->rows_per_s = get_real(c, "rows_per_s");
        cell->cpu_ns_per_query = get_real(c, "cpu_ns_per_query");
        cell->server_cpu_ns_per_query = get_real(c, "server_cpu_ns_per_query");
        cell->server_busy = get_real(c, "server_busy");
        read_cell_backend(c, cell);
        pgcb_result_transport_read(c, &cell->transport);
        cell->wall_ns = get_u64(c, "wall_ns");
        json_t *om = json_object_get(c, "order_medians_ns");
        cell->norders = json_array_size(om);
        cell->order_medians_ns = pgcb_xcalloc(cell->norders, sizeof(double));
        for (size_t k = 0; k < cell->norders; k++) {
            json_t *v = json_array_get(om, k);
            cell->order_medians_ns[k] = json_is_number(v) ? json_number_value(v) : NAN;
        }
        const char *sum = json_string_value(json_object_get(c, "checksum"));
        cell->checksum = sum ? strtoull(sum, NULL, 16) : 0;
        cell->rows_per_batch = get_u64(c, "rows_per_batch");
        json_t *mem = json_object_get(c, "memory");
        if (json_is_object(mem)) {
            cell->mem_known = 1;
            cell->mem_peak_kib = get_u64(mem, "peak_kib");
            cell->mem_level_kib = get_u64(mem, "after_warmup_kib");
            cell->mem_growth_kib = get_u64(mem, "growth_kib");
            cell->mem_processes = (int)get_u64(mem, "processes");
        }
        cell->blocks = get_u64(c, "blocks");
        cell->overhead_ns_per_block = get_real(c, "overhead_ns_per_block");
        cell->overhead_cpu_ns_per_block = get_real(c, "overhead_cpu_ns_per_block");
        pgcb_result_cell_noise_read(c, cell);
        if (read_distribution(c, cell, why, n) != 0)
            return -1;
    }
    pgcb_result_conc_group_read(o, gr, r->ndrivers);
    pgcb_result_stream_group_read(o, gr, r->ndrivers);
    pgcb_result_wire_group_read(o, gr, r->ndrivers);
    pgcb_result_profile_group_read(o, gr, r->ndrivers);
    return 0;
}

static int read_fail(char *err, size_t errlen, const char *path, const char *why, json_t *j,
                     struct pgcb_result *r)
{
    snprintf(err, errlen, "%s: %s", path, why);
    json_decref(j);
    pgcb_result_free(r);
    return -1;
}

int pgcb_result_read(const char *path, struct pgcb_result *r, char *err, size_t errlen)
{
    *r = (struct pgcb_result){0};
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        /* jansson quotes the text near the error, newlines included. */
        char text[sizeof je.text];
        pgcb_oneline(text, sizeof text, je.text);
        if (je.line <= 0)
            snprintf(err, errlen, "%s: %s", path, text);
        else
            snprintf(err, errlen, "%s:%d: not valid JSON: %s", path, je.line, text);
        return -1;
    }
    json_t *sv = json_object_get(j, "schema_version");
    if (!json_is_integer(sv))
        return read_fail(err, errlen, path, "no schema_version: not a pgclientbench result", j, r);
    if (json_integer_value(sv) < PGCB_RESULT_SCHEMA_OLDEST ||
        json_integer_value(sv) > PGCB_RESULT_SCHEMA_VERSION) {
        char why[128];
        snprintf(why, sizeof why,
                 "schema_version %lld is not supported (this program reads %d to %d)",
                 (long long)json_integer_value(sv), PGCB_RESULT_SCHEMA_OLDEST,
                 PGCB_RESULT_SCHEMA_VERSION);
        return read_fail(err, errlen, path, why, j, r);
    }
    r->schema_version = (unsigned)json_integer_value(sv);
    json_t *runner = json_object_get(j, "runner");
    json_t *env = json_object_get(j, "environment");
    json_t *server = json_object_get(j, "server");
    json_t *budget = json_object_get(j, "budget");
    json_t *drivers = json_object_get(j, "drivers");
    json_t *orders = json_object_get(j, "orders");
    json_t *groups = json_object_get(j, "groups");
    if (!json_is_object(env) || !json_is_array(drivers) || !json_is_array(groups) ||
        !json_is_array(orders))
        return read_fail(err, errlen, path, "missing environment, drivers, orders or groups", j, r);

    r->runner_version = pgcb_json_dup_str(runner, "version");
    r->started_at = pgcb_json_dup_str(j, "started_at");
    r->finished_at = pgcb_json_dup_str(j, "finished_at");
    r->config_file = pgcb_json_dup_str(j, "config_file");
    r->cpu_model = pgcb_json_dup_str(env, "cpu_model");
    r->cores = (unsigned)get_u64(env, "cores");
    r->ram_bytes = get_u64(env, "ram_bytes");
    r->kernel = pgcb_json_dup_str(env, "kernel");
    r->hostname = pgcb_json_dup_str(env, "hostname");
    r->client_cpus = pgcb_json_dup_str(env, "client_cpus");
    r->server_cpus = pgcb_json_dup_str(env, "server_cpus");
    r->runner_cpus = pgcb_json_dup_str(env, "runner_cpus");
    r->server_cpus_source = pgcb_json_dup_str(env, "server_cpus_source");
    r->cpus_shared = json_is_true(json_object_get(env, "cpus_shared"));
    r->libpq_version = pgcb_json_dup_str(env, "libpq_version");
    pgcb_result_env_noise_read(env, r);
    r->server_version = pgcb_json_dup_str(server, "version");
    r->conninfo = pgcb_json_dup_str(server, "conninfo");
    r->time_ms = get_u64(budget, "time_ms");
    r->min_queries = get_u64(budget, "queries");
    r->warmup_ms = get_u64(budget, "warmup_ms");
    r->orders_mode = pgcb_json_dup_str(budget, "orders");
    const char *wire = json_string_value(json_object_get(budget, "wire"));
    r->wire_off = wire && strcmp(wire, "off") == 0;
    const char *respawn = json_string_value(json_object_get(budget, "respawn"));
    r->respawn_order = respawn && strcmp(respawn, "order") == 0;
    json_t *verdicts = json_object_get(j, "verdicts");
    json_t *alpha = json_object_get(verdicts, "alpha");
    json_t *level = json_object_get(verdicts, "interval_level");
    r->alpha = json_is_number(alpha) ? json_number_value(alpha) : PGCB_DEFAULT_ALPHA;
    r->interval_level = json_is_number(level) ? json_number_value(level)
                                              : PGCB_DEFAULT_INTERVAL_LEVEL;
    r->verdict_defaults = !json_is_number(alpha) || !json_is_number(level);
    r->orders_repeats = (size_t)get_u64(verdicts, "orders_repeats");
    const char *until = json_string_value(json_object_get(verdicts, "until"));
    r->until_decided = until && strcmp(until, "decided") == 0;
    r->until_width = get_real(verdicts, "until_width");
    r->looks = (size_t)get_u64(verdicts, "looks");
    r->checksum_reference = pgcb_json_dup_str(verdicts, "checksum_reference");
    proto_from_json(json_object_get(j, "protocol"), &r->proto, NULL);
    r->complete = json_is_true(json_object_get(j, "complete"));
    pgcb_result_profile_run_read(j, &r->profile);
    r->stop_reason = pgcb_json_dup_str(j, "stop_reason");
    json_t *resumed = json_object_get(j, "resumed"); /* tolerant: absent or mistyped is none */
    r->resumed_from = pgcb_json_dup_str(resumed, "from");
    if (r->resumed_from) {
        r->resumed_groups_kept = (size_t)get_u64(resumed, "groups_kept");
        r->resumed_at = pgcb_json_dup_str(resumed, "at");
    }
    pgcb_result_selection_read(j, &r->selection);

    r->ndrivers = json_array_size(drivers);
    r->drivers = pgcb_xcalloc(r->ndrivers, sizeof *r->drivers);
    for (size_t d = 0; d < r->ndrivers; d++) {
        json_t *o = json_array_get(drivers, d);
        struct pgcb_res_driver *rd = &r->drivers[d];
        rd->label = pgcb_json_dup_str(o, "name");
        rd->name = pgcb_json_dup_str(o, "driver");
        rd->version = pgcb_json_dup_str(o, "version");
        rd->links = pgcb_json_dup_str(o, "links");
        rd->path = pgcb_json_dup_str(o, "path");
        rd->description = pgcb_json_dup_str(o, "description");
        rd->caps = caps_from_json(json_object_get(o, "caps"));
        proto_from_json(json_object_get(o, "protocol"), &rd->proto, &rd->proto_explicit);
        const char *abi = json_string_value(json_object_get(o, "abi"));
        if (abi)
            sscanf(abi, "%u.%u", &rd->abi_major, &rd->abi_minor);
        if (!rd->label)
            return read_fail(err, errlen, path, "a driver has no name", j, r);
    }
    r->norders = json_array_size(orders);
    r->orders = pgcb_xcalloc(r->norders, sizeof *r->orders);
    for (size_t o = 0; o < r->norders; o++) {
        json_t *one = json_array_get(orders, o);
        r->orders[o] = pgcb_xcalloc(r->ndrivers, sizeof **r->orders);
        if (json_array_size(one) != r->ndrivers)
            return read_fail(err, errlen, path, "an execution order does not list every driver",
                             j, r);
        for (size_t k = 0; k < r->ndrivers; k++) {
            const char *label = json_string_value(json_array_get(one, k));
            size_t d = 0;
            while (d < r->ndrivers && !(label && strcmp(r->drivers[d].label, label) == 0))
                d++;
            if (d == r->ndrivers)
                return read_fail(err, errlen, path, "an execution order names an unknown driver",
                                 j, r);
            for (size_t i = 0; i < k; i++)
                if (r->orders[o][i] == d)
                    return read_fail(err, errlen, path, "an execution order names a driver twice",
                                     j, r);
            r->orders[o][k] = d;
        }
    }
    r->ngroups = json_array_size(groups);
    r->groups = pgcb_xcalloc(r->ngroups, sizeof *r->groups);
    for (size_t g = 0; g < r->ngroups; g++) {
        char why[160];
        if (pgcb_result_group_read(json_array_get(groups, g), r, &r->groups[g], why,
                                   sizeof why) != 0)
            return read_fail(err, errlen, path, why, j, r);
    }
    json_decref(j);
    return 0;
}

void pgcb_result_group_free(struct pgcb_res_group *gr, size_t ndrivers)
{
    for (size_t d = 0; gr->cells && d < ndrivers; d++) {
        free(gr->cells[d].error);
        free(gr->cells[d].backend.why);
        pgcb_result_transport_free(&gr->cells[d].transport);
        free(gr->cells[d].order_medians_ns);
        free(gr->cells[d].curve);
        free(gr->cells[d].idiom);
        pgcb_result_profile_cell_free(&gr->cells[d].profile);
    }
    free(gr->cells);
    for (size_t b = 0; gr->backgrounds && b < gr->nbackgrounds; b++) {
        struct pgcb_res_background *bg = &gr->backgrounds[b];
        free(bg->name);
        free(bg->driver);
        free(bg->query);
        free(bg->error);
        free(bg->cpus);
    }
    free(gr->backgrounds);
    free(gr->thread_cpus);
    free(gr->suite);
    free(gr->query);
    free(gr->sql);
    free(gr->transport);
    free(gr->conninfo);
    pgcb_result_types_group_free(gr);
    *gr = (struct pgcb_res_group){0};
}

void pgcb_result_free(struct pgcb_result *r)
{
    if (!r)
        return;
    for (size_t g = 0; g < r->ngroups; g++)
        pgcb_result_group_free(&r->groups[g], r->ndrivers);
    free(r->groups);
    pgcb_result_noise_free(r);
    for (size_t d = 0; d < r->ndrivers; d++) {
        struct pgcb_res_driver *rd = &r->drivers[d];
        free(rd->label);
        free(rd->name);
        free(rd->version);
        free(rd->links);
        free(rd->path);
        free(rd->description);
    }
    free(r->drivers);
    for (size_t o = 0; o < r->norders; o++)
        free(r->orders[o]);
    free(r->orders);
    char **strs[] = {&r->runner_version, &r->started_at, &r->finished_at, &r->config_file,
                     &r->cpu_model, &r->kernel, &r->hostname, &r->client_cpus,
                     &r->server_cpus, &r->runner_cpus, &r->server_cpus_source, &r->libpq_version,
                     &r->server_version, &r->conninfo, &r->orders_mode, &r->stop_reason,
                     &r->resumed_from, &r->resumed_at, &r->checksum_reference};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    pgcb_result_selection_free(&r->selection);
    pgcb_result_profile_run_free(&r->profile);
    *r = (struct pgcb_result){0};
}
