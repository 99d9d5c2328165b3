/* report.c -- see report.h. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "rank.h"
#include "table.h"
#include "util.h"

static void fmt_int(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "-");
}

int pgcb_report_is_floor(const struct pgcb_result *r, size_t d)
{
    unsigned caps = r->drivers[d].caps;
    return (caps & PGCB_CAP_REFERENCE) && !(caps & PGCB_CAP_NO_IO);
}

static int is_client(const struct pgcb_result *r, size_t d)
{
    return !(r->drivers[d].caps & PGCB_CAP_REFERENCE);
}

void pgcb_report_header(FILE *out, const struct pgcb_result *r, const char *where)
{
    fprintf(out, "pgclientbench %s — %s, started %s\n", r->runner_version, r->config_file,
            r->started_at);
    fprintf(out, "Machine  : %s, %u CPUs, %.1f GiB RAM, %s\n", r->cpu_model, r->cores,
            (double)r->ram_bytes / (1024.0 * 1024 * 1024), r->kernel);
    if (r->server_version)
        fprintf(out, "Server   : PostgreSQL %s via %s; libpq %s\n", r->server_version, where,
                r->libpq_version);
    else
        fprintf(out, "Server   : none (every driver does no I/O); libpq %s\n", r->libpq_version);
    fprintf(out, "Pinning  : client CPUs %s; server CPUs %s (%s)\n", r->client_cpus,
            r->server_cpus ? r->server_cpus : "unknown", r->server_cpus_source);
    if (r->cpus_shared)
        fprintf(out, "Note     : client and server share CPU(s): latency includes their "
                     "contention\n");
    fprintf(out, "Budget   : per group and driver >= %llu ms timed (%llu ms in each of %zu "
                 "execution orders) and >= %llu queries per order; warm-up %llu ms\n",
            (unsigned long long)r->time_ms,
            (unsigned long long)(r->norders ? r->time_ms / r->norders : 0), r->norders,
            (unsigned long long)r->min_queries, (unsigned long long)r->warmup_ms);

    static const char *const head[] = {"Driver", "Version", "Links", "Caps", "Path"};
    struct pgcb_table *t = pgcb_table_new(5, head);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_driver *rd = &r->drivers[d];
        char caps[64] = "";
        if (rd->caps & PGCB_CAP_PIPELINE)
            strcat(caps, "pipeline ");
        if (rd->caps & PGCB_CAP_NO_IO)
            strcat(caps, "no-io ");
        if (rd->caps & PGCB_CAP_REFERENCE)
            strcat(caps, "reference ");
        if (rd->caps & PGCB_CAP_SELF_TIMED)
            strcat(caps, "self-timed ");
        size_t n = strlen(caps);
        if (n)
            caps[n - 1] = '\0';
        else
            strcpy(caps, "-");
        char name[160];
        if (strcmp(rd->label, rd->name) == 0)
            snprintf(name, sizeof name, "%s", rd->label);
        else
            snprintf(name, sizeof name, "%s (%s)", rd->label, rd->name);
        const char *row[] = {name, rd->version, rd->links[0] ? rd->links : "-", caps, rd->path};
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    fputc('\n', out);
}

/* The verdict proper (pgcb_report_verdict_line() adds the SLA mark). */
static void verdict_text(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    struct pgcb_verdict v;
    pgcb_rank_verdict(r, g, &v);
    const struct pgcb_res_cell *bc = v.lowest_median != PGCB_RANK_NONE
                                         ? &gr->cells[v.lowest_median] : NULL;
    switch (v.kind) {
    case PGCB_VERDICT_NO_VALID: {
        size_t clients = 0, skipped = 0;
        for (size_t d = 0; d < r->ndrivers; d++) {
            clients += is_client(r, d);
            skipped += is_client(r, d) && gr->cells[d].status == PGCB_CELL_SKIPPED;
        }
        snprintf(buf, n, "No valid client driver result in this group%s.",
                 clients > 0 && skipped == clients ? " (every client driver skipped it)" : "");
        return;
    }
    case PGCB_VERDICT_ONLY_ONE:
        snprintf(buf, n, "Lowest median: %s (%.0f ns; the only valid client driver)",
                 r->drivers[v.lowest_median].label, bc->median_ns);
        return;
    case PGCB_VERDICT_WINNER: {
        char p[64];
        if (v.orders <= 52) /* 2^52: still an exact integer in a double */
            snprintf(p, sizeof p, "1/%.0f", 1.0 / v.p_bound);
        else
            snprintf(p, sizeof p, "1/2^%zu", v.orders);
        snprintf(buf, n, "Winner: %s (%.0f ns median, faster in all %zu execution orders; "
                         "p <= %s per rival)",
                 r->drivers[v.winner].label, bc->median_ns, v.orders, p);
        return;
    }
    case PGCB_VERDICT_NO_CLEAR:
        break;
    }
    char mean[160] = "no driver has a mean";
    if (v.lowest_mean != PGCB_RANK_NONE)
        snprintf(mean, sizeof mean, "lowest mean %s (%.0f ns)", r->drivers[v.lowest_mean].label,
                 gr->cells[v.lowest_mean].mean_ns);
    char why[96];
    if (v.median_ties > 0)
        snprintf(why, sizeof why, "%zu drivers share the lowest median", v.median_ties + 1);
    else
        snprintf(why, sizeof why, "no driver was faster in every execution order");
    snprintf(buf, n, "No clear winner: lowest median %s (%.0f ns), %s; %s",
             r->drivers[v.lowest_median].label, bc->median_ns, mean, why);
}

void pgcb_report_verdict_line(char *buf, size_t n, const struct pgcb_result *r, size_t g)
{
    verdict_text(buf, n, r, g);
    size_t len = strlen(buf);
    if (r->groups[g].sla_failed && len < n)
        snprintf(buf + len, n - len, " — background SLA FAILED");
}

/* A duration in ns with a unit that keeps it short: "850 ns", "412 µs",
 * "1.9 ms", "2.3 s"; "-" if not finite. */
static void fmt_duration(char *buf, size_t n, double ns)
{
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    if (!isfinite(ns) || ns < 0) {
        snprintf(buf, n, "-");
        return;
    }
    size_t u = 0; /* the largest unit the value rounds to at least 1 of */
    while (u < 3 && ns < units[u].scale * 0.9995)
        u++;
    double x = ns / units[u].scale;
    snprintf(buf, n, x < 9.95 && u < 3 ? "%.1f %s" : "%.0f %s", x, units[u].unit);
}

void pgcb_report_background_line(char *buf, size_t n, const struct pgcb_res_background *b)
{
    char target[32], achieved[64], med[32], p99[32], max[32];
    if (!isfinite(b->target_rate))
        snprintf(target, sizeof target, "-");
    else
        snprintf(target, sizeof target, b->target_rate == floor(b->target_rate) ? "%.0f/s"
                                                                                 : "%.1f/s",
                 b->target_rate);
    if (!isfinite(b->achieved_rate))
        snprintf(achieved, sizeof achieved, "-");
    else if (isfinite(b->target_rate) && b->target_rate > 0)
        snprintf(achieved, sizeof achieved, "%.1f/s (%.1f%%)", b->achieved_rate,
                 100 * b->achieved_rate / b->target_rate);
    else
        snprintf(achieved, sizeof achieved, "%.1f/s", b->achieved_rate);
    fmt_duration(med, sizeof med, b->median_ns);
    fmt_duration(p99, sizeof p99, b->p99_ns);
    fmt_duration(max, sizeof max, b->max_ns);
    char sla[48];
    if (isfinite(b->sla))
        snprintf(sla, sizeof sla, b->sla_met ? "SLA met (>= %g%%)" : "SLA FAILED (< %g%%)",
                 b->sla * 100);
    else
        snprintf(sla, sizeof sla, "%s", b->sla_met ? "SLA met" : "SLA FAILED");
    char error[512] = "";
    if (b->error) {
        char one[480];
        pgcb_oneline(one, sizeof one, b->error);
        snprintf(error, sizeof error, "; error: %s", one);
    }
    char elapsed[32];
    if (isfinite(b->elapsed_s))
        snprintf(elapsed, sizeof elapsed, " in %.2f s", b->elapsed_s);
    else
        elapsed[0] = '\0';
    snprintf(buf, n, "Background %s: %s x %u connection%s on query %s, target %s, achieved %s, "
                     "%llu execution%s%s, latency from schedule median %s p99 %s max %s — %s%s",
             b->name ? b->name : "?", b->driver ? b->driver : "?", b->connections,
             b->connections == 1 ? "" : "s", b->query ? b->query : "?",
             target, achieved, (unsigned long long)b->executions,
             b->executions == 1 ? "" : "s", elapsed, med, p99, max, sla, error);
}

/* How many CPUs the server can keep busy for a group: one per connection,
 * at most its CPUs (when known). */
static double server_bound_cpus(const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    double n = gr->threads ? gr->threads : 1;
    int cpus[PGCB_MAX_CPUS];
    char e[160];
    int k = r->server_cpus ? pgcb_parse_cpus(r->server_cpus, cpus, PGCB_MAX_CPUS, e,
                                                    sizeof e) : -1;
    return k > 0 && k < n ? k : n;
}

void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g)
{
    pgcb_report_group_styled(out, r, g, PGCB_TABLE_BOX);
}

void pgcb_report_group_styled(FILE *out, const struct pgcb_result *r, size_t g,
                              enum pgcb_table_style style)
{
    pgcb_report_group_ex(out, r, g, style, 0);
}

const char *pgcb_report_mark(const struct pgcb_result *r, size_t g, size_t d)
{
    switch (r->groups[g].cells[d].status) {
    case PGCB_CELL_FAILED: return " (FAILED)";
    case PGCB_CELL_INVALID: return " (INVALID)";
    case PGCB_CELL_NOT_RUN: return " (not run)";
    case PGCB_CELL_SKIPPED: return " (skipped)";
    case PGCB_CELL_OK: break;
    }
    return is_client(r, d) ? "" : " (reference)";
}

void pgcb_report_group_ex(FILE *out, const struct pgcb_result *r, size_t g,
                          enum pgcb_table_style style, unsigned flags)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    int md = style == PGCB_TABLE_MARKDOWN;
    const char *depth = gr->transaction ? "rows_per_txn" : "depth";
    if (md)
        fprintf(out, "**%s / %s**  (%s %u, ", gr->suite, gr->query, depth, gr->depth);
    else
        fprintf(out, "%s / %s  (%s %u, ", gr->suite, gr->query, depth, gr->depth);
    if (gr->rows >= 0)
        fprintf(out, "%lld row%s, ", (long long)gr->rows, gr->rows == 1 ? "" : "s");
    if (gr->nparams > 0)
        fprintf(out, "%u param%s, ", gr->nparams, gr->nparams == 1 ? "" : "s");
    if (gr->ops > 0)
        fprintf(out, "ops %llu, ", (unsigned long long)gr->ops);
    if (gr->threads > 1) {
        fprintf(out, "%u threads on CPUs", gr->threads);
        for (uint32_t t = 0; gr->thread_cpus && t < gr->threads; t++)
            fprintf(out, "%s%d", t ? "," : " ", gr->thread_cpus[t]);
        fprintf(out, ", Queries/s summed over them, ");
    }
    fprintf(out, "pooled over %zu execution order%s)\n%s", r->norders,
            r->norders == 1 ? "" : "s", md ? "\n" : "");

    /* The wire floor: a reference driver that does I/O (drivers/floor). When
     * it has a median here, every driver's median is also shown as a ratio
     * to it: how much of the latency is the client's. */
    double floor_med = NAN;
    for (size_t d = 0; d < r->ndrivers; d++)
        if (pgcb_report_is_floor(r, d) && gr->cells[d].status == PGCB_CELL_OK &&
            isfinite(gr->cells[d].median_ns) && gr->cells[d].median_ns > 0)
            floor_med = gr->cells[d].median_ns;
    const int with_floor = isfinite(floor_med);
    /* The server's CPU column when the server runs here (srvcpu.h). */
    int with_server = 0;
    for (size_t d = 0; d < r->ndrivers; d++)
        with_server |= isfinite(gr->cells[d].server_cpu_ns_per_query);
    /* Columns: the optional ones are dropped by their flags. */
    enum { C_NAME, C_AVG, C_MED, C_FLOOR, C_OPS, C_QPS, C_N, C_CPU, C_SRV, C_COUNT };
    static const char *const head_all[C_COUNT] = {
        "Task name", "Latency avg (ns)", "Latency med (ns)", "x floor", "Throughput avg (ops/s)",
        "Queries/s", "Samples",          "Client CPU (ns/query)",      "Server CPU (ns/query)"};
    const int keep[C_COUNT] = {1, 1, 1, with_floor, 1, 1, 1, 1, with_server};
    const char *head[C_COUNT];
    size_t ncols = 0;
    for (int k = 0; k < C_COUNT; k++)
        if (keep[k])
            head[ncols++] = head_all[k];
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    pgcb_table_set_style(t, style);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], avg[64], med[32], ops[32], qps[32], n[32], cpu[32], srv[32];
        snprintf(name, sizeof name, "%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d));
        if (isfinite(c->mean_ns) && isfinite(c->rme_pct))
            snprintf(avg, sizeof avg, "%.0f ± %.2f%%", c->mean_ns, c->rme_pct);
        else if (isfinite(c->mean_ns))
            snprintf(avg, sizeof avg, "%.0f ± n/a", c->mean_ns);
        else
            snprintf(avg, sizeof avg, "-");
        fmt_int(med, sizeof med, c->median_ns);
        fmt_int(ops, sizeof ops, c->ops_per_s);
        fmt_int(qps, sizeof qps, c->queries_per_s);
        snprintf(n, sizeof n, "%llu", (unsigned long long)c->samples);
        fmt_int(cpu, sizeof cpu, c->cpu_ns_per_query);
        fmt_int(srv, sizeof srv, c->server_cpu_ns_per_query);
        char xf[32] = "-";
        if (with_floor && isfinite(c->median_ns))
            snprintf(xf, sizeof xf, "%.2f", c->median_ns / floor_med);
        const char *all[C_COUNT] = {name, avg, med, xf, ops, qps, n, cpu, srv};
        const char *row[C_COUNT];
        size_t k = 0;
        for (int i = 0; i < C_COUNT; i++)
            if (keep[i])
                row[k++] = all[i];
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    if (md)
        fputc('\n', out); /* a Markdown table runs on to the next blank line */
    if (flags & PGCB_REPORT_DETAIL)
        pgcb_report_detail(out, r, g, style);
    const char *bullet = md ? "- " : "  ";
    int notes = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (c->error) {
            char one[1024];
            pgcb_oneline(one, sizeof one, c->error);
            /* a skip note says "skipped: why" itself */
            const char *status = pgcb_cell_status_str(c->status);
            size_t sl = strlen(status);
            int said = strncmp(one, status, sl) == 0 && one[sl] == ':';
            fprintf(out, "%s%s: %s%s%s\n", bullet, r->drivers[d].label, said ? "" : status,
                    said ? "" : ": ", one);
            notes++;
        }
        if (c->status != PGCB_CELL_SKIPPED && gr->depth > 1 &&
            !(r->drivers[d].caps & PGCB_CAP_PIPELINE) &&
            !(r->drivers[d].caps & PGCB_CAP_NO_IO)) {
            fprintf(out, "%s%s: no pipelining: runs the %u queries of a batch one after "
                         "another\n", bullet, r->drivers[d].label, gr->depth);
            notes++;
        }
        if (c->blocks > 0 && isfinite(c->overhead_ns_per_block)) {
            char per[32], over[32], cpu[32], pin[64] = "";
            double block = (double)c->wall_ns / (double)c->blocks;
            fmt_duration(per, sizeof per, block);
            fmt_duration(over, sizeof over, c->overhead_ns_per_block);
            fmt_duration(cpu, sizeof cpu, c->overhead_cpu_ns_per_block);
            for (uint32_t k = 0; gr->thread_cpus && k < gr->threads && k < 8; k++)
                snprintf(pin + strlen(pin), sizeof pin - strlen(pin), "%s%d", k ? "," : " CPU ",
                         gr->thread_cpus[k]);
            fprintf(out, "%s%s: self-timed in %llu blocks of %s of samples; beyond them the "
                         "bridge took %s per block (%.1f%%) and %s of CPU outside the timed "
                         "batches; Client CPU is the adapter process's, all its threads, pinned "
                         "with %s%s\n",
                    bullet, r->drivers[d].label, (unsigned long long)c->blocks, per, over,
                    100.0 * c->overhead_ns_per_block / (c->overhead_ns_per_block + block), cpu,
                    gr->threads > 1 ? "their measuring threads to" : "its measuring thread to",
                    pin[0] ? pin : " its CPU");
            notes++;
        }
        double bound = server_bound_cpus(r, gr);
        if (isfinite(c->server_busy) && c->server_busy >= 0.9 * bound) {
            fprintf(out, "%s%s: the server was busy %.0f%% of %s while it ran: the server, "
                         "not the client, bounds this figure\n", bullet, r->drivers[d].label,
                    100.0 * c->server_busy / bound, bound == 1 ? "one CPU" : "its CPUs");
            notes++;
        }
    }
    char line[1024];
    for (size_t b = 0; b < gr->nbackgrounds; b++, notes++) {
        pgcb_report_background_line(line, sizeof line, &gr->backgrounds[b]);
        fprintf(out, "%s%s\n", md ? "- " : "", line);
    }
    if (md && notes)
        fputc('\n', out);
    pgcb_report_verdict_line(line, sizeof line, r, g);
    fprintf(out, "%s\n\n", line);
}

/* ---- rankings -------------------------------------------------------------- */

/* At most this many left-out groups are named under a ranking table. */
#define LEFT_OUT_SHOWN 8

void pgcb_report_ranking(FILE *out, const char *title, const struct pgcb_ranking *rk,
                         const struct pgcb_result *const *runs, int with_run,
                         enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    const char *b0 = md ? "**" : "", *b1 = md ? "**" : "";
    if (rk->nrows == 0) {
        const char *why = rk->nranked == 0 && rk->nunranked > 0 ? "no client driver has a valid result"
                          : rk->nranked == 0                    ? "no client driver to rank"
                          : rk->ncandidates == 0                ? "no group"
                                                                : "every group is left out";
        fprintf(out, "%s%s%s: nothing to rank (%s)\n", b0, title, b1, why);
    } else if (rk->ngroups == rk->ncandidates) {
        fprintf(out, "%s%s%s  (%zu group%s)\n", b0, title, b1, rk->ngroups,
                rk->ngroups == 1 ? "" : "s");
    } else {
        fprintf(out, "%s%s%s  (%zu of %zu groups; %zu left out, where a ranked driver is not "
                     "valid)\n", b0, title, b1, rk->ngroups, rk->ncandidates, rk->nleft_out);
    }
    if (rk->nrows > 0) {
        static const char *const head[] = {"", "Driver", "Relative latency", "Slower than best",
                                           "Fastest median", "Outright wins"};
        struct pgcb_table *t = pgcb_table_new(6, head);
        pgcb_table_set_style(t, style);
        for (size_t c = 2; c < 6; c++)
            pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
        for (size_t k = 0; k < rk->nrows; k++) {
            const struct pgcb_rank_row *row = &rk->rows[k];
            char rel[32], slower[32], fastest[48], wins[48];
            snprintf(rel, sizeof rel, "%.3f", row->rel);
            snprintf(slower, sizeof slower, "+%.1f%%", row->slower_pct);
            snprintf(fastest, sizeof fastest, "%zu/%zu", row->fastest, rk->ngroups);
            snprintf(wins, sizeof wins, "%zu/%zu", row->wins, rk->ngroups);
            const char *cells[] = {pgcb_rank_medal(row->rank), row->driver, rel, slower,
                                   fastest, wins};
            pgcb_table_add_row(t, cells);
        }
        if (md)
            fputc('\n', out);
        pgcb_table_print(t, out);
        pgcb_table_free(t);
        if (md)
            fputc('\n', out);
    }
    const char *bullet = md ? "- " : "  ";
    int notes = 0;
    for (size_t i = 0; i < rk->nleft_out; i++, notes++) {
        if (i == LEFT_OUT_SHOWN) {
            fprintf(out, "%s... and %zu more groups left out\n", bullet,
                    rk->nleft_out - LEFT_OUT_SHOWN);
            notes++;
            break;
        }
        const struct pgcb_rank_left_out *lo = &rk->left_out[i];
        const struct pgcb_res_group *gr = &runs[lo->run]->groups[lo->group];
        char run[32] = "";
        if (with_run)
            snprintf(run, sizeof run, "run %zu: ", lo->run + 1);
        fprintf(out, "%sLeft out: %s%s / %s, %s %u (%s)\n", bullet, run, gr->suite,
                gr->query, gr->transaction ? "rows_per_txn" : "depth", gr->depth, lo->why);
    }
    for (size_t i = 0; i < rk->nunranked; i++, notes++)
        fprintf(out, "%sNot ranked: %s (%s)\n", bullet, rk->unranked[i].driver,
                rk->unranked[i].why);
    /* One blank line after the block (Markdown: the table already ends with one). */
    if (!md || notes || rk->nrows == 0)
        fputc('\n', out);
}

void pgcb_report_ranking_legend(FILE *out, enum pgcb_table_style style)
{
    static const char *const terms[][2] = {
        {"Relative latency", "geometric mean over the groups of median / the group's lowest "
                             "median (1.000: always the lowest)"},
        {"Slower than best", "relative latency / the lowest relative latency - 1"},
        {"Fastest median", "groups where the driver had the lowest median"},
        {"Outright wins", "groups it won: a lower median than every rival in every execution "
                          "order (sign test)"},
    };
    static const char *const last = "A group is ranked only when every ranked driver is valid "
                                    "in it; reference drivers are never ranked.";
    if (style == PGCB_TABLE_MARKDOWN) {
        fprintf(out, "Legend:\n\n");
        for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
            fprintf(out, "- **%s**: %s\n", terms[i][0], terms[i][1]);
        fprintf(out, "- %s\n\n", last);
        return;
    }
    fprintf(out, "Legend:\n");
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
        fprintf(out, "  %-17s %s\n", terms[i][0], terms[i][1]);
    fprintf(out, "  %s\n\n", last);
}

void pgcb_report_rankings_within(FILE *out, const struct pgcb_result *const *runs, size_t nruns,
                                 const struct pgcb_result *const *scope, size_t nscope,
                                 int with_run, enum pgcb_table_style style)
{
    size_t nsuites;
    const char **suites = pgcb_rank_suites(scope, nscope, &nsuites);
    struct pgcb_ranking rk;
    char title[256];
    for (size_t s = 0; s < nsuites && nsuites > 1; s++) {
        pgcb_rank_compute_within(runs, nruns, scope, nscope, suites[s], &rk);
        snprintf(title, sizeof title, "Ranking: suite %s", suites[s]);
        pgcb_report_ranking(out, title, &rk, runs, with_run, style);
        pgcb_rank_free(&rk);
    }
    pgcb_rank_compute_within(runs, nruns, scope, nscope, NULL, &rk);
    if (nsuites == 1)
        snprintf(title, sizeof title, "Ranking: overall = suite %s", suites[0]);
    else
        snprintf(title, sizeof title, "Ranking: overall, %zu suites", nsuites);
    pgcb_report_ranking(out, title, &rk, runs, with_run, style);
    pgcb_rank_free(&rk);
    free(suites);
    pgcb_report_ranking_legend(out, style);
}

void pgcb_report_rankings(FILE *out, const struct pgcb_result *r)
{
    pgcb_report_rankings_within(out, &r, 1, &r, 1, 0, PGCB_TABLE_BOX);
}
