/*
 * pct.h -- the distribution of a latency histogram: the fixed percentiles
 * p50, p90, p99, p99.9 and a percentile spectrum for plotting (as
 * HdrHistogram's percentile distribution), from a struct pgcb_hist.
 * Module prefix pgcb_pct_.
 *
 * Values are pgcb_hist_quantile()'s: the bucket midpoint of the sample at
 * rank ceil(q * n), clamped to [min, max] -- exact below 2048 ns, within
 * 1/2048 (relative) above (hist.h). p50 is therefore the lower middle value
 * for even n, where pgcb_hist_median() averages the two middle ones.
 *
 * These functions run after timing, on the pooled histogram; the curve
 * allocates, so never call them in a timed loop.
 */
#ifndef PGCB_PCT_H
#define PGCB_PCT_H

#include <stddef.h>
#include <stdint.h>

struct pgcb_hist;

/* The fixed percentiles, in this order: q, their name in the JSON result's
 * "percentiles_ns" object, their column heading, and the fewest samples
 * that have a sample above them (1 / (1 - q)): with fewer, the value at q
 * is the max. */
#define PGCB_PCT_N 4
extern const double pgcb_pct_q[PGCB_PCT_N];              /* 0.5 0.9 0.99 0.999 */
extern const char *const pgcb_pct_key[PGCB_PCT_N];       /* "50" "90" "99" "99.9" */
extern const char *const pgcb_pct_name[PGCB_PCT_N];      /* "p50" ... "p99.9" */
extern const uint64_t pgcb_pct_min_samples[PGCB_PCT_N];  /* 2 10 100 1000 */

/* out[k] = the value at pgcb_pct_q[k]; every entry NAN when h is empty. */
void pgcb_pct_fill(const struct pgcb_hist *h, double out[PGCB_PCT_N]);

/* One point of a percentile spectrum: the value at quantile q. */
struct pgcb_pct_point {
    double q;   /* in [0, 1] */
    double ns;
};

/* Points per decade of 1 / (1 - q): q = 1 - 10^(-x), x = 0, 0.25, 0.5 ... */
#define PGCB_PCT_PER_DECADE 4
/* The most points a curve read from a file may have (a guard against bad
 * input: 2^64 samples give 79 points). */
#define PGCB_PCT_CURVE_MAX 1024

/*
 * The percentile spectrum of h into *out (malloc'd, the caller frees):
 * the value at q = 1 - 10^(-x) for x = 0, 1/4, 2/4, ... while
 * q <= 1 - 1/n -- beyond that the rank ceil(q * n) is n and every point
 * would be the max, which says nothing about a percentile -- and then the
 * max itself at q = 1. So n = 1000 gives x = 0 .. 3 (q = 0 is the min,
 * q = 0.999 the 999th value) and the max: 14 points. q ascends and ns
 * never decreases. Returns the count; 0 and *out = NULL when h is empty.
 */
size_t pgcb_pct_curve(const struct pgcb_hist *h, struct pgcb_pct_point **out);

/* The x of q in a percentile plot, log10(1 / (1 - q)): 0 for q = 0, 2 for
 * 0.99; +inf for q >= 1. */
double pgcb_pct_x(double q);

/* 1 if p[0..n-1] is a curve as pgcb_pct_curve() makes them: q in [0, 1],
 * strictly ascending; ns finite, >= 0, never decreasing. */
int pgcb_pct_curve_valid(const struct pgcb_pct_point *p, size_t n);

#endif
