/*
 * stats.h -- pure statistics helpers for the report.
 *
 * No state, no allocation, no output. Functions that take a non-const array
 * say so when they reorder it.
 */
#ifndef PGCB_STATS_H
#define PGCB_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Two-sided 95% Student t critical value t_{0.975, df}. df 1..30 from the
 * usual 3-decimal table (12.706, 4.303, ..., 2.042); df > 30 from the
 * Cornish-Fisher expansion in 1/df around z = 1.959963985 (Abramowitz &
 * Stegun 26.7.5, four terms; error < 1e-4 there). NAN for df == 0.
 */
double pgcb_stats_t95(uint64_t df);

/*
 * Relative margin of error of a mean, in percent:
 * t95(n - 1) * sd / sqrt(n) / |mean| * 100. NAN if n < 2 or mean == 0.
 */
double pgcb_stats_rme_pct(double mean, double sd, uint64_t n);

/*
 * Textbook median: the middle value for odd n, the mean of the two middle
 * values for even n; 0 for n == 0. Sorts v in place (qsort, O(n log n)).
 * The _dbl variant sorts NaNs last.
 */
double pgcb_stats_median_u64(uint64_t *v, size_t n);
double pgcb_stats_median_dbl(double *v, size_t n);

/* Geometric mean exp(mean(log v)); NAN if n == 0 or any v <= 0. */
double pgcb_stats_geomean(const double *v, size_t n);

/*
 * One-sided sign-test p bound for a driver that beat a rival in every one of
 * `orders` independent execution orders: 1 / 2^orders (6 orders -> 1/64).
 */
double pgcb_stats_sign_test_p(unsigned orders);

/*
 * Spread of a driver's per-order medians in one group (issue 13): how much
 * the execution orders disagree, which is what the sign test has to see
 * through. NaNs (orders not run) are ignored. robust_cv_pct is the robust
 * coefficient of variation 1.4826 * MAD / median * 100 (MAD: the median of
 * |v - median|; 1.4826 makes it estimate the standard deviation of normal
 * data, so the figure reads like a CV that one wild order cannot inflate);
 * NAN with fewer than 3 values or a median <= 0. min and max are the
 * extreme values, NAN when there is none. `scratch` holds n doubles the
 * function overwrites (v is not touched); no allocation.
 */
struct pgcb_stats_spread {
    size_t n;             /* finite values used */
    double robust_cv_pct;
    double min, max;
};

void pgcb_stats_spread(const double *v, size_t n, double *scratch,
                       struct pgcb_stats_spread *out);

/*
 * The default of [bench] noise_warn_pct: a client driver whose per-order
 * medians spread more than this (robust CV, %) gets a warning under its
 * group's table. Why 10:
 *
 * - What it costs the verdict. If a driver's true lead over a rival is L
 *   and each order median scatters by sigma (about the robust CV),
 *   independently for the two, it is ahead in one order with probability
 *   q = Phi(L / (sigma sqrt 2)). Ahead in all K orders at even odds takes
 *   L >= sqrt(2) z((1/2)^(1/K)) sigma: 1.74 sigma at K = 6, 2.35 sigma at
 *   K = 14; an exact sign test at alpha 1/64, which needs 12 of 14 orders
 *   against the closest rival, takes 1.26 sigma (1.97 sigma for 9 odds in
 *   10). So at a 10% spread a lead under roughly 13-24%, about twice the
 *   spread, is likely to stay unresolved; many gaps this benchmark is
 *   about are that small (in a default run here: libpq_pipeline and
 *   rawwire 4-9% apart in four of six groups, libpq_sync and
 *   libpq_pipeline 1-13% in three, the Node.js clients 2-13% in the
 *   sequential groups), and "no clear winner" then says more about the
 *   machine than about the drivers. At the 1-2.5% of a quiet cell, leads
 *   of 2-6% are resolved.
 * - What this VM shows (conf/bench.ini, 14 orders, 2 vCPUs, runner on CPU
 *   0, server on CPU 1; 6 groups x 7 drivers). The run of the README's
 *   excerpt (10:44Z): C drivers' cells median 5.2% (quartiles 2.0 / 12.0,
 *   quietest 1.3%), bridged Node.js clients 10.8%, the floor 2.9%; above
 *   10%: 5 of 18 C cells, 15 of 36 client cells. A run while other builds
 *   (two make -j2) shared the 2 vCPUs (11:56Z): C cells median 12.5%
 *   (quartiles 8.5 / 17.1, up to 28.9%), bridged clients 15.5% (up to
 *   40%); above 10%: 12 of 18 C cells, 29 of 36 client cells. 10 splits
 *   the two: it fires on most cells of the disturbed run and on a minority
 *   of the other, two thirds of them bridged clients, whose order medians
 *   do scatter more (garbage collection, JIT).
 * - What the estimate itself does. With normal orders of a true 5% spread
 *   the robust CV reads above 10% in 0.8% of groups at K = 6 and 0.1% at
 *   K = 14 (simulated; its relative standard error is about
 *   sqrt(1.36 / K): 48% and 31%), so a moderately noisy but sound cell is
 *   seldom flagged; a lower threshold (5%) would flag half of the quieter
 *   run's C cells, a warning nobody reads twice.
 */
#define PGCB_STATS_NOISE_WARN_PCT 10.0

#endif
