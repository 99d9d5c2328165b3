/* report.c -- see report.h. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "stats.h"
#include "table.h"
#include "util.h"

static void fmt_int(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "-");
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

/* The verdict line: a winner needs the lowest pooled median and a lower
 * median than every rival in every execution order (sign test). */
static void verdict(FILE *out, const struct pgcb_result *r, const struct pgcb_res_group *gr)
{
    size_t best = SIZE_MAX, best_mean = SIZE_MAX, nclients = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (!is_client(r, d) || c->status != PGCB_CELL_OK || !isfinite(c->median_ns))
            continue;
        nclients++;
        if (best == SIZE_MAX || c->median_ns < gr->cells[best].median_ns)
            best = d;
        if (best_mean == SIZE_MAX || c->mean_ns < gr->cells[best_mean].mean_ns)
            best_mean = d;
    }
    if (nclients == 0) {
        fprintf(out, "No valid client driver result in this group.\n");
        return;
    }
    const struct pgcb_res_cell *bc = &gr->cells[best];
    if (nclients == 1) {
        fprintf(out, "Lowest median: %s (%.0f ns; the only valid client driver)\n",
                r->drivers[best].label, bc->median_ns);
        return;
    }
    int all = 1;
    for (size_t d = 0; d < r->ndrivers && all; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (d == best || !is_client(r, d) || c->status != PGCB_CELL_OK)
            continue;
        for (size_t o = 0; o < r->norders; o++)
            if (!(bc->order_medians_ns[o] < c->order_medians_ns[o]))
                all = 0;
    }
    if (all)
        fprintf(out, "Winner: %s (%.0f ns median, faster in all %zu execution orders; "
                     "p <= 1/%.0f per rival)\n",
                r->drivers[best].label, bc->median_ns, r->norders,
                1.0 / pgcb_stats_sign_test_p((unsigned)r->norders));
    else
        fprintf(out, "No clear winner: lowest median %s (%.0f ns), lowest mean %s (%.0f ns); "
                     "no driver was faster in every execution order\n",
                r->drivers[best].label, bc->median_ns, r->drivers[best_mean].label,
                gr->cells[best_mean].mean_ns);
}

void pgcb_report_group(FILE *out, const struct pgcb_result *r, size_t g)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    fprintf(out, "%s / %s  (depth %u, ", gr->suite, gr->query, gr->depth);
    if (gr->rows >= 0)
        fprintf(out, "%lld row%s, ", (long long)gr->rows, gr->rows == 1 ? "" : "s");
    if (gr->threads > 1) {
        fprintf(out, "%u threads on CPUs", gr->threads);
        for (uint32_t t = 0; gr->thread_cpus && t < gr->threads; t++)
            fprintf(out, "%s%d", t ? "," : " ", gr->thread_cpus[t]);
        fprintf(out, ", Queries/s summed over them, ");
    }
    fprintf(out, "pooled over %zu execution order%s)\n", r->norders, r->norders == 1 ? "" : "s");

    static const char *const head[] = {"Task name",   "Latency avg (ns)", "Latency med (ns)",
                                       "Throughput avg (ops/s)", "Queries/s", "Samples",
                                       "Client CPU (ns/query)"};
    struct pgcb_table *t = pgcb_table_new(7, head);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], avg[64], med[32], ops[32], qps[32], n[32], cpu[32];
        const char *mark = "";
        if (c->status == PGCB_CELL_FAILED)
            mark = " (FAILED)";
        else if (c->status == PGCB_CELL_INVALID)
            mark = " (INVALID)";
        else if (c->status == PGCB_CELL_NOT_RUN)
            mark = " (not run)";
        else if (!is_client(r, d))
            mark = " (reference)";
        snprintf(name, sizeof name, "%s%s", r->drivers[d].label, mark);
        if (isfinite(c->mean_ns))
            snprintf(avg, sizeof avg, "%.0f ± %.2f%%", c->mean_ns, c->rme_pct);
        else
            snprintf(avg, sizeof avg, "-");
        fmt_int(med, sizeof med, c->median_ns);
        fmt_int(ops, sizeof ops, c->ops_per_s);
        fmt_int(qps, sizeof qps, c->queries_per_s);
        snprintf(n, sizeof n, "%llu", (unsigned long long)c->samples);
        fmt_int(cpu, sizeof cpu, c->cpu_ns_per_query);
        const char *row[] = {name, avg, med, ops, qps, n, cpu};
        pgcb_table_add_row(t, row);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        if (c->error)
            fprintf(out, "  %s: %s: %s\n", r->drivers[d].label, pgcb_cell_status_str(c->status),
                    c->error);
        if (gr->depth > 1 && !(r->drivers[d].caps & PGCB_CAP_PIPELINE) &&
            !(r->drivers[d].caps & PGCB_CAP_NO_IO))
            fprintf(out, "  %s: no pipelining: runs the %u queries of a batch one after "
                         "another\n", r->drivers[d].label, gr->depth);
    }
    verdict(out, r, gr);
    fputc('\n', out);
}
