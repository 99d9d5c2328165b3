/* text.c -- the aggregate as text (box tables) or Markdown; see agg.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "report.h"
#include "util.h"
#include "versus.h"

/* A section heading: a plain line on a terminal, "### " in Markdown. */
static void heading(FILE *out, enum pgcb_table_style style, const char *text)
{
    if (style == PGCB_TABLE_MARKDOWN)
        fprintf(out, "### %s\n\n", text);
    else
        fprintf(out, "%s\n", text);
}

/* A sentence under a heading (italic in Markdown), then a blank line. */
static void caption(FILE *out, enum pgcb_table_style style, const char *text)
{
    if (style == PGCB_TABLE_MARKDOWN)
        fprintf(out, "_%s_\n\n", text);
    else
        fprintf(out, "%s\n\n", text);
}

static void print_table(FILE *out, struct pgcb_table *t, enum pgcb_table_style style)
{
    pgcb_table_set_style(t, style);
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    fputc('\n', out);
}

static void fmt3(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.3f", v);
    else
        snprintf(buf, n, "-");
}

/* HTML text (a <summary>): &, < and > escaped. */
static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else
            fputc(*s, out);
    }
}

static void print_notes(FILE *out, const struct pgcb_agg *a, enum pgcb_table_style style)
{
    if (a->nnotes == 0)
        return;
    int md = style == PGCB_TABLE_MARKDOWN;
    fprintf(out, md ? "**Notes**\n\n" : "Notes:\n");
    for (size_t i = 0; i < a->nnotes; i++)
        fprintf(out, "%s%s\n", md ? "- " : "  ", a->notes[i]);
    fputc('\n', out);
}

/* Run number, label, groups ranked, each ranked driver's relative latency
 * in that run; last, how many runs each driver ranked first in. */
static void print_runs(FILE *out, const struct pgcb_agg *a, enum pgcb_table_style style)
{
    const struct pgcb_ranking *rk = &a->overall;
    size_t ncols = 3 + rk->nrows;
    const char **head = pgcb_xcalloc(ncols, sizeof *head);
    head[0] = "Run";
    head[1] = "Label";
    head[2] = "Groups";
    for (size_t k = 0; k < rk->nrows; k++)
        head[3 + k] = rk->rows[k].driver;
    struct pgcb_table *t = pgcb_table_new(ncols, head);
    pgcb_table_set_align(t, 0, PGCB_TABLE_RIGHT);
    for (size_t c = 2; c < ncols; c++)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    char **cells = pgcb_xcalloc(ncols, sizeof *cells);
    size_t *first = pgcb_xcalloc(rk->nrows ? rk->nrows : 1, sizeof *first);
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_ranking *rr = &a->runs[i].rank;
        cells[0] = pgcb_xasprintf("%zu", i + 1);
        cells[1] = pgcb_xstrdup(a->runs[i].label);
        cells[2] = pgcb_xasprintf("%zu/%zu", rr->ngroups, rr->ncandidates);
        for (size_t k = 0; k < rk->nrows; k++) {
            int is_first;
            double rel = pgcb_agg_run_rel(a, i, rk->rows[k].driver, &is_first);
            char buf[32];
            fmt3(buf, sizeof buf, rel);
            cells[3 + k] = pgcb_xstrdup(buf);
            first[k] += is_first;
        }
        pgcb_table_add_row(t, (const char *const *)cells);
        for (size_t c = 0; c < ncols; c++)
            free(cells[c]);
    }
    pgcb_table_add_separator(t);
    cells[0] = pgcb_xstrdup("");
    cells[1] = pgcb_xstrdup(style == PGCB_TABLE_MARKDOWN ? "**Ranked first in**"
                                                         : "Ranked first in");
    cells[2] = pgcb_xstrdup("");
    for (size_t k = 0; k < rk->nrows; k++)
        cells[3 + k] = pgcb_xasprintf("%zu/%zu run%s", first[k], a->nruns,
                                      a->nruns == 1 ? "" : "s");
    pgcb_table_add_row(t, (const char *const *)cells);
    for (size_t c = 0; c < ncols; c++)
        free(cells[c]);
    free(cells);
    free(first);
    free(head);
    print_table(out, t, style);
    /* Profiled runs (never beside unprofiled ones: load.c): where each
     * run's flame graphs are. */
    int any = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        char *line = pgcb_agg_profile_line(a, i);
        if (line)
            fprintf(out, "%sRun %zu: %s\n", style == PGCB_TABLE_MARKDOWN ? "- " : "", i + 1,
                    line);
        any |= line != NULL;
        free(line);
    }
    if (any)
        fputc('\n', out);
}

/* A baseline cell as text: "1.10 ▲", "0.93 ▼ *", "1.00", "skipped", "-".
 * The SLA mark is escaped in Markdown (a bare '*' may start emphasis). */
static char *bcell_text(const struct pgcb_agg_baseline *b, const struct pgcb_agg_bcell *c,
                        enum pgcb_table_style style)
{
    if (c->kind == PGCB_AGG_CELL_SKIPPED)
        return pgcb_xstrdup("skipped");
    if (c->kind != PGCB_AGG_CELL_VALUE)
        return pgcb_xstrdup("-");
    const char *mark = pgcb_agg_baseline_mark(b, c->ratio);
    const char *sla = !c->sla_failed ? "" : style == PGCB_TABLE_MARKDOWN ? " \\*" : " *";
    return pgcb_xasprintf("%.2f%s%s%s", c->ratio, *mark ? " " : "", mark, sla);
}

/* One table per ranked driver: rows = steps (shared groups), columns = run
 * labels, then the overall row. */
static void print_baseline(FILE *out, const struct pgcb_agg *a, const struct pgcb_agg_baseline *b,
                           enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    char *text = pgcb_xasprintf(
        "Each driver's queries/s per step (suite / query / depth or rows_per_txn) divided by its "
        "queries/s in the runs labelled \"%s\"; runs with the same label pooled geometrically; "
        "Overall: geometric mean over the steps where every label has a value. ▲ more than %g%% higher, ▼ more than %g%% "
        "lower, - no valid result, skipped: the driver cannot run the step (not counted).",
        b->label, b->threshold_pct, b->threshold_pct);
    heading(out, style, "Relative throughput");
    caption(out, style, text);
    free(text);
    size_t ncols = b->nlabels + 2;
    char **head = pgcb_xcalloc(ncols, sizeof *head);
    head[0] = pgcb_xstrdup("Step");
    head[1] = pgcb_xasprintf("Queries/s (%s)", b->label);
    for (size_t l = 0; l < b->nlabels; l++)
        head[2 + l] = pgcb_xstrdup(b->labels[l]);
    char **cells = pgcb_xcalloc(ncols, sizeof *cells);
    for (size_t d = 0; d < a->overall.nrows; d++) {
        fprintf(out, md ? "**%s** (queries/s relative to \"%s\")\n\n"
                        : "%s (queries/s relative to \"%s\")\n",
                a->overall.rows[d].driver, b->label);
        struct pgcb_table *t = pgcb_table_new(ncols, (const char *const *)head);
        for (size_t c = 1; c < ncols; c++)
            pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
        for (size_t g = 0; g <= b->ngroups; g++) {
            if (g == b->ngroups) {
                pgcb_table_add_separator(t);
                cells[0] = pgcb_xstrdup(md ? "**Overall**" : "Overall");
                cells[1] = pgcb_xstrdup("");
            } else {
                cells[0] = pgcb_agg_step_name(b->groups[g]);
                double q = b->base_qps[d * b->ngroups + g];
                const struct pgcb_agg_bcell *base = NULL;
                for (size_t l = 0; l < b->nlabels && !base; l++)
                    if (strcmp(b->labels[l], b->label) == 0)
                        base = pgcb_agg_baseline_cell(b, d, g, l);
                cells[1] = isfinite(q) ? pgcb_xasprintf("%.0f", q)
                           : base && base->kind == PGCB_AGG_CELL_SKIPPED ? pgcb_xstrdup("skipped")
                                                                         : pgcb_xstrdup("-");
            }
            for (size_t l = 0; l < b->nlabels; l++)
                cells[2 + l] = bcell_text(b, pgcb_agg_baseline_cell(b, d, g, l), style);
            pgcb_table_add_row(t, (const char *const *)cells);
            for (size_t c = 0; c < ncols; c++)
                free(cells[c]);
        }
        print_table(out, t, style);
        if (b->overall_steps[d] < b->ngroups) {
            fprintf(out, "%sOverall over %zu of %zu steps; left out (a label has no value):",
                    md ? "" : "  ", b->overall_steps[d], b->ngroups);
            for (size_t g = 0, k = 0; g < b->ngroups; g++) {
                if (b->in_overall[d * b->ngroups + g])
                    continue;
                char *name = pgcb_agg_step_name(b->groups[g]);
                fprintf(out, "%s %s", k++ ? ";" : "", name);
                free(name);
            }
            fprintf(out, "\n\n");
        }
    }
    if (b->any_sla_failed)
        fprintf(out, "%s%s\n\n", md ? "\\" : "", PGCB_AGG_SLA_LEGEND);
    free(cells);
    for (size_t c = 0; c < ncols; c++)
        free(head[c]);
    free(head);
}

/* --detail in text: per run, per group, the detail table (percentiles). */
static void print_percentiles(FILE *out, const struct pgcb_agg *a, enum pgcb_table_style style)
{
    heading(out, style, "Latency percentiles per run");
    caption(out, style, "Each run's own figures, from its pooled histograms (percentiles of "
                        "different runs cannot be pooled).");
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        fprintf(out, "Run %zu: %s\n\n", i + 1, a->runs[i].label);
        for (size_t g = 0; g < r->ngroups; g++) {
            char *name = pgcb_agg_group_name(&r->groups[g]);
            fprintf(out, "%s\n", name);
            free(name);
            pgcb_report_detail(out, r, g, style);
            fputc('\n', out);
        }
    }
}

/* In text: per run that has [query] versus pairs, its table of what
 * converting costs (report.h). Per run, never combined: a conversion's CPU
 * cost is the machine's. */
static void print_conversion_costs(FILE *out, const struct pgcb_agg *a,
                                   enum pgcb_table_style style)
{
    int any = 0;
    for (size_t i = 0; i < a->nruns; i++) {
        struct pgcb_versus_pair *pairs;
        size_t n = pgcb_versus_pairs(a->res[i], &pairs);
        free(pairs);
        if (n == 0)
            continue;
        if (!any++) {
            heading(out, style, "What converting costs, per run");
            pgcb_report_conversion_cost_caption(out, style);
        }
        fprintf(out, "Run %zu: %s\n\n", i + 1, a->runs[i].label);
        pgcb_report_conversion_cost_tables(out, a->res[i], style);
    }
}

/* One collapsed section per run: what it ran on, its group tables (with
 * their detail tables when flags has PGCB_REPORT_DETAIL), what converting
 * costs (when it has [query] versus pairs), its own ranking (all its
 * drivers and groups). */
static void print_details(FILE *out, const struct pgcb_agg *a, unsigned flags)
{
    for (size_t i = 0; i < a->nruns; i++) {
        const struct pgcb_result *r = a->res[i];
        fprintf(out, "<details><summary>Run %zu: ", i + 1);
        html_text(out, a->runs[i].label);
        fprintf(out, "</summary>\n\n");
        fprintf(out, "- File: `%s`%s\n", a->runs[i].path,
                r->complete ? "" : " (partial: the run was interrupted)");
        fprintf(out, "- Machine: %s, %u CPUs, %.1f GiB RAM, %s\n",
                r->cpu_model ? r->cpu_model : "unknown CPU", r->cores,
                (double)r->ram_bytes / (1024.0 * 1024 * 1024), r->kernel ? r->kernel : "?");
        fprintf(out, "- Server: %s%s; libpq %s; client CPUs %s, server CPUs %s%s\n",
                r->server_version ? "PostgreSQL " : "none",
                r->server_version ? r->server_version : "", r->libpq_version ? r->libpq_version : "?",
                r->client_cpus ? r->client_cpus : "?", r->server_cpus ? r->server_cpus : "unknown",
                r->cpus_shared ? " (shared)" : "");
        fprintf(out, "- Runner %s, %s to %s, %zu execution orders (orders = %s)\n\n",
                r->runner_version ? r->runner_version : "?", r->started_at ? r->started_at : "?",
                r->finished_at ? r->finished_at : "?", r->norders,
                r->orders_mode ? r->orders_mode : "?");
        for (size_t g = 0; g < r->ngroups; g++)
            pgcb_report_group_ex(out, r, g, PGCB_TABLE_MARKDOWN, flags);
        pgcb_report_conversion_cost(out, r, PGCB_TABLE_MARKDOWN);
        pgcb_report_rankings_within(out, &a->res[i], 1, &a->res[i], 1, 0, PGCB_TABLE_MARKDOWN);
        fprintf(out, "</details>\n\n");
    }
}

void pgcb_agg_print(FILE *out, const struct pgcb_agg *a, const struct pgcb_agg_baseline *b,
                    enum pgcb_table_style style, unsigned flags)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    size_t nshared = a->overall.ncandidates / a->nruns; /* every run has each shared group */
    if (md)
        fprintf(out, "## pgclientbench: %zu run%s aggregated\n\n", a->nruns,
                a->nruns == 1 ? "" : "s");
    fprintf(out, "%zu run%s, %zu ranked driver%s, %zu shared group%s per run.\n\n", a->nruns,
            a->nruns == 1 ? "" : "s", a->overall.nrows, a->overall.nrows == 1 ? "" : "s",
            nshared, nshared == 1 ? "" : "s");
    print_notes(out, a, style);

    heading(out, style, "Runs");
    caption(out, style, "Each driver's relative latency in that run, over the groups and "
                        "drivers all runs share. Groups: ranked / shared.");
    print_runs(out, a, style);

    heading(out, style, "Final ranking over all runs");
    caption(out, style, "Every shared group of every run, normalised per group, combined "
                        "geometrically.");
    pgcb_report_rankings_within(out, a->res, a->nruns, a->res, a->nruns, 1, style);

    if (b)
        print_baseline(out, a, b, style);
    if (md) {
        heading(out, style, "Runs in detail");
        print_details(out, a, flags);
    } else {
        print_conversion_costs(out, a, style);
        if (flags & PGCB_REPORT_DETAIL)
            print_percentiles(out, a, style);
    }
}
