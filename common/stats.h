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

#endif
