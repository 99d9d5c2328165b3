/* pct.c -- percentiles and the percentile spectrum of a histogram; see pct.h. */
#include "pct.h"

#include <math.h>
#include <stdlib.h>

#include "hist.h"
#include "util.h"

const double pgcb_pct_q[PGCB_PCT_N] = {0.5, 0.9, 0.99, 0.999};
const char *const pgcb_pct_key[PGCB_PCT_N] = {"50", "90", "99", "99.9"};
const char *const pgcb_pct_name[PGCB_PCT_N] = {"p50", "p90", "p99", "p99.9"};
const uint64_t pgcb_pct_min_samples[PGCB_PCT_N] = {2, 10, 100, 1000};

void pgcb_pct_fill(const struct pgcb_hist *h, double out[PGCB_PCT_N])
{
    for (size_t k = 0; k < PGCB_PCT_N; k++)
        out[k] = h->n ? (double)pgcb_hist_quantile(h, pgcb_pct_q[k]) : NAN;
}

/* The q of the curve's k-th point: 1 - 10^(-k / PER_DECADE), 0 for k = 0. */
static double curve_q(size_t k)
{
    return k ? 1 - pow(10, -(double)k / PGCB_PCT_PER_DECADE) : 0;
}

size_t pgcb_pct_curve(const struct pgcb_hist *h, struct pgcb_pct_point **out)
{
    *out = NULL;
    if (h->n == 0)
        return 0;
    /* Points while 1 - q >= 1/n, i.e. (1 - q) * n >= 1; the slack keeps an
     * exact power of ten (n = 1000, q = 0.999) from losing its last point
     * to rounding. At most 4 x 19.3 + 1 for n < 2^64. */
    size_t m = 1; /* q = 0 */
    while ((1 - curve_q(m)) * (double)h->n >= 1 - 1e-9)
        m++;
    size_t n = m + 1; /* and the max */
    struct pgcb_pct_point *p = pgcb_xcalloc(n, sizeof *p);
    for (size_t k = 0; k < m; k++) {
        double q = curve_q(k);
        p[k] = (struct pgcb_pct_point){q, (double)pgcb_hist_quantile(h, q)};
    }
    p[n - 1] = (struct pgcb_pct_point){1, (double)h->max};
    *out = p;
    return n;
}

double pgcb_pct_x(double q)
{
    return q < 1 ? -log10(1 - q) : INFINITY;
}

int pgcb_pct_curve_valid(const struct pgcb_pct_point *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (!(p[k].q >= 0 && p[k].q <= 1) || !(isfinite(p[k].ns) && p[k].ns >= 0))
            return 0;
        if (k > 0 && !(p[k].q > p[k - 1].q && p[k].ns >= p[k - 1].ns))
            return 0;
    }
    return 1;
}
