/*
 * report_stream.c -- the console's streaming summary (report.h, issue 42):
 * after the group tables, one table of every streaming group's cells -- the
 * total time and time to first row of the median read, rows per second, the
 * client's peak memory and its growth, and the memory verdict of the
 * suite's largest result -- with each client's idiom.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "table.h"
#include "util.h"

static void ms(char *buf, size_t n, double ns)
{
    if (isfinite(ns))
        snprintf(buf, n, "%.2f", ns / 1e6);
    else
        snprintf(buf, n, "-");
}

static void memory(char *buf, size_t n, const struct pgcb_res_cell *c)
{
    if (!c->mem_verdict)
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "%s (%+.0f B/row)", pgcb_mem_verdict_name(c->mem_verdict),
                 c->mem_bytes_per_row);
}

int pgcb_report_stream_summary(FILE *out, const struct pgcb_result *r,
                               enum pgcb_table_style style)
{
    static const char *const head[] = {"Suite", "Rows", "Client", "Total (ms)", "First row (ms)",
                                       "Rows/s", "Peak RSS (MiB)", "Growth (MiB)", "Memory",
                                       "Idiom"};
    enum { NCOLS = sizeof head / sizeof head[0] };
    int any = 0;
    for (size_t g = 0; g < r->ngroups; g++)
        any |= r->groups[g].result_mode != 0;
    if (!any)
        return 0;
    struct pgcb_table *t = pgcb_table_new(NCOLS, head);
    if (!t)
        return -1;
    pgcb_table_set_style(t, style);
    for (size_t k = 1; k < NCOLS - 1; k++)
        if (k != 2 && k != 8)
            pgcb_table_set_align(t, k, PGCB_TABLE_RIGHT);
    int rows = 0;
    for (size_t g = 0; g < r->ngroups; g++) {
        const struct pgcb_res_group *gr = &r->groups[g];
        if (!gr->result_mode)
            continue;
        if (rows)
            pgcb_table_add_separator(t);
        for (size_t d = 0; d < r->ndrivers; d++) {
            const struct pgcb_res_cell *c = &gr->cells[d];
            char suite[160], nrows[32], total[32], first[32], rps[32], peak[32], growth[32];
            char mem[64], raw[PGCB_ERRLEN + 64], idiom[PGCB_ERRLEN + 64];
            snprintf(suite, sizeof suite, "%s (%s)", gr->suite,
                     pgcb_result_mode_name(gr->result_mode));
            snprintf(nrows, sizeof nrows, "%llu", (unsigned long long)(c->stream_rows
                                                      ? c->stream_rows
                                                      : gr->rows > 0 ? (uint64_t)gr->rows : 0));
            ms(total, sizeof total, c->status == PGCB_CELL_OK ? c->median_ns : NAN);
            ms(first, sizeof first, c->status == PGCB_CELL_OK ? c->first_row_ns : NAN);
            snprintf(rps, sizeof rps, isfinite(c->rows_per_s) && c->status == PGCB_CELL_OK
                                          ? "%.0f" : "-", c->rows_per_s);
            snprintf(peak, sizeof peak, c->mem_known ? "%.1f" : "-", c->mem_peak_kib / 1024.0);
            snprintf(growth, sizeof growth, c->mem_known ? "%+.1f" : "-",
                     c->mem_growth_kib / 1024.0);
            memory(mem, sizeof mem, c);
            if (c->status == PGCB_CELL_OK)
                snprintf(raw, sizeof raw, "%s", c->idiom ? c->idiom : "");
            else if (c->error && strncmp(c->error, pgcb_cell_status_str(c->status),
                                         strlen(pgcb_cell_status_str(c->status))) == 0)
                snprintf(raw, sizeof raw, "%.*s", PGCB_ERRLEN, c->error); /* "skipped: ..." */
            else
                snprintf(raw, sizeof raw, "%s: %.*s", pgcb_cell_status_str(c->status),
                         PGCB_ERRLEN, c->error ? c->error : "");
            pgcb_oneline(idiom, sizeof idiom, raw);
            const char *cells[NCOLS] = {suite, nrows, r->drivers[d].label, total, first, rps,
                                        peak, growth, mem, idiom};
            pgcb_table_add_row(t, cells);
            rows++;
        }
    }
    fprintf(out, "\nStreaming: each read one whole result (its median read); peak RSS of the "
                 "client's processes over the group; memory: the suite's largest result against "
                 "its smallest, %.0f bytes per extra row or more = grows\n",
            PGCB_MEM_GROWS_BYTES_PER_ROW);
    int rc = pgcb_table_print(t, out);
    pgcb_table_free(t);
    return rc;
}
