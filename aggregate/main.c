/*
 * main.c -- the aggregate program's command line:
 *
 *   aggregate [--format text|markdown|json|csv] [--baseline LABEL] [--threshold PCT]
 *             [--label NAME]... [--detail] [--svg FILE] [--svg-percentiles FILE]
 *             [--html FILE] [--export-bencher FILE] [--export-gab FILE] RESULT.json...
 *   aggregate --ab BASE:HEAD [--ab-baseline FILE]... [--fail-above PCT]
 *             [--markdown FILE] [--json FILE] [--format text|markdown|json]
 *             [--export-bencher FILE] [--export-gab FILE] RESULT.json...
 *
 * Exit status: 0 done (warnings, if any, on stderr); 1 a result file cannot
 * be used, the results share nothing to rank, or a chart cannot be
 * written (or an --export-* file: the rest is still written); 2 bad usage
 * (options, or a --baseline label no run has); 3 (--ab with --fail-above)
 * the gate failed. Errors
 * are one line on stderr, naming the file.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "export.h"
#include "html.h"
#include "report.h"
#include "util.h"

static void usage(FILE *out)
{
    fputs("usage: aggregate [OPTIONS] RESULT.json...\n"
          "Combine the result files of several runs (e.g. one per machine) into one ranking:\n"
          "a table of the runs, then the ranking over every group of every run, normalised\n"
          "per group and combined geometrically, per suite and overall.\n"
          "\n"
          "  -f, --format FORMAT   text (default), markdown (for a CI job summary), json,\n"
          "                        or csv: one row per run, group and driver, every\n"
          "                        figure a column (for spreadsheets and pandas; RFC 4180,\n"
          "                        a header row, empty fields for unknown values)\n"
          "  -l, --label NAME      the i-th --label names the i-th result file (default:\n"
          "                        its CPU model and cores); may be repeated\n"
          "  -b, --baseline LABEL  add relative throughput tables: per driver, one row per\n"
          "                        step (group), one column per run label, each the\n"
          "                        queries/s divided by those of the runs labelled LABEL\n"
          "                        (* marks a step whose background load missed its rate)\n"
          "  -t, --threshold PCT   mark relative throughput beyond +-PCT % (default 5)\n"
          "  -d, --detail          text and markdown: each run's latency percentiles per\n"
          "                        group and driver (min, p50, p90, p99, p99.9, max)\n"
          "  -s, --svg FILE        also write a chart of relative latency per group and driver\n"
          "  -p, --svg-percentiles FILE  also write a chart of latency by percentile: a panel\n"
          "                        per group (and run), a line per driver, log scale of\n"
          "                        1/(1-q) (as HdrHistogram plots)\n"
          "  -A, --ab BASE:HEAD    compare driver HEAD with driver BASE (two builds of one\n"
          "                        driver interleaved in the same run; docs/regressions.md):\n"
          "                        per group HEAD / BASE with its interval, a paired test\n"
          "                        over the orders, Holm over groups, a verdict (faster,\n"
          "                        slower, no change detected, failed), their geometric mean\n"
          "  -B, --ab-baseline FILE  --ab: BASE from this stored run instead (may be\n"
          "                        repeated): two runs, not interleaved, compared unpaired\n"
          "                        (Mann-Whitney over the per-order medians)\n"
          "  -F, --fail-above PCT  --ab: exit 3 when a group (or all of them, the overall\n"
          "                        test) is shown slower by more than PCT %, or failed (no\n"
          "                        shown difference never fails)\n"
          "      --ab-test TEST    --ab, paired: sign+overall (the default: the sign test\n"
          "                        per group, the Wilcoxon signed-rank test over the\n"
          "                        groups' mean per order), sign (per group only: the\n"
          "                        design before), signed-rank (per group and overall)\n"
          "      --ab-orders K     --ab: use only each run's first K orders (what a run of\n"
          "                        K orders would have shown; scripts/gate-power.sh)\n"
          "  -M, --markdown FILE   --ab: also write the comparison as Markdown\n"
          "  -J, --json FILE       --ab: also write the comparison as JSON\n"
          "  -H, --html FILE       also write one self-contained HTML page of the runs:\n"
          "                        per group the medians with their intervals, the verdict,\n"
          "                        CPU per query, per-order medians, percentile curves;\n"
          "                        the rankings; sortable tables (docs/report.md)\n"
          "      --export-bencher FILE  also write the figures as Bencher Metric Format\n"
          "                        JSON (bencher run --adapter json; docs/history.md)\n"
          "      --export-gab FILE  also write them as github-action-benchmark's JSON\n"
          "                        (tool: customSmallerIsBetter; docs/history.md)\n"
          "  -h, --help            this help\n"
          "\n"
          "Exit status: 0 done (warnings on stderr: a partial run, a driver or group not in\n"
          "every run, a run without percentile curves); 1 a result file cannot be used,\n"
          "nothing can be ranked or a chart cannot be written; 2 bad usage; 3 --ab's gate\n"
          "(--fail-above) failed.\n",
          out);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("aggregate: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("; see 'aggregate -h'\n", stderr);
    return 2;
}

/* "5", "2.5" or "5%": 0 <= PCT < 100. */
static int parse_pct(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0)
        return -1;
    if (*end == '%')
        end++;
    if (*end != '\0' || !(v >= 0 && v < 100))
        return -1;
    *out = v;
    return 0;
}

/* The page of every run, with what they make together (the --format json
 * object) for its combined tables. */
static int write_html(const struct pgcb_agg *a, const struct pgcb_agg_baseline *b,
                      const char *path, char *err, size_t errlen)
{
    struct pgcb_html_run *runs = pgcb_xcalloc(a->nruns, sizeof *runs);
    for (size_t i = 0; i < a->nruns; i++)
        runs[i] = (struct pgcb_html_run){&a->runs[i].res, a->runs[i].label, a->runs[i].path};
    json_t *combined = pgcb_agg_json(a, b);
    int rc = pgcb_html_write(path, "aggregate", runs, a->nruns, combined, err, errlen);
    json_decref(combined);
    free(runs);
    return rc;
}

/* Long options without a short one (export.h). */
enum { OPT_EXPORT_BENCHER = 256, OPT_EXPORT_GAB, OPT_AB_TEST, OPT_AB_ORDERS };

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},    {"label", required_argument, NULL, 'l'},
        {"baseline", required_argument, NULL, 'b'},  {"threshold", required_argument, NULL, 't'},
        {"svg", required_argument, NULL, 's'},       {"help", no_argument, NULL, 'h'},
        {"detail", no_argument, NULL, 'd'},
        {"svg-percentiles", required_argument, NULL, 'p'},
        {"ab", required_argument, NULL, 'A'},        {"ab-baseline", required_argument, NULL, 'B'},
        {"fail-above", required_argument, NULL, 'F'}, {"markdown", required_argument, NULL, 'M'},
        {"json", required_argument, NULL, 'J'},
        {"html", required_argument, NULL, 'H'},
        {"export-bencher", required_argument, NULL, OPT_EXPORT_BENCHER},
        {"export-gab", required_argument, NULL, OPT_EXPORT_GAB},
        {"ab-test", required_argument, NULL, OPT_AB_TEST},
        {"ab-orders", required_argument, NULL, OPT_AB_ORDERS},
        {NULL, 0, NULL, 0}};
    enum { TEXT, MARKDOWN, JSON, CSV } format = TEXT;
    const char *baseline = NULL, *svg = NULL, *svg_pct = NULL, *html = NULL;
    const char *export_bencher = NULL, *export_gab = NULL;
    unsigned flags = 0;
    double threshold = 5;
    char **labels = pgcb_xcalloc((size_t)argc, sizeof *labels);
    size_t nlabels = 0;
    char **ab_bases = pgcb_xcalloc((size_t)argc, sizeof *ab_bases);
    struct pgcb_agg_ab_args ab = {.baselines = ab_bases, .fail_above_pct = -1};
    int opt, rc = 0, ab_opts_given = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "f:l:b:t:s:p:H:dhA:B:F:M:J:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            if (strcmp(optarg, "text") == 0)
                format = TEXT;
            else if (strcmp(optarg, "markdown") == 0)
                format = MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                format = JSON;
            else if (strcmp(optarg, "csv") == 0)
                format = CSV;
            else
                rc = bad_usage("--format '%s': expected text, markdown, json or csv", optarg);
            break;
        case 'l': labels[nlabels++] = optarg; break;
        case 'b': baseline = optarg; break;
        case 't':
            if (parse_pct(optarg, &threshold) != 0)
                rc = bad_usage("--threshold '%s': expected a percentage from 0 to below 100",
                               optarg);
            break;
        case 's': svg = optarg; break;
        case 'p': svg_pct = optarg; break;
        case 'H': html = optarg; break;
        case OPT_EXPORT_BENCHER: export_bencher = optarg; break;
        case OPT_EXPORT_GAB: export_gab = optarg; break;
        case OPT_AB_TEST:
            ab_opts_given = 1;
            if (pgcb_ab_test_parse(optarg, &ab.opts.test) != 0)
                rc = bad_usage("--ab-test '%s': expected sign+overall, sign or signed-rank",
                               optarg);
            break;
        case OPT_AB_ORDERS: {
            char *end;
            errno = 0;
            unsigned long long k = strtoull(optarg, &end, 10);
            ab_opts_given = 1;
            if (errno || end == optarg || *end || k < 2 || k > 40320 || optarg[0] == '-')
                rc = bad_usage("--ab-orders '%s': expected a whole number of orders from 2 to "
                               "40320", optarg);
            else
                ab.opts.max_orders = (size_t)k;
            break;
        }
        case 'd': flags |= PGCB_REPORT_DETAIL; break;
        case 'A': ab.pair = optarg; break;
        case 'B': ab_bases[ab.nbaselines++] = optarg; break;
        case 'F':
            if (parse_pct(optarg, &ab.fail_above_pct) != 0)
                rc = bad_usage("--fail-above '%s': expected a percentage from 0 to below 100",
                               optarg);
            break;
        case 'M': ab.markdown_path = optarg; break;
        case 'J': ab.json_path = optarg; break;
        case 'h':
            usage(stdout);
            free(labels);
            free(ab_bases);
            return 0;
        default: /* getopt's own message is off (opterr = 0) */
            rc = bad_usage("unknown option or missing value: '%s'", argv[optind - 1]);
            break;
        }
        if (rc) {
            free(labels);
            free(ab_bases);
            return rc;
        }
    }
    size_t nfiles = (size_t)(argc - optind);
    if (!ab.pair && (ab.nbaselines || ab.fail_above_pct >= 0 || ab.markdown_path || ab.json_path ||
                     ab_opts_given))
        rc = bad_usage("%s", "--ab-baseline, --fail-above, --ab-test, --ab-orders, --markdown "
                             "and --json go with --ab");
    else if (ab.pair && nfiles == 0)
        rc = bad_usage("%s", "no result file given");
    else if (ab.pair && (format == CSV || baseline || svg || svg_pct || nlabels))
        rc = bad_usage("%s", "--ab takes --format text, markdown or json, and none of --baseline, "
                             "--label, --svg, --svg-percentiles");
    if (rc || ab.pair) {
        ab.files = argv + optind;
        ab.nfiles = nfiles;
        ab.format_json = format == JSON;
        ab.format_markdown = format == MARKDOWN;
        ab.export_bencher = export_bencher;
        ab.export_gab = export_gab;
        if (!rc)
            rc = pgcb_agg_ab_main(&ab);
        free(labels);
        free(ab_bases);
        return rc;
    }
    free(ab_bases);
    if (nfiles == 0) {
        free(labels);
        return bad_usage("%s", "no result file given");
    }
    if (nlabels > nfiles) {
        char what[96];
        snprintf(what, sizeof what, "%zu --label for %zu result file%s", nlabels, nfiles,
                 nfiles == 1 ? "" : "s");
        free(labels);
        return bad_usage("%s", what);
    }

    char err[1024];
    struct pgcb_agg a;
    if (pgcb_agg_load(&a, argv + optind, nfiles, labels, nlabels, stderr, err, sizeof err) != 0) {
        fprintf(stderr, "aggregate: %s\n", err);
        free(labels);
        return 1;
    }
    free(labels);
    struct pgcb_agg_baseline b, *bp = NULL;
    if (baseline) {
        if (pgcb_agg_baseline_compute(&a, baseline, threshold, &b, err, sizeof err) != 0) {
            fprintf(stderr, "aggregate: %s\n", err); /* a usage error: the label is wrong */
            pgcb_agg_free(&a);
            return 2;
        }
        bp = &b;
    }
    if ((svg && pgcb_agg_svg_write(&a, svg, err, sizeof err) != 0) ||
        (svg_pct && pgcb_agg_svg_pct_write(&a, svg_pct, stderr, err, sizeof err) != 0) ||
        (html && write_html(&a, bp, html, err, sizeof err) != 0)) {
        fprintf(stderr, "aggregate: %s\n", err);
        rc = 1;
    } else if (format == JSON) {
        json_t *j = pgcb_agg_json(&a, bp);
        if (json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) != 0)
            rc = 1;
        fputc('\n', stdout);
        json_decref(j);
    } else if (format == CSV) {
        pgcb_agg_csv(stdout, &a);
    } else {
        pgcb_agg_print(stdout, &a, bp, format == MARKDOWN ? PGCB_TABLE_MARKDOWN : PGCB_TABLE_BOX,
                       flags);
    }
    if (export_bencher || export_gab) { /* whatever failed above: still written */
        struct pgcb_agg_export x;
        pgcb_agg_export_runs(&x, a.res, a.nruns);
        if (pgcb_agg_export_write(&x, export_bencher, export_gab, stderr) != 0)
            rc = 1;
        pgcb_agg_export_free(&x);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "aggregate: cannot write the output: %s\n", strerror(errno));
        rc = 1;
    }
    if (bp)
        pgcb_agg_baseline_free(bp);
    pgcb_agg_free(&a);
    return rc;
}
