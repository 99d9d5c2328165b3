/* stats.c -- pure statistics helpers; see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

/* t_{0.975, df} for df = 1..30 (index df - 1). */
static const double t95_table[30] = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double pgcb_stats_t95(uint64_t df)
{
    const double z = 1.959963985; /* Phi^-1(0.975) */
    double z2 = z * z, nu = (double)df, g1, g2, g3, g4;

    if (df == 0)
        return NAN;
    if (df <= 30)
        return t95_table[df - 1];
    /* A&S 26.7.5: t = z + g1/nu + g2/nu^2 + g3/nu^3 + g4/nu^4. */
    g1 = z * (z2 + 1) / 4;
    g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
    g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
    g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;
    return z + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu;
}

double pgcb_stats_rme_pct(double mean, double sd, uint64_t n)
{
    if (n < 2 || mean == 0)
        return NAN; /* one sample has no spread to speak of */
    return pgcb_stats_t95(n - 1) * sd / sqrt((double)n) / fabs(mean) * 100;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Total order with NaNs last, so qsort gets a consistent comparator. */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

double pgcb_stats_median_u64(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    if (n % 2 == 1)
        return (double)v[n / 2];
    return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

double pgcb_stats_median_dbl(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_dbl);
    if (n % 2 == 1)
        return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2;
}

double pgcb_stats_geomean(const double *v, size_t n)
{
    double s = 0;

    if (n == 0)
        return NAN;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return NAN;
        s += log(v[i]);
    }
    return exp(s / (double)n);
}

double pgcb_stats_sign_test_p(unsigned orders)
{
    return orders > 1100 ? 0.0 : ldexp(1.0, -(int)orders); /* 2^-1075 rounds to 0 */
}

void pgcb_stats_spread(const double *v, size_t n, double *scratch,
                       struct pgcb_stats_spread *out)
{
    size_t k = 0;
    *out = (struct pgcb_stats_spread){0, NAN, NAN, NAN};
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        scratch[k++] = v[i];
        if (k == 1 || v[i] < out->min)
            out->min = v[i];
        if (k == 1 || v[i] > out->max)
            out->max = v[i];
    }
    out->n = k;
    if (k < 3)
        return; /* two orders have a range, not a spread to speak of */
    double med = pgcb_stats_median_dbl(scratch, k);
    if (!(med > 0))
        return;
    for (size_t i = 0; i < k; i++)
        scratch[i] = fabs(scratch[i] - med);
    out->robust_cv_pct = 1.4826 * pgcb_stats_median_dbl(scratch, k) / med * 100;
}
