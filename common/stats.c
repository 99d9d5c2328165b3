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
    if (n == 0)
        return NAN;
    double *w = malloc(n * sizeof *w);
    if (!w)
        return NAN;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0)) {
            free(w);
            return NAN;
        }
        w[i] = v[i];
    }
    qsort(w, n, sizeof *w, cmp_dbl); /* a fixed summation order: see stats.h */
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += log(w[i]);
    free(w);
    return exp(s / (double)n);
}

/* ---- sign test ------------------------------------------------------------ */

double pgcb_stats_binom_half_tail_log2(unsigned n, unsigned k)
{
    if (k == 0)
        return 0;
    if (k > n)
        return -INFINITY;
    if (n <= 62) {
        /* C(n, i) fits in 62 bits; so does the sum of those with i >= k
         * (< 2^n). */
        uint64_t c = 1, sum = 0; /* c = C(n, i) */
        for (unsigned i = 0; i <= n; i++) {
            if (i >= k)
                sum += c;
            if (i < n)
                c = c / (i + 1) * (n - i) + c % (i + 1) * (n - i) / (i + 1);
        }
        return log2((double)sum) - (double)n;
    }
    /* log2 C(n, i) = (lgamma(n+1) - lgamma(i+1) - lgamma(n-i+1)) / ln 2;
     * log-sum-exp from the largest term (the first, i = k, when k > n/2). */
    double top = -INFINITY;
    for (unsigned i = k; i <= n; i++) {
        double t = lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0);
        if (t > top)
            top = t;
    }
    double s = 0;
    for (unsigned i = k; i <= n; i++)
        s += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - top);
    return (top + log(s)) / log(2.0) - (double)n;
}

double pgcb_stats_sign_test(unsigned wins, unsigned losses, double *log2_p)
{
    unsigned n = wins + losses, k = wins > losses ? wins : losses;
    double l2 = n == 0 ? 0 : fmin(0, 1 + pgcb_stats_binom_half_tail_log2(n, k));
    if (log2_p)
        *log2_p = l2;
    return exp2(l2);
}

unsigned pgcb_stats_sign_min_orders(double alpha, size_t rivals)
{
    if (rivals == 0)
        return 0;
    /* smallest K with 1 - K <= log2(alpha / rivals); a hair of slack so
     * that alpha = 1/64 exactly gives 7, not 8, for one rival */
    double k = 1 - log2(alpha / (double)rivals);
    return (unsigned)ceil(k - 1e-9);
}

size_t pgcb_stats_holm(const double *p, size_t m, double alpha, int *rejected, double *level)
{
    size_t idx[4096];
    if (m > 4096)
        m = 4096;
    for (size_t i = 0; i < m; i++)
        idx[i] = i;
    for (size_t i = 1; i < m; i++) { /* stable insertion sort by p */
        size_t x = idx[i], j = i;
        while (j > 0 && p[idx[j - 1]] > p[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
    size_t nrej = 0;
    int going = 1;
    for (size_t i = 0; i < m; i++) {
        double lv = alpha / (double)(m - i);
        size_t j = idx[i];
        going = going && p[j] <= lv * (1 + 1e-12); /* 2^-7 vs (1/64)/2: equal, not above */
        nrej += going;
        if (rejected)
            rejected[j] = going;
        if (level)
            level[j] = lv;
    }
    return nrej;
}

/* ---- intervals -------------------------------------------------------------- */

double pgcb_stats_median_ci(double *v, size_t n, double level, double *lo, double *hi)
{
    *lo = *hi = NAN;
    qsort(v, n, sizeof *v, cmp_dbl);
    while (n > 0 && isnan(v[n - 1]))
        n--;
    if (n == 0)
        return 0;
    /* coverage of [v_(k), v_(n+1-k)] = 1 - 2 P(X <= k - 1) = 1 - 2 P(X >= n - k + 1) */
    double best = NAN;
    size_t kbest = 0;
    for (size_t k = 1; 2 * k <= n + 1; k++) {
        double cov = 1 - 2 * exp2(pgcb_stats_binom_half_tail_log2((unsigned)n,
                                                                   (unsigned)(n - k + 1)));
        if (k == 1)
            best = cov;
        if (cov + 1e-12 < level)
            break;
        best = cov;
        kbest = k;
    }
    if (kbest == 0)
        return best;
    *lo = v[kbest - 1];
    *hi = v[n - kbest];
    return best;
}

/* ---- resampling ------------------------------------------------------------- */

uint64_t pgcb_stats_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t pgcb_stats_rng_below(uint64_t *state, size_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n; /* values >= lim would bias */
    uint64_t x;
    do
        x = pgcb_stats_rng_next(state);
    while (x >= lim);
    return (size_t)(x % n);
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
