/* report_rank.c -- see report.h: the ranking tables (per suite and
 * overall) and their legend. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/driver.h"
#include "proto.h"
#include "rank.h"
#include "report.h"
#include "report_int.h"
#include "stats.h"
#include "table.h"
#include "util.h"

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
        char rel_head[64];
        snprintf(rel_head, sizeof rel_head, "Relative latency [%g%% CI]", 100 * rk->level);
        const char *const head[] = {"", "Driver", rel_head, "Slower than best",
                                    "Fastest median", "Outright wins"};
        struct pgcb_table *t = pgcb_table_new(6, head);
        pgcb_table_set_style(t, style);
        for (size_t c = 2; c < 6; c++)
            pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
        for (size_t k = 0; k < rk->nrows; k++) {
            const struct pgcb_rank_row *row = &rk->rows[k];
            char rel[80], slower[32], fastest[48], wins[48];
            if (isfinite(row->rel_lo))
                snprintf(rel, sizeof rel, "%.3f [%.3f, %.3f]", row->rel, row->rel_lo,
                         row->rel_hi);
            else
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
        char shape[64];
        pgcb_res_group_shape(gr, shape, sizeof shape);
        fprintf(out, "%sLeft out: %s%s / %s, %s%s%s (%s)\n", bullet, run, gr->suite, gr->query,
                shape, gr->transport ? ", " : "", gr->transport ? gr->transport : "", lo->why);
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
                             "median (1.000: always the lowest); its interval: a bootstrap "
                             "over the execution orders of the per-order ratios"},
        {"Slower than best", "relative latency / the lowest relative latency - 1"},
        {"Fastest median", "groups where the driver had the lowest median"},
        {"Outright wins", "groups it won: the lowest median, and more often faster than each "
                          "rival over the execution orders than chance allows (exact "
                          "two-sided sign test, Holm, at the run's alpha)"},
    };
    static const char *const last = "A group is ranked only when every ranked driver is valid "
                                    "in it; reference drivers are never ranked. In a "
                                    "concurrency group the median is the time per query at "
                                    "its throughput (1e9 / queries per second).";
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
