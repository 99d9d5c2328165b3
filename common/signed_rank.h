/*
 * signed_rank.h -- the Wilcoxon signed-rank test and the Hodges-Lehmann
 * interval that inverts it, for paired differences (issue 43: the A/B
 * gate's test that uses the sizes of the per-order differences, not only
 * their signs). Module prefix pgcb_srank_. Nothing here prints or keeps
 * state; the caller's arrays are not modified.
 *
 * The null hypothesis: each difference is symmetric about 0 and
 * independent of the others, so each one's sign is a fair coin given the
 * sizes. W+ is the sum of the ranks of |d| over the positive d; zeros are
 * dropped (as the sign test drops ties), tied |d| get their average rank,
 * and the p-value is exact under that null, conditional on the ranks
 * (ties included), up to PGCB_SRANK_EXACT_MAX nonzero differences; beyond,
 * the normal approximation with the tie-corrected variance and a
 * continuity correction.
 */
#ifndef PGCB_SIGNED_RANK_H
#define PGCB_SIGNED_RANK_H

#include <stddef.h>

/* The largest count of nonzero differences the exact distribution is
 * computed for (O(n^3) additions: 27 M at 300). */
#define PGCB_SRANK_EXACT_MAX 300

/*
 * The exact two-sided test of d[0..n-1] (NaNs ignored): p = min(1,
 * 2 min(P(W+ <= w), P(W+ >= w))). *w_plus (may be NULL) gets W+, *used
 * (may be NULL) the nonzero differences it ranked. p = 1 when none is left.
 */
double pgcb_srank_test(const double *d, size_t n, double *w_plus, size_t *used);

/*
 * The Hodges-Lehmann estimate of the center of d[0..n-1] (the median of the
 * n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j; NaNs ignored) and the
 * interval the signed-rank test inverts: the averages sorted, [A_(k),
 * A_(M+1-k)] with the largest k whose exact coverage 1 - 2 P(W+ <= k - 1)
 * (no ties) is >= level. Returns that coverage; when even [min, max] covers
 * less (n < 6 at 95 %), *lo and *hi are NAN and the most that n gives is
 * returned. *est is NAN for n == 0. n (finite values) <= PGCB_SRANK_EXACT_MAX,
 * else everything is NAN and 0 is returned.
 */
double pgcb_srank_ci(const double *d, size_t n, double level, double *est, double *lo,
                     double *hi);

#endif
