/*
 * ab.h -- the A/B comparison of one driver at two versions (issue 29;
 * docs/regressions.md): BASE and HEAD, two driver labels, per group and
 * overall, with a verdict that can gate a pull request. Module prefix pgcb_ab_.
 *
 * Two designs, chosen by the caller:
 *
 *   paired   BASE and HEAD ran in the same run(s), interleaved over the
 *            execution orders. The unit of evidence is one order: HEAD's
 *            median over BASE's in it (its log, the order's log ratio).
 *            Three tests (struct pgcb_ab_opts; issue 43):
 *            sign+overall (the default) -- per group, the exact two-sided
 *              sign test over the orders (HEAD lower vs higher; ties
 *              dropped), robust to the wild orders a shared machine gives;
 *              beside the groups, an overall test: order k's value is the
 *              mean of the groups' log ratios in their k-th orders, and the
 *              exact two-sided Wilcoxon signed-rank test (signed_rank.h)
 *              runs over those -- a change every group shares is seen by
 *              all of them at once, their noise averages down, and the test
 *              uses the sizes of the differences, not only their signs. The
 *              overall test is one more member of Holm's family.
 *            sign (the design before issue 43) -- the sign test per group,
 *              no overall test.
 *            signed-rank -- the signed-rank test per group too.
 *            A group's interval: the order-statistics interval of the
 *            per-order ratios' median (pgcb_stats_median_ci); signed-rank:
 *            the Hodges-Lehmann interval of the log ratios, as a ratio.
 *            The orders alternate BASE first and HEAD first (the runner's
 *            balanced sequence), so whatever running first does falls on
 *            both sides of 0 alike; for identical builds that makes each
 *            test conservative, never liberal (docs/regressions.md).
 *            Several runs (one per machine) pool their orders: each is
 *            still paired within its run. max_orders > 0 uses only each
 *            run's first max_orders orders (what a shorter run would have
 *            had: scripts/gate-power.sh's detection rate against run
 *            length).
 *   unpaired BASE is from other runs (a stored baseline), so nothing pairs
 *            an order of one with an order of the other. The per-order
 *            medians of each side are two independent samples: the exact
 *            two-sided Mann-Whitney test over them, and the Moses interval
 *            (order statistics of all pairwise ratios HEAD_j / BASE_i, the
 *            interval that test inverts). Whatever drifted between the runs
 *            (time of day, a neighbour, a frequency step) is in it too: the
 *            report says so.
 *
 * A group's verdict: FAILED when a side is not valid in it in some run
 * (status not ok -- invalid, failed, not run, skipped --, no median, the
 * driver or the group missing); else the p's of the groups that are not
 * failed go through Holm at alpha, and a rejected one is FASTER or SLOWER by
 * the direction of its test statistic; otherwise NO_CHANGE ("no change
 * detected": not "no change"). The overall figure is the geometric mean of
 * the groups' ratios (failed groups left out) with a bootstrap interval
 * (1000 replicates from a fixed seed, stratified by group: paired, one draw
 * of orders per group; unpaired, one draw per side).
 *
 * The gate (fail_above_pct >= 0): it fails when some group is FAILED, or
 * SLOWER with its ratio above 1 + fail_above_pct / 100, or the overall test
 * shows HEAD slower with the geometric mean of the ratios above that.
 * Without a shown difference it never fails: noise is not a regression.
 *
 * Ownership: a struct pgcb_ab owns its groups' arrays and strings (free it
 * with pgcb_ab_free()); groups point into the results it was computed
 * from, which must outlive it. Nothing here prints.
 */
#ifndef PGCB_AB_H
#define PGCB_AB_H

#include <jansson.h>
#include <stddef.h>

#include "result.h"

/* The paired design's test (see above). */
enum pgcb_ab_test {
    PGCB_AB_TEST_SIGN_OVERALL = 0, /* sign per group; signed-rank over the groups' mean */
    PGCB_AB_TEST_SIGN,             /* sign per group, no overall test (before issue 43) */
    PGCB_AB_TEST_SIGNED_RANK,      /* signed-rank per group and overall */
};

/* "sign+overall", "sign", "signed-rank". */
const char *pgcb_ab_test_str(enum pgcb_ab_test t);
/* The name into *t: 0, or -1 for an unknown name. */
int pgcb_ab_test_parse(const char *s, enum pgcb_ab_test *t);

struct pgcb_ab_opts {
    enum pgcb_ab_test test;
    size_t max_orders; /* > 0: only each run's first max_orders orders; 0: all */
};

enum pgcb_ab_kind {
    PGCB_AB_NO_CHANGE = 0, /* no difference shown at alpha (after Holm) */
    PGCB_AB_FASTER,        /* HEAD shown faster */
    PGCB_AB_SLOWER,        /* HEAD shown slower */
    PGCB_AB_FAILED,        /* a side not valid in the group: no comparison */
};

/* "no change detected", "faster", "slower", "failed". */
const char *pgcb_ab_kind_str(enum pgcb_ab_kind k);

struct pgcb_ab_group {
    const struct pgcb_res_group *group; /* borrowed: from the first HEAD run */
    enum pgcb_ab_kind kind;
    char *why;             /* FAILED: "head invalid in run 1: checksum ..."; else NULL */
    double base_ns, head_ns; /* pooled figure (median latency), geometric mean over runs */
    double base_cpu, head_cpu; /* client CPU per query, geometric mean over runs (NAN: none) */
    double ratio;          /* head_ns / base_ns */
    double lo, hi;         /* its interval at `level`; NAN when too few orders */
    double coverage;       /* the interval's exact coverage (or the most the orders give) */
    size_t base_orders, head_orders; /* per-order medians used (paired: both = the pairs) */
    unsigned faster, slower, ties; /* paired: orders where HEAD was lower / higher / equal */
    size_t units;          /* signed-rank: the orders it ranked (nonzero log ratios) */
    double w_plus;         /* signed-rank: W+, the ranks of the orders where HEAD was higher */
    double u;              /* unpaired: Mann-Whitney U, pairs where HEAD was lower (ties 1/2) */
    double p;              /* the two-sided exact p (1 when nothing to test) */
    double holm_level;     /* the level Holm compared p with */
    int rejected;          /* Holm rejected: a difference is shown */
    int over;              /* SLOWER and above the gate's threshold */
};

struct pgcb_ab {
    char *base, *head;     /* the driver labels */
    char *base_links, *head_links; /* the first run's `links` of each (NULL: none) */
    char *base_path, *head_path;   /* ... and the path it was loaded from */
    int unpaired;          /* 1: BASE from other runs (a baseline) */
    double alpha, level;   /* of the first HEAD run (rank.h's pgcb_rank_alpha / _level) */
    double fail_above_pct; /* the gate's threshold; < 0: no gate */
    size_t nhead_runs, nbase_runs, orders; /* orders: the largest per-group pair/sample count */
    struct pgcb_ab_group *groups;
    size_t ngroups;
    size_t nfaster, nslower, nno_change, nfailed, nover;
    double geo, geo_lo, geo_hi; /* overall; NAN when no group compares */
    size_t geo_groups;     /* groups in it */
    enum pgcb_ab_test test; /* paired: the test used */
    size_t max_orders;     /* > 0: the orders of each run used were cut there */
    /* The overall test (paired, not `sign`, at least 2 groups compared;
     * else tested = 0): over `units` orders (their mean log ratio over the
     * groups), W+ and p, Holm's level and verdict, over = SLOWER and geo
     * above the gate's threshold; lo, hi the Hodges-Lehmann interval of
     * those means as a ratio. */
    struct {
        int tested;
        enum pgcb_ab_kind kind;
        size_t units;
        double w_plus, p, holm_level, lo, hi, coverage;
        int rejected, over;
    } overall;
    int gate_failed;       /* fail_above_pct >= 0 and (nfailed or nover) */
};

/*
 * Compare driver `head` of head_runs[0..nhead-1] with driver `base` of
 * base_runs[0..nbase-1] (unpaired), or of head_runs themselves when
 * base_runs is NULL (paired). Groups: those of head_runs[0], in order (a
 * group listed twice counts once), matched across runs by
 * pgcb_rank_same_group. Always fills *out (free with pgcb_ab_free).
 * Returns 0, or -1 with one line in err when nothing can be compared: a
 * label missing from every run, nhead == 0, no group.
 */
int pgcb_ab_compute(const struct pgcb_result *const *head_runs, size_t nhead,
                    const struct pgcb_result *const *base_runs, size_t nbase, const char *base,
                    const char *head, double fail_above_pct, struct pgcb_ab *out, char *err,
                    size_t errlen);

/* The same with the paired design's options (opts NULL: the defaults,
 * sign+overall over every order, as pgcb_ab_compute). */
int pgcb_ab_compute_opts(const struct pgcb_result *const *head_runs, size_t nhead,
                         const struct pgcb_result *const *base_runs, size_t nbase,
                         const char *base, const char *head, double fail_above_pct,
                         const struct pgcb_ab_opts *opts, struct pgcb_ab *out, char *err,
                         size_t errlen);

void pgcb_ab_free(struct pgcb_ab *ab);

/*
 * The exact two-sided Mann-Whitney test of x[0..m-1] against y[0..n-1]
 * (m, n >= 1, both <= 200): u = #(y_j < x_i) + #(y_j == x_i) / 2 over all
 * pairs; p = min(1, 2 min(P(U <= ceil u), P(U >= floor u))) under the
 * null's exact distribution of U (no ties; ties make it conservative).
 * 1 when m or n is 0. *u_out may be NULL.
 */
double pgcb_ab_mann_whitney(const double *x, size_t m, const double *y, size_t n,
                            double *u_out);

/*
 * The Moses interval for the ratio of HEAD (y) to BASE (x) at `level`: the
 * pairwise ratios y_j / x_i sorted, [d_(k), d_(mn+1-k)] with the largest k
 * whose exact coverage 1 - 2 P(U <= k - 1) >= level. Returns that coverage;
 * NAN bounds (and the most that m, n can give) when even [min, max] covers
 * less. Values must be > 0; m, n <= 200.
 */
double pgcb_ab_moses_ci(const double *x, size_t m, const double *y, size_t n, double level,
                        double *lo, double *hi);

/* The gate's rule for one group (exposed for its tests): 1 when kind is
 * SLOWER and ratio > 1 + pct / 100 (pct >= 0), or kind is FAILED; 0 else. */
int pgcb_ab_fails_gate(enum pgcb_ab_kind kind, double ratio, double pct);

/* Why the gate failed, one line into buf: "2 groups slower by more than 2%,
 * overall slower, 0 failed". */
void pgcb_ab_gate_why(const struct pgcb_ab *ab, char *buf, size_t len);

/* The comparison as JSON (a new reference): {"base", "head", "base_links",
 * "head_links", "base_path", "head_path", "design": "paired"|"unpaired", "test", "alpha",
 * "interval_level", "fail_above_pct" (null: no gate), "runs": {"head",
 * "base"}, "groups": [{"suite", "query", "depth", "threads", "transaction",
 * "verdict", "why", "base_ns", "head_ns", "base_cpu_ns_per_query",
 * "head_cpu_ns_per_query", "ratio", "interval": [lo, hi]|null, "coverage",
 * "orders": {"base", "head"}, "faster", "slower", "ties" (paired), "units",
 * "w_plus" (signed-rank), "u" (unpaired), "p", "holm_level", "shown",
 * "over_threshold"}], "overall": {"geomean_ratio", "interval", "groups",
 * and when tested "test": {"units", "w_plus", "p", "holm_level",
 * "interval", "verdict", "shown", "over_threshold"}}, "paired_test"
 * ("signed-rank"|"sign"; null unpaired), "max_orders" (null: all),
 * "counts": {"faster", "slower", "no_change", "failed"}, "gate": {"failed",
 * "why"}}. */
json_t *pgcb_ab_json(const struct pgcb_ab *ab);

#endif
