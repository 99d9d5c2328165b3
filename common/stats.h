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
