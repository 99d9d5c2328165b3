/* ab.c -- `aggregate --ab BASE:HEAD`: the A/B comparison (common/ab.h) of
 * result files, as text, Markdown (a pull request's comment or job summary)
 * or JSON, and its gate's exit status; see agg.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "agg.h"
#include "export.h"
#include "rank.h"
#include "util.h"

/* "123.4 µs" for a figure in ns. */
static void fmt_us(char *b, size_t n, double ns)
{
    if (!isfinite(ns))
        snprintf(b, n, "—");
    else if (ns >= 1e6)
        snprintf(b, n, "%.2f ms", ns / 1e6);
    else
        snprintf(b, n, "%.1f µs", ns / 1e3);
}

static const char *verdict_cell(const struct pgcb_ab_group *x, int md)
{
    switch (x->kind) {
    case PGCB_AB_SLOWER: return x->over ? (md ? "🔴 **slower**" : "SLOWER (over the gate)")
                                        : (md ? "🟠 slower" : "slower");
    case PGCB_AB_FASTER: return md ? "🟢 faster" : "faster";
    case PGCB_AB_FAILED: return md ? "❌ **failed**" : "FAILED";
    case PGCB_AB_NO_CHANGE: break;
    }
    return "no change detected";
}

/* The per-group table. */
static void print_table(FILE *out, const struct pgcb_ab *ab, enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    char lvl[16];
    snprintf(lvl, sizeof lvl, "%.0f%%", ab->level * 100);
    char hratio[64];
    snprintf(hratio, sizeof hratio, "HEAD / BASE [%s CI]", lvl);
    const char *headers[] = {"group", "BASE", "HEAD", hratio,
                             ab->unpaired ? "P(HEAD lower)"
                             : "orders faster/slower/tied",
                             "p (Holm level)", "verdict", "client CPU HEAD / BASE"};
    struct pgcb_table *t = pgcb_table_new(8, headers);
    pgcb_table_set_style(t, style);
    for (size_t c = 1; c < 8; c += c == 5 ? 2 : 1)
        pgcb_table_set_align(t, c, PGCB_TABLE_RIGHT);
    for (size_t g = 0; g < ab->ngroups; g++) {
        const struct pgcb_ab_group *x = &ab->groups[g];
        char *name = pgcb_agg_step_name(x->group);
        char b[32], h[32], r[96], o[64], p[64], cpu[32] = "—";
        if (isfinite(x->head_cpu) && isfinite(x->base_cpu) && x->base_cpu > 0)
            snprintf(cpu, sizeof cpu, "%.3f", x->head_cpu / x->base_cpu);
        fmt_us(b, sizeof b, x->base_ns);
        fmt_us(h, sizeof h, x->head_ns);
        if (x->kind == PGCB_AB_FAILED) {
            snprintf(r, sizeof r, "—");
            snprintf(o, sizeof o, "—");
            snprintf(p, sizeof p, "%s", x->why ? x->why : "");
        } else {
            if (isfinite(x->lo))
                snprintf(r, sizeof r, "%.4f [%.4f, %.4f]", x->ratio, x->lo, x->hi);
            else
                snprintf(r, sizeof r, "%.4f [too few orders]", x->ratio);
            if (ab->unpaired)
                snprintf(o, sizeof o, "%.2f of %zu x %zu",
                         x->u / ((double)x->base_orders * (double)x->head_orders),
                         x->base_orders, x->head_orders);
            else
                snprintf(o, sizeof o, "%u / %u / %u", x->faster, x->slower, x->ties);
            char pv[32];
            pgcb_rank_fmt_p(pv, sizeof pv, x->p); /* "p = 0.0031", "p < 1e-6" */
            snprintf(p, sizeof p, "%s (%.2g)", pv[2] == '=' ? pv + 4 : pv + 2, x->holm_level);
        }
        const char *row[] = {name, b, h, r, o, p, verdict_cell(x, md), cpu};
        pgcb_table_add_row(t, row);
        free(name);
    }
    pgcb_table_print(t, out);
    pgcb_table_free(t);
}

void pgcb_agg_ab_print(FILE *out, const struct pgcb_ab *ab, enum pgcb_table_style style)
{
    int md = style == PGCB_TABLE_MARKDOWN;
    char alpha[32];
    pgcb_rank_fmt_alpha(alpha, sizeof alpha, ab->alpha);
    if (md)
        fprintf(out, "## pgclientbench A/B: `%s` (HEAD) vs `%s` (BASE)\n\n", ab->head, ab->base);
    else
        fprintf(out, "A/B: %s (HEAD) vs %s (BASE)\n\n", ab->head, ab->base);
    if (ab->fail_above_pct >= 0) {
        char why[160];
        pgcb_ab_gate_why(ab, why, sizeof why);
        fprintf(out, "%sGate: %s%s — %s (`--fail-above %g`)\n\n", md ? "**" : "",
                ab->gate_failed ? "FAILED" : "passed", md ? "**" : "", why, ab->fail_above_pct);
    }
    fprintf(out, "%s: %zu faster, %zu slower, %zu no change detected, %zu failed, of %zu "
            "groups\n\n", md ? "Groups" : "Groups", ab->nfaster, ab->nslower, ab->nno_change,
            ab->nfailed, ab->ngroups);
    fprintf(out, "- HEAD `%s` (%s): %s\n- BASE `%s` (%s): %s\n\n", ab->head,
            ab->head_path ? ab->head_path : "?", ab->head_links ? ab->head_links : "?", ab->base,
            ab->base_path ? ab->base_path : "?", ab->base_links ? ab->base_links : "?");
    print_table(out, ab, style);
    fputc('\n', out);
    if (isfinite(ab->geo)) {
        fprintf(out, "Overall: HEAD / BASE = %.4f", ab->geo);
        if (isfinite(ab->geo_lo))
            fprintf(out, " [%.4f, %.4f]", ab->geo_lo, ab->geo_hi);
        fprintf(out, " (geometric mean over %zu group%s; %.0f%% bootstrap interval over the "
                "orders, stratified by group)\n\n", ab->geo_groups, ab->geo_groups == 1 ? "" : "s",
                ab->level * 100);
    }
    if (ab->overall.tested) {
        char pv[32];
        pgcb_rank_fmt_p(pv, sizeof pv, ab->overall.p);
        const struct pgcb_ab_group ov = {.kind = ab->overall.kind, .over = ab->overall.over};
        fprintf(out, "Overall test (every group at once: order k's value is the mean of the "
                "groups' log ratios in their k-th orders, %zu orders): %s, Holm level %.2g: %s",
                ab->overall.units, pv, ab->overall.holm_level, verdict_cell(&ov, md));
        if (isfinite(ab->overall.lo))
            fprintf(out, "; HEAD / BASE [%.4f, %.4f] (Hodges-Lehmann, %.0f%%)", ab->overall.lo,
                    ab->overall.hi, ab->level * 100);
        fputs("\n\n", out);
    }
    fputs("The last column, the client's CPU time per query (pooled over the orders), has no "
          "test: it says where a change of latency comes from, and is less disturbed by the "
          "machine's load than latency.\n\n", out);
    if (ab->unpaired)
        fprintf(out, "Test: BASE is a stored baseline (%zu run%s), HEAD this run (%zu): the two "
                "did NOT run interleaved, so nothing pairs their orders. Exact two-sided "
                "Mann-Whitney over the per-order medians, Moses interval of the ratio, Holm over "
                "the groups at alpha %s. Whatever differed between the runs (time of day, a "
                "neighbour, the machine itself) is in these figures too: a difference here is "
                "a difference between two runs, not necessarily between the builds.\n",
                ab->nbase_runs, ab->nbase_runs == 1 ? "" : "s", ab->nhead_runs, alpha);
    else
        fprintf(out, "Test: BASE and HEAD ran interleaved over the same execution orders (%zu "
                "per group%s, over %zu run%s). %s Holm over the groups%s at alpha %s; the "
                "interval is %s. \"No change detected\" is not \"no change\": it means the "
                "orders did not show one.\n",
                ab->orders, ab->max_orders ? " (the first ones only: --ab-orders)" : "",
                ab->nhead_runs, ab->nhead_runs == 1 ? "" : "s",
                ab->test == PGCB_AB_TEST_SIGN
                    ? "Per group, the exact two-sided sign test over the orders (HEAD's median "
                      "lower vs higher, ties dropped)."
                : ab->test == PGCB_AB_TEST_SIGNED_RANK
                    ? "Per group, the exact two-sided Wilcoxon signed-rank test over the orders' "
                      "log ratios (HEAD's median over BASE's); overall, the same test over each "
                      "order's mean log ratio across the groups."
                    : "Per group, the exact two-sided sign test over the orders (HEAD's median "
                      "lower vs higher, ties dropped); overall, the exact two-sided Wilcoxon "
                      "signed-rank test over each order's mean log ratio across the groups (a "
                      "change every group shares, seen by all at once).",
                ab->test == PGCB_AB_TEST_SIGN ? "" : " and the overall test", alpha,
                ab->test == PGCB_AB_TEST_SIGNED_RANK
                    ? "the Hodges-Lehmann interval of the orders' log ratios, as a ratio"
                    : "the order-statistics interval of the per-order ratios");
}

/* "BASE:HEAD" into its two labels (pointers into the caller's copy). */
static int split_pair(char *s, char **base, char **head)
{
    char *c = strchr(s, ':');
    if (!c || c == s || !c[1] || strchr(c + 1, ':'))
        return -1;
    *c = '\0';
    *base = s;
    *head = c + 1;
    return 0;
}

static int has_driver(const struct pgcb_result *r, const char *label)
{
    for (size_t d = 0; d < r->ndrivers; d++)
        if (strcmp(r->drivers[d].label, label) == 0)
            return 1;
    return 0;
}

/* Read paths[0..n-1] into a new array; each must have the drivers named
 * (l1, and l2 unless NULL). 0, or -1 with the line printed. */
static int read_runs(char *const *paths, size_t n, const char *l1, const char *l2,
                     struct pgcb_result **out)
{
    *out = pgcb_xcalloc(n ? n : 1, sizeof **out);
    char err[1024];
    for (size_t i = 0; i < n; i++) {
        if (pgcb_result_read(paths[i], &(*out)[i], err, sizeof err) != 0) {
            fprintf(stderr, "aggregate: %s\n", err);
            return -1;
        }
        const char *missing = !has_driver(&(*out)[i], l1)              ? l1
                              : l2 && !has_driver(&(*out)[i], l2) ? l2
                                                                    : NULL;
        if (missing) {
            fprintf(stderr, "aggregate: %s: no driver '%s' (its drivers:", paths[i], missing);
            for (size_t d = 0; d < (*out)[i].ndrivers; d++)
                fprintf(stderr, " %s", (*out)[i].drivers[d].label);
            fputs(")\n", stderr);
            return -1;
        }
    }
    return 0;
}

static void free_runs(struct pgcb_result *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        pgcb_result_free(&r[i]);
    free(r);
}

static int write_file(const char *path, const char *text)
{
    char err[1024];
    if (pgcb_write_text(path, text, err, sizeof err) != 0) {
        fprintf(stderr, "aggregate: %s\n", err);
        return -1;
    }
    return 0;
}

/* The Markdown or the JSON of ab as a new string. */
static char *render(const struct pgcb_ab *ab, int json)
{
    if (json) {
        json_t *j = pgcb_ab_json(ab);
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
        json_decref(j);
        char *t = s ? pgcb_xasprintf("%s\n", s) : NULL;
        free(s);
        return t;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    pgcb_agg_ab_print(f, ab, PGCB_TABLE_MARKDOWN);
    fclose(f);
    return buf;
}

int pgcb_agg_ab_main(const struct pgcb_agg_ab_args *a)
{
    char *pair = pgcb_xstrdup(a->pair), *base, *head;
    if (split_pair(pair, &base, &head) != 0) {
        fprintf(stderr, "aggregate: --ab '%s': expected BASE:HEAD, two driver labels; see "
                "'aggregate -h'\n", a->pair);
        free(pair);
        return 2;
    }
    struct pgcb_result *heads = NULL, *bases = NULL;
    int rc = 1;
    if (read_runs(a->files, a->nfiles, head, a->nbaselines ? NULL : base, &heads) != 0 ||
        (a->nbaselines && read_runs(a->baselines, a->nbaselines, base, NULL, &bases) != 0))
        goto out;
    const struct pgcb_result **hp = pgcb_xcalloc(a->nfiles, sizeof *hp);
    const struct pgcb_result **bp = pgcb_xcalloc(a->nbaselines ? a->nbaselines : 1, sizeof *bp);
    for (size_t i = 0; i < a->nfiles; i++)
        hp[i] = &heads[i];
    for (size_t i = 0; i < a->nbaselines; i++)
        bp[i] = &bases[i];
    struct pgcb_ab ab;
    char err[1024];
    if (pgcb_ab_compute_opts(hp, a->nfiles, a->nbaselines ? bp : NULL, a->nbaselines, base,
                             head, a->fail_above_pct, &a->opts, &ab, err, sizeof err) != 0) {
        fprintf(stderr, "aggregate: --ab: %s\n", err);
    } else {
        rc = 0;
        if (a->format_json) {
            char *s = render(&ab, 1);
            fputs(s ? s : "", stdout);
            free(s);
        } else {
            pgcb_agg_ab_print(stdout, &ab, a->format_markdown ? PGCB_TABLE_MARKDOWN
                                                              : PGCB_TABLE_BOX);
        }
        for (int j = 0; j < 2; j++) {
            const char *path = j ? a->json_path : a->markdown_path;
            if (!path)
                continue;
            char *s = render(&ab, j);
            if (!s || write_file(path, s) != 0)
                rc = 1;
            free(s);
        }
        if (a->export_bencher || a->export_gab) { /* a history's files (export.h) */
            struct pgcb_agg_export x;
            pgcb_agg_export_ab(&x, &ab, hp, a->nfiles);
            if (pgcb_agg_export_write(&x, a->export_bencher, a->export_gab, stderr) != 0)
                rc = 1;
            pgcb_agg_export_free(&x);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "aggregate: cannot write the output: %s\n", strerror(errno));
            rc = 1;
        }
        if (rc == 0 && ab.gate_failed) {
            char why[160];
            pgcb_ab_gate_why(&ab, why, sizeof why);
            fprintf(stderr, "aggregate: gate failed: %s\n", why);
            rc = 3;
        }
    }
    pgcb_ab_free(&ab);
    free(hp);
    free(bp);
out:
    free_runs(heads, a->nfiles);
    free_runs(bases, a->nbaselines);
    free(pair);
    return rc;
}
