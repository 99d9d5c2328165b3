/* report_detail.c -- a group's detail tables: each driver's latency
 * distribution (pct.h) from its pooled histogram, and the server side per
 * query (its own backends, the whole server); see report.h. */
#include <math.h>
#include <stdio.h>

#include "pct.h"
#include "report.h"

/* Columns: the name, Min, the PGCB_PCT_N percentiles, Max. */
#define NCOLS (3 + PGCB_PCT_N)

static void fmt_ns(char *buf, size_t n, double v, int mark)
{
    if (isfinite(v))
        snprintf(buf, n, "%.0f%s", v, mark ? "*" : "");
    else
        snprintf(buf, n, "-");
}

static void fmt_real(char *buf, size_t n, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "-");
}

/* "Server side, per query": each driver's backends' user and system time
 * and context switches (backend.h), the whole server's CPU time and how
 * busy it was (srvcpu.h). Nothing when none of it is known (a server
 * elsewhere, a file from before). */
static void server_side(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style)
{
    enum { S_NAME, S_USER, S_SYS, S_VOL, S_INV, S_SRV, S_BUSY, S_COUNT };
    const struct pgcb_res_group *gr = &r->groups[g];
    const int md = style == PGCB_TABLE_MARKDOWN;
    int any = 0, ticks = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        any |= pgcb_res_backend_known(&c->backend) || isfinite(c->server_cpu_ns_per_query);
        ticks |= pgcb_res_backend_known(&c->backend);
    }
    if (!any)
        return;
    const char *head[S_COUNT] = {"Task name", "Backend user (ns)", "Backend sys (ns)",
                                 "Voluntary switches", "Involuntary switches",
                                 "Server CPU (ns)", "Server busy"};
    struct pgcb_table *t = pgcb_table_new(S_COUNT, head);
    pgcb_table_set_style(t, style);
    for (size_t k = 1; k < S_COUNT; k++)
        pgcb_table_set_align(t, k, PGCB_TABLE_RIGHT);
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        const struct pgcb_res_backend *b = &c->backend;
        const int known = pgcb_res_backend_known(b);
        char name[160], cells[S_COUNT][32];
        const char *row[S_COUNT];
        snprintf(name, sizeof name, "%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d));
        row[S_NAME] = name;
        fmt_real(cells[S_USER], 32, known ? b->user_ns_per_query : NAN, "%.0f");
        fmt_real(cells[S_SYS], 32, known ? b->sys_ns_per_query : NAN, "%.0f");
        fmt_real(cells[S_VOL], 32, known ? b->voluntary_switches_per_query : NAN, "%.3f");
        fmt_real(cells[S_INV], 32, known ? b->involuntary_switches_per_query : NAN, "%.3f");
        fmt_real(cells[S_SRV], 32, c->server_cpu_ns_per_query, "%.0f");
        fmt_real(cells[S_BUSY], 32, 100.0 * c->server_busy, "%.1f%%");
        for (size_t k = 1; k < S_COUNT; k++)
            row[k] = cells[k];
        pgcb_table_add_row(t, row);
    }
    fprintf(out, md ? "_Server side, per query:_\n\n" : "Server side, per query:\n");
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    if (md)
        fputc('\n', out);
    const char *bullet = md ? "- " : "  ";
    if (ticks)
        fprintf(out, "%sBackend: the driver's own backends (/proc); user and sys are clock "
                     "ticks (10 ms each) summed over the orders; switches are the backends' "
                     "context switches. Server: every server process, busy = its CPU time / "
                     "wall time (100%% = one CPU)\n%s", bullet, md ? "\n" : "");
}

void pgcb_report_detail(FILE *out, const struct pgcb_result *r, size_t g,
                        enum pgcb_table_style style)
{
    const struct pgcb_res_group *gr = &r->groups[g];
    const int md = style == PGCB_TABLE_MARKDOWN;
    const char *head[NCOLS] = {"Task name", "Min"};
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        head[2 + k] = pgcb_pct_name[k];
    head[NCOLS - 1] = "Max";
    struct pgcb_table *t = pgcb_table_new(NCOLS, head);
    pgcb_table_set_style(t, style);
    for (size_t c = 1; c < NCOLS; c++)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    int short_of_samples = 0, missing = 0;
    for (size_t d = 0; d < r->ndrivers; d++) {
        const struct pgcb_res_cell *c = &gr->cells[d];
        char name[160], cells[NCOLS][32];
        const char *row[NCOLS];
        snprintf(name, sizeof name, "%s%s", r->drivers[d].label, pgcb_report_mark(r, g, d));
        row[0] = name;
        fmt_ns(cells[1], sizeof cells[1], c->samples ? (double)c->min_ns : NAN, 0);
        for (size_t k = 0; k < PGCB_PCT_N; k++) {
            /* With fewer samples than 1 / (1 - q), the value at q is the max. */
            int mark = c->samples && c->samples < pgcb_pct_min_samples[k] &&
                       isfinite(c->pct_ns[k]);
            short_of_samples |= mark;
            missing |= c->samples && !isfinite(c->pct_ns[k]);
            fmt_ns(cells[2 + k], sizeof cells[2 + k], c->samples ? c->pct_ns[k] : NAN, mark);
        }
        fmt_ns(cells[NCOLS - 1], sizeof cells[NCOLS - 1], c->samples ? (double)c->max_ns : NAN,
               0);
        for (size_t k = 1; k < NCOLS; k++)
            row[k] = cells[k];
        pgcb_table_add_row(t, row);
    }
    fprintf(out, md ? "_Latency percentiles (ns), from the pooled histogram:_\n\n"
                    : "Latency percentiles (ns), from the pooled histogram:\n");
    pgcb_table_print(t, out);
    pgcb_table_free(t);
    if (md)
        fputc('\n', out);
    const char *bullet = md ? "- " : "  ";
    if (short_of_samples)
        fprintf(out, "%s%s fewer samples than the percentile needs (1 / (1 - q): 1000 for "
                     "p99.9): the value is the max\n", bullet, md ? "\\*" : "*");
    if (missing)
        fprintf(out, "%sno percentiles in this result file (written before they were "
                     "recorded)\n", bullet);
    if (md && (short_of_samples || missing))
        fputc('\n', out);
    server_side(out, r, g, style);
}
