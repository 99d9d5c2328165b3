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

/* Geometric mean exp(mean(log v)); NAN if n == 0 or any v <= 0. The logs
 * are summed in ascending order of v, so that the same values in another
 * order give the same bits (rankings compare these). */
double pgcb_stats_geomean(const double *v, size_t n);

/*
 * log2 P(X >= k) for X ~ Binomial(n, 1/2): 0 for k == 0, -INFINITY for
 * k > n. Exact sums of binomial coefficients for n <= 62 (integers), a
 * log-sum-exp of lgamma terms beyond (relative error ~1e-12); never
 * underflows, whatever n.
 */
double pgcb_stats_binom_half_tail_log2(unsigned n, unsigned k);

/*
 * The exact two-sided sign test of a paired comparison: in `wins` pairs one
 * side was lower, in `losses` the other, ties already dropped. Under the
 * null hypothesis (neither side tends to be lower) each pair is a fair coin,
 * so p = min(1, 2 P(X >= max(wins, losses))), X ~ Binomial(wins + losses,
 * 1/2); p = 1 when wins + losses == 0. Two-sided because the side that is
 * tested is chosen from the same data (the lower pooled median): either
 * side could have been the one chosen. *log2_p gets log2 p (finite even
 * when p itself underflows to 0, from ~1075 pairs on); either pointer may
 * be NULL. Returns p.
 */
double pgcb_stats_sign_test(unsigned wins, unsigned losses, double *log2_p);

/*
 * The fewest tie-free pairs at which a driver can win against each of
 * `rivals` at `alpha` with Holm's correction: every test won in every pair
 * gives p = 2^(1 - K) each, and Holm's first step needs p <= alpha / rivals,
 * so K = ceil(1 + log2(rivals / alpha)). 0 when rivals == 0; alpha in (0, 1).
 * 1/64 and one rival: 7; two rivals: 8; five: 10.
 */
unsigned pgcb_stats_sign_min_orders(double alpha, size_t rivals);

/*
 * Holm's step-down procedure over p[0..m-1] at alpha: the i-th smallest p is
 * compared with alpha / (m - i), i = 0..m-1, stopping at the first that
 * exceeds its level; rejected[j] = 1 for the p's before that point, and
 * level[j] = the level p[j] was (or would have been) compared with (either
 * may be NULL). Ties between p's keep their input order. Returns how many
 * were rejected (m: every one). m <= 4096.
 */
size_t pgcb_stats_holm(const double *p, size_t m, double alpha, int *rejected, double *level);

/*
 * The distribution-free interval for the median of v[0..n-1] from order
 * statistics (sorts v; NaNs dropped first, n counts them out): with the
 * values sorted and k the largest rank with P(X <= k - 1) <= (1 - level) / 2,
 * X ~ Binomial(n, 1/2), the interval is [v_(k), v_(n+1-k)] (1-based) and
 * its exact coverage, 1 - 2 P(X <= k - 1) >= level, is returned. When even
 * [min, max] covers less than `level` (n < 6 at 95 %), *lo and *hi are NAN
 * and the return value is that largest coverage (1 - 2^(1-n); 0 for n == 0):
 * the caller says an interval needs more values.
 */
double pgcb_stats_median_ci(double *v, size_t n, double level, double *lo, double *hi);

/* A small deterministic generator (splitmix64) for resampling: the same
 * seed gives the same sequence on every machine. */
uint64_t pgcb_stats_rng_next(uint64_t *state);
/* Uniform in 0..n-1 (n >= 1), by rejection: no modulo bias. */
size_t pgcb_stats_rng_below(uint64_t *state, size_t n);

#endif
