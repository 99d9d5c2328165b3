/*
 * rank.h -- who won a group, and how the drivers rank over many groups.
 *
 * Both work on results (struct pgcb_result), so the runner (one run) and the
 * aggregate program (several runs, several machines) decide alike. Only
 * client drivers take part: a driver with PGCB_CAP_REFERENCE (the null
 * driver) is never a winner and never ranked.
 *
 * A driver is *valid* in a group when its cell status is PGCB_CELL_OK and
 * its pooled median is finite and > 0.
 *
 * Verdict of a group (one run). The leader is the valid client driver with
 * the lowest pooled median (a tie for it: no winner). Against each other
 * valid client driver (a rival) the per-order medians are paired by order
 * (cell->order_medians_ns[o], o < r->norders): the orders where the leader
 * was lower are its wins, higher its losses; equal medians, or a median
 * missing on either side, are ties and are dropped. The exact two-sided
 * sign test gives p per rival (pgcb_stats_sign_test: two-sided, because the
 * leader was chosen from these very data, so under "they are alike" either
 * of the two could have been the one tested). The leader is the winner when
 * it won more orders than it lost against every rival and Holm's procedure
 * at r->alpha rejects every rival's null hypothesis: each rival separately
 * carries a chance <= alpha of a false "faster", and all of them together
 * too. Otherwise "no clear winner", naming the lowest median and the
 * lowest mean. A group whose orders cannot reach alpha even with every
 * order won (r->norders < pgcb_stats_sign_min_orders(alpha, rivals)) is
 * PGCB_VERDICT_TOO_FEW: it never has a winner, and the output says why.
 *
 * Ratios with intervals (pgcb_rank_ratio()): a driver's pooled median over
 * the leader's, and a distribution-free interval at r->interval_level from
 * the per-order ratios (pgcb_stats_median_ci: the order-statistics
 * interval of their median; paired by order, so what moved both drivers
 * within an order cancels out).
 *
 * Ranking over groups: for each ranked driver, relative latency = geometric
 * mean over the ranked groups of (its median / the lowest median of that
 * group among the ranked drivers): normalised per group first, so a slow
 * query weighs no more than a fast one, then combined geometrically. "Slower
 * than best" = (rel / lowest rel - 1) x 100 %. Its interval: a bootstrap
 * over orders, stratified by group (each ranked group's orders resampled
 * with replacement, the same draw for every driver: paired), of the
 * geometric mean over groups of the median of the per-order ratios to the
 * group's best; percentile interval at the runs' interval level, 1000
 * replicates from a fixed seed (the same input gives the same interval).
 * Two drivers whose relative latencies differ by less than 1e-9 (relative)
 * share a rank. "Fastest median" counts the
 * ranked groups where its median was the lowest (a tie counts for each tied
 * driver); "outright wins" counts the ranked groups its run's verdict made
 * it the winner of. The lowest median is taken among the ranked drivers,
 * the verdict among all valid client drivers of the run (as its verdict
 * line says): when an aggregate leaves out a driver that is not in every
 * run, a driver can have the fastest median of a group without its win.
 *
 * What is ranked, and what is left out (every exclusion is recorded in the
 * struct pgcb_ranking so that the output can say so):
 *   - scope: the results whose shared drivers and groups count. A driver is
 *     shared when every result in scope has a client driver of that label;
 *     a group when every result in scope has a group of the same suite,
 *     query, depth, threads, transaction, ops, connect and transport
 *     (pgcb_rank_same_group()).
 *     The rest is not ranked (the aggregate names it;
 *     pgcb_rank_driver_shared() and pgcb_rank_group_shared() tell).
 *   - a shared driver that is valid in no shared group of the ranked runs
 *     (any suite) is not ranked: "no valid result", or "skipped every
 *     group" when it was PGCB_CELL_SKIPPED in all of them (unranked[]).
 *   - a group is ranked only if EVERY ranked driver is valid in it: a
 *     relative latency over different sets of groups would compare
 *     different things. The others are left out for all drivers, with the
 *     reason (left_out[]: "rawwire failed, libpq_sync invalid"). So a driver
 *     that fails a group is not punished nor rewarded in the ranking; the
 *     output says which groups it missed. A skipped cell (the driver cannot
 *     run the group, e.g. an ABI 1.0 driver and a query with parameters) is
 *     not valid either, and is named as "skipped", not as a failure: the
 *     group's verdict is among the drivers that ran it, and the ranking
 *     leaves the group out rather than rank the drivers on different groups
 *     (leave the old driver out of the run to rank such groups).
 * A group whose background load missed its target rate (sla_failed) is
 * ranked like any other: every driver ran under the same background.
 * The per-suite rankings and the overall one therefore rank the same
 * drivers on the same groups (a suite's ranking is the overall one
 * restricted to its groups).
 *
 * Ownership: a struct pgcb_ranking owns its arrays and strings;
 * pgcb_rank_free() releases them. Nothing here prints.
 */
#ifndef PGCB_RANK_H
#define PGCB_RANK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define PGCB_RANK_NONE SIZE_MAX /* "no driver" in a driver-index field */

enum pgcb_verdict_kind {
    PGCB_VERDICT_NO_VALID = 0, /* no valid client driver in the group */
    PGCB_VERDICT_ONLY_ONE,     /* exactly one: nothing to compare it with */
    PGCB_VERDICT_WINNER,       /* winner set */
    PGCB_VERDICT_NO_CLEAR,     /* two or more, and the leader did not beat every rival */
    PGCB_VERDICT_TOO_FEW,      /* too few orders to reach alpha against the rivals */
};

/* The leader against one rival. */
struct pgcb_verdict_rival {
    size_t driver;        /* driver index */
    unsigned wins;        /* orders where the leader's median was lower */
    unsigned losses;      /* ... higher */
    unsigned ties;        /* equal, or missing on either side: dropped */
    double p;             /* two-sided exact sign test over wins + losses; may be 0 */
    double log2_p;        /* log2 p: never underflows */
    double level;         /* Holm's level for this rival at alpha */
    int rejected;         /* 1: the leader is faster than this rival, at alpha */
};

struct pgcb_verdict {
    enum pgcb_verdict_kind kind;
    size_t nvalid;        /* valid client drivers */
    size_t winner;        /* driver index, or PGCB_RANK_NONE */
    size_t lowest_median; /* the leader: driver index (the first in driver order on a tie), or NONE */
    size_t lowest_mean;   /* driver index, or NONE (no valid driver has a finite mean) */
    size_t median_ties;   /* other valid client drivers with the same pooled median */
    size_t orders;        /* execution orders compared: r->norders */
    double alpha;         /* r->alpha, or PGCB_DEFAULT_ALPHA when it is not in (0, 0.5] */
    unsigned min_orders;  /* tie-free orders a winner needs against nvalid - 1 rivals */
    struct pgcb_verdict_rival *rivals; /* nvalid - 1 of them, in driver order; malloc'd */
    size_t nrivals;
    double p_max;         /* the largest p among the rivals (NAN when none) */
};

/* The verdict of group g of r (g < r->ngroups). Free it with
 * pgcb_rank_verdict_free(). */
void pgcb_rank_verdict(const struct pgcb_result *r, size_t g, struct pgcb_verdict *v);
void pgcb_rank_verdict_free(struct pgcb_verdict *v);

/* The rival entry of driver d in v, or NULL (d is the leader, or not valid). */
const struct pgcb_verdict_rival *pgcb_rank_verdict_rival(const struct pgcb_verdict *v, size_t d);

/* A ratio of medians with its interval. */
struct pgcb_ratio {
    double ratio;         /* pooled median / the reference's pooled median */
    double lo, hi;        /* the interval at `level` from per-order ratios; NAN when fewer
                             orders than the level needs (n < 6 at 95 %) */
    double level;         /* asked for */
    double coverage;      /* the interval's exact coverage (>= level), or the most that
                             the orders could give when lo, hi are NAN */
    size_t orders;        /* per-order ratios it was computed from */
};

/* Driver d's median over driver ref's in group g (both valid; ref may be d:
 * ratio 1 and the interval [1, 1]), with the interval at r->interval_level
 * (PGCB_DEFAULT_INTERVAL_LEVEL when not in (0, 1)). 0, or -1 when either
 * cell is not valid (out->ratio NAN). */
int pgcb_rank_ratio(const struct pgcb_result *r, size_t g, size_t d, size_t ref,
                    struct pgcb_ratio *out);

/* Orders an interval at `level` needs at least: the smallest n with
 * 1 - 2^(1-n) >= level (6 at 95 %). */
unsigned pgcb_rank_ci_min_orders(double level);

/* r's alpha (divided by r->looks when a group could stop at several looks:
 * Bonferroni over the looks, so that stopping once decided does not raise
 * the chance of a false winner), and its interval level; the defaults when
 * out of range. */
double pgcb_rank_alpha(const struct pgcb_result *r);

/* The execution orders group g ran: its orders_run, or r->norders. */
size_t pgcb_rank_group_orders(const struct pgcb_result *r, size_t g);

/*
 * until = decided (runner/sched/group_order.c): 1 when, over the orders group g ran so far,
 * every pair of its valid client drivers is decided -- the exact two-sided
 * sign test on their per-order medians reaches pgcb_rank_alpha(r) divided
 * by the number of pairs (Bonferroni) -- and every pair's ratio interval
 * (pgcb_stats_median_ci at the run's level) is narrower than `width`
 * relative to its median. 0 otherwise, and when fewer than two clients are
 * valid.
 */
int pgcb_rank_decided(const struct pgcb_result *r, size_t g, double width);
double pgcb_rank_level(const struct pgcb_result *r);

/* "1/64" when 1/alpha is a whole number, else "%g". */
void pgcb_rank_fmt_alpha(char *buf, size_t n, double alpha);

/* "p < 1e-6", "p = 0.00028": p for a verdict line. */
void pgcb_rank_fmt_p(char *buf, size_t n, double p);

/* 1 if group g of r is valid for driver d (status OK, median finite and > 0). */
int pgcb_rank_cell_valid(const struct pgcb_result *r, size_t g, size_t d);

struct pgcb_rank_row {
    char *driver;       /* its label */
    unsigned rank;      /* 1-based; drivers with equal relative latency share one */
    double rel;         /* relative latency, >= 1 (1: lowest median in every ranked group) */
    double rel_lo, rel_hi; /* its bootstrap interval (per-order ratios; see above); NAN when
                              no ranked group has 2 or more orders */
    double slower_pct;  /* (rel / lowest rel - 1) x 100 */
    size_t fastest;     /* ranked groups where its median was the lowest */
    size_t wins;        /* ranked groups it won outright */
};

/* A group the ranking is computed on. */
struct pgcb_rank_group {
    size_t run;         /* index into runs[] */
    size_t group;       /* index into runs[run]->groups */
    double *ratio;      /* per row, in rows[] order: its median / the group's lowest */
};

/* A group left out of a ranking. */
struct pgcb_rank_left_out {
    size_t run;         /* index into runs[] */
    size_t group;       /* index into runs[run]->groups */
    char *why;          /* e.g. "rawwire failed, libpq_sync not run" */
};

/* A shared client driver that is not ranked. */
struct pgcb_rank_unranked {
    char *driver;
    char *why;          /* "no valid result" */
};

struct pgcb_ranking {
    struct pgcb_rank_row *rows;     /* best first: by rel, then wins, fastest, label */
    size_t nrows;
    size_t nranked;                 /* drivers that would be ranked (= nrows when ngroups > 0) */
    size_t ngroups;                 /* groups ranked on: the denominator of fastest/wins */
    double level;                   /* of the rows' intervals: the first run's interval level */
    struct pgcb_rank_group *groups; /* those groups, in run, group order (NULL if nrows == 0) */
    size_t ncandidates;             /* shared groups of the runs (in the suite, if one) */
    struct pgcb_rank_left_out *left_out; /* ncandidates - ngroups of them, in run, group order */
    size_t nleft_out;
    struct pgcb_rank_unranked *unranked;
    size_t nunranked;
};

/*
 * Rank the drivers over the shared groups of runs[0..nruns-1] (nruns >= 1),
 * those of `suite` only when it is not NULL. Scope = the runs themselves.
 * Always fills *out (free it with pgcb_rank_free()); returns 0 if at least
 * one driver was ranked on at least one group, -1 if not (out says why:
 * no shared client driver, every driver unranked, or every group left out).
 * Cost: O(runs x groups x drivers^2) plus the label lookups.
 */
int pgcb_rank_compute(const struct pgcb_result *const *runs, size_t nruns, const char *suite,
                      struct pgcb_ranking *out);

/* The same with the shared drivers and groups taken over scope[0..nscope-1]
 * (which should include the runs): e.g. one run's ranking, restricted to
 * what every run of an aggregate shares, so that the runs compare. */
int pgcb_rank_compute_within(const struct pgcb_result *const *runs, size_t nruns,
                             const struct pgcb_result *const *scope, size_t nscope,
                             const char *suite, struct pgcb_ranking *out);

void pgcb_rank_free(struct pgcb_ranking *rk);

/* Does every result in scope have a client driver named `label`? */
int pgcb_rank_driver_shared(const struct pgcb_result *const *scope, size_t nscope,
                            const char *label);

/* 1 if a and b are the same group of two runs: suite, query, depth,
 * threads, transaction, ops, connect and transport (both without one, or the
 * same) agree. */
int pgcb_rank_same_group(const struct pgcb_res_group *a, const struct pgcb_res_group *b);

/* The same but for the transport: a and b measure the same step, perhaps
 * over different transports (the transport summary, tsummary.h). */
int pgcb_rank_same_step(const struct pgcb_res_group *a, const struct pgcb_res_group *b);

/* Does every result in scope have a group like gr (pgcb_rank_same_group)? */
int pgcb_rank_group_shared(const struct pgcb_result *const *scope, size_t nscope,
                           const struct pgcb_res_group *gr);

/* The suites of scope[0]'s shared groups, in order of first appearance.
 * Returns a malloc'd array of *n names borrowed from scope[0] (free the
 * array only), or NULL when *n == 0. */
const char **pgcb_rank_suites(const struct pgcb_result *const *scope, size_t nscope, size_t *n);

/* "🥇", "🥈", "🥉" for rank 1..3, "" otherwise. */
const char *pgcb_rank_medal(unsigned rank);

/* ---- JSON (jansson; new references, the caller owns them) ------------------- */

/* {"winner": name|null, "lowest_median": name|null, "lowest_mean": name|null,
 *  "valid_clients": n, "orders": K, "alpha": a, "min_orders": n, "decidable": bool,
 *  "test": "...", "p_max": p|null,
 *  "rivals": [{"driver", "wins", "losses", "ties", "p", "log2_p", "holm_level",
 *              "faster"}]} */
json_t *pgcb_rank_verdict_json(const struct pgcb_result *r, const struct pgcb_verdict *v);

/* [{"rank", "driver", "relative_latency", "relative_latency_interval": [lo, hi]|null,
 *   "interval_level", "slower_than_best_pct", "fastest_median", "outright_wins",
 *   "groups"}, ...] best first. */
json_t *pgcb_rank_rows_json(const struct pgcb_ranking *rk);

/*
 * The rankings of runs within scope, as in the result file:
 * {"suites": {NAME: [rows]}, "overall": [rows], "groups_ranked": n,
 *  "groups_total": n, "left_out": [{["run": i (1-based, when with_run),]
 *  "suite", "query", "depth", "why"}], "unranked": [{"driver", "why"}]}.
 */
json_t *pgcb_rank_rankings_json(const struct pgcb_result *const *runs, size_t nruns,
                                const struct pgcb_result *const *scope, size_t nscope,
                                int with_run);

#endif
