/* signed_rank.c -- the Wilcoxon signed-rank test and the Hodges-Lehmann
 * interval; see signed_rank.h. */
#include "signed_rank.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One nonzero difference: its size and sign, and later twice its rank. */
struct srank_item {
    double abs;
    int positive;
    unsigned rank2; /* 2 x the average rank: an integer even with ties */
};

static int cmp_item(const void *a, const void *b)
{
    return cmp_dbl(&((const struct srank_item *)a)->abs, &((const struct srank_item *)b)->abs);
}

/* The nonzero finite differences of d, ranked by size (average ranks for
 * ties, doubled): a new array of *m items. */
static struct srank_item *rank_items(const double *d, size_t n, size_t *m)
{
    struct srank_item *it = pgcb_xcalloc(n ? n : 1, sizeof *it);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(d[i]) && d[i] != 0)
            it[k++] = (struct srank_item){.abs = fabs(d[i]), .positive = d[i] > 0};
    qsort(it, k, sizeof *it, cmp_item);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j + 1 < k && it[j + 1].abs == it[i].abs)
            j++;
        /* ranks i+1 .. j+1 share their average, (i + j + 2) / 2: doubled, i + j + 2 */
        for (size_t t = i; t <= j; t++)
            it[t].rank2 = (unsigned)(i + j + 2);
        i = j + 1;
    }
    *m = k;
    return it;
}

/* P(2W+ = s), s = 0..total, when each item's doubled rank is added with
 * probability 1/2: a new array of total + 1. Sums of halves only. */
static double *null_dist(const struct srank_item *it, size_t m, size_t total)
{
    double *p = pgcb_xcalloc(total + 1, sizeof *p);
    p[0] = 1;
    size_t reach = 0;
    for (size_t i = 0; i < m; i++) {
        size_t r = it[i].rank2;
        reach += r;
        for (size_t s = reach + 1; s-- > 0;)
            p[s] = (p[s] + (s >= r ? p[s - r] : 0)) / 2;
    }
    return p;
}

double pgcb_srank_test(const double *d, size_t n, double *w_plus, size_t *used)
{
    size_t m;
    struct srank_item *it = rank_items(d, n, &m);
    size_t total = 0, w2 = 0;
    double sumsq = 0;
    for (size_t i = 0; i < m; i++) {
        total += it[i].rank2;
        w2 += it[i].positive ? it[i].rank2 : 0;
        sumsq += (double)it[i].rank2 * it[i].rank2;
    }
    if (w_plus)
        *w_plus = (double)w2 / 2;
    if (used)
        *used = m;
    double p = 1;
    if (m > 0 && m <= PGCB_SRANK_EXACT_MAX) {
        double *dist = null_dist(it, m, total), lower = 0, upper = 0;
        for (size_t s = 0; s <= total; s++) {
            lower += s <= w2 ? dist[s] : 0;
            upper += s >= w2 ? dist[s] : 0;
        }
        free(dist);
        p = 2 * (lower < upper ? lower : upper);
    } else if (m > 0) {
        /* In doubled ranks: mean total / 2, variance sum(R^2) / 4; the
         * continuity correction is one doubled unit (half a rank). */
        double z = (fabs((double)w2 - (double)total / 2) - 1) / sqrt(sumsq / 4);
        p = z > 0 ? erfc(z / sqrt(2)) : 1;
    }
    free(it);
    return p > 1 ? 1 : p;
}

double pgcb_srank_ci(const double *d, size_t n, double level, double *est, double *lo,
                     double *hi)
{
    *est = *lo = *hi = NAN;
    double *v = pgcb_xcalloc(n ? n : 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(d[i]))
            v[k++] = d[i];
    if (k == 0 || k > PGCB_SRANK_EXACT_MAX) {
        free(v);
        return 0;
    }
    size_t mw = k * (k + 1) / 2, a = 0;
    double *w = pgcb_xcalloc(mw, sizeof *w);
    for (size_t i = 0; i < k; i++)
        for (size_t j = i; j < k; j++)
            w[a++] = (v[i] + v[j]) / 2;
    qsort(w, mw, sizeof *w, cmp_dbl);
    *est = mw % 2 ? w[mw / 2] : (w[mw / 2 - 1] + w[mw / 2]) / 2;
    /* The no-ties null distribution of W+ (ranks 1..k; doubled, 2..2k). */
    struct srank_item *it = pgcb_xcalloc(k, sizeof *it);
    for (size_t i = 0; i < k; i++)
        it[i].rank2 = (unsigned)(2 * (i + 1));
    double *dist = null_dist(it, k, k * (k + 1));
    /* Coverage of [A_(j), A_(M+1-j)] is 1 - 2 P(W+ <= j - 1); W+ = j - 1
     * is 2W+ = 2j - 2. */
    double cum = 0, coverage = 1 - 2 * dist[0];
    size_t best = 0;
    for (size_t j = 1; 2 * j <= mw + 1; j++) {
        cum += dist[2 * (j - 1)];
        double c = 1 - 2 * cum;
        if (c + 1e-12 < level)
            break;
        best = j;
        coverage = c;
    }
    if (best > 0) {
        *lo = w[best - 1];
        *hi = w[mw - best];
    } else if (coverage < 0) {
        coverage = 0;
    }
    free(dist);
    free(it);
    free(w);
    free(v);
    return coverage;
}
