/*
 * hist.c -- log-linear latency histogram; see hist.h for the layout.
 *
 * Index of v (SUB = 2^SUB_BITS = 1024):
 *   v < 2*SUB:  index = v
 *   otherwise:  k = floor(log2 v) (from count-leading-zeros), shift = k - 10,
 *               index = 2*SUB + (k - 11) * SUB + ((v >> shift) - SUB)
 * and back: bucket j = index - 2*SUB, shift = j / SUB + 1,
 *           lo = (SUB + j % SUB) << shift, width = 1 << shift.
 */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB ((uint64_t)1 << PGCB_HIST_SUB_BITS)

int pgcb_hist_init(struct pgcb_hist *h)
{
    memset(h, 0, sizeof *h);
    h->counts = calloc(PGCB_HIST_NCOUNTS, sizeof *h->counts);
    if (h->counts == NULL)
        return -1;
    h->ncounts = PGCB_HIST_NCOUNTS;
    return 0;
}

void pgcb_hist_init_in(struct pgcb_hist *h, uint64_t *counts)
{
    memset(h, 0, sizeof *h);
    memset(counts, 0, PGCB_HIST_NCOUNTS * sizeof *counts);
    h->counts = counts;
    h->ncounts = PGCB_HIST_NCOUNTS;
}

void pgcb_hist_free(struct pgcb_hist *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}

void pgcb_hist_reset(struct pgcb_hist *h)
{
    uint64_t *counts = h->counts;
    size_t ncounts = h->ncounts;

    if (counts != NULL)
        memset(counts, 0, ncounts * sizeof *counts);
    memset(h, 0, sizeof *h);
    h->counts = counts;
    h->ncounts = ncounts;
}

size_t pgcb_hist_index(uint64_t v)
{
    unsigned k, shift;

    if (v > PGCB_HIST_HIGHEST)
        v = PGCB_HIST_HIGHEST;
    if (v < 2 * SUB)
        return (size_t)v;
    k = 63u - (unsigned)__builtin_clzll(v);    /* v != 0 here */
    shift = k - PGCB_HIST_SUB_BITS;
    return (size_t)(2 * SUB + (k - PGCB_HIST_SUB_BITS - 1) * SUB + ((v >> shift) - SUB));
}

/* Lowest value and width of bucket i (i < PGCB_HIST_NCOUNTS). */
static uint64_t index_lo(size_t i, uint64_t *width)
{
    uint64_t j;
    unsigned shift;

    if (i < 2 * SUB) {
        *width = 1;
        return i;
    }
    j = i - 2 * SUB;
    shift = (unsigned)(j / SUB) + 1;
    *width = (uint64_t)1 << shift;
    return (SUB + j % SUB) << shift;
}

uint64_t pgcb_hist_bucket_lo(uint64_t v)
{
    uint64_t w;
    return index_lo(pgcb_hist_index(v), &w);
}

uint64_t pgcb_hist_bucket_hi(uint64_t v)
{
    uint64_t w, lo = index_lo(pgcb_hist_index(v), &w);
    return lo + w - 1;
}

uint64_t pgcb_hist_bucket_mid(uint64_t v)
{
    uint64_t w, lo = index_lo(pgcb_hist_index(v), &w);
    return lo + w / 2;
}

void pgcb_hist_add(struct pgcb_hist *h, uint64_t v)
{
    double d;

    h->counts[pgcb_hist_index(v)]++;
    if (v > PGCB_HIST_HIGHEST)
        h->overflow++;
    if (h->n == 0 || v < h->min)
        h->min = v;
    if (h->n == 0 || v > h->max)
        h->max = v;
    h->n++;
    d = (double)v - h->mean;
    h->mean += d / (double)h->n;
    h->m2 += d * ((double)v - h->mean);
}

void pgcb_hist_add_many(struct pgcb_hist *h, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pgcb_hist_add(h, v[i]);
}

int pgcb_hist_merge(struct pgcb_hist *dst, const struct pgcb_hist *src)
{
    double na, nb, nt, d;

    if (dst->ncounts != src->ncounts || dst->counts == NULL || src->counts == NULL)
        return -1;
    if (src->n == 0)
        return 0;
    for (size_t i = 0; i < dst->ncounts; i++)
        dst->counts[i] += src->counts[i];
    if (dst->n == 0) {
        dst->min = src->min;
        dst->max = src->max;
    } else {
        if (src->min < dst->min)
            dst->min = src->min;
        if (src->max > dst->max)
            dst->max = src->max;
    }
    /* Chan et al.: combine two (n, mean, m2) summaries. */
    na = (double)dst->n;
    nb = (double)src->n;
    nt = na + nb;
    d = src->mean - dst->mean;
    dst->mean += d * nb / nt;
    dst->m2 += src->m2 + d * d * na * nb / nt;
    dst->n += src->n;
    dst->overflow += src->overflow;
    return 0;
}

/* Reported value of the sample at 1-based rank r (1 <= r <= n). */
static uint64_t value_at_rank(const struct pgcb_hist *h, uint64_t r)
{
    uint64_t seen = 0, w, v = h->max;

    for (size_t i = 0; i < h->ncounts; i++) {
        seen += h->counts[i];
        if (seen >= r) {
            v = index_lo(i, &w) + w / 2;
            break;
        }
    }
    if (v < h->min)
        v = h->min;
    if (v > h->max)
        v = h->max;
    return v;
}

uint64_t pgcb_hist_quantile(const struct pgcb_hist *h, double q)
{
    double x;
    uint64_t r;

    if (h->n == 0)
        return 0;
    if (!(q > 0))           /* also NaN */
        q = 0;
    if (q > 1)
        q = 1;
    x = q * (double)h->n;
    r = (uint64_t)ceil(x - x * 1e-12);
    if (r < 1)
        r = 1;
    if (r > h->n)
        r = h->n;
    return value_at_rank(h, r);
}

double pgcb_hist_median(const struct pgcb_hist *h)
{
    if (h->n == 0)
        return 0;
    if (h->n % 2 == 1)
        return (double)value_at_rank(h, (h->n + 1) / 2);
    return ((double)value_at_rank(h, h->n / 2) +
            (double)value_at_rank(h, h->n / 2 + 1)) / 2;
}

double pgcb_hist_stddev(const struct pgcb_hist *h)
{
    if (h->n < 2 || !(h->m2 > 0))
        return 0;
    return sqrt(h->m2 / (double)(h->n - 1));
}

uint64_t pgcb_hist_count_range(const struct pgcb_hist *h, uint64_t lo, uint64_t hi)
{
    if (!h->counts || hi < lo)
        return 0;
    size_t a = pgcb_hist_index(lo), b = pgcb_hist_index(hi);
    uint64_t n = 0;
    for (size_t i = a; i <= b && i < h->ncounts; i++)
        n += h->counts[i];
    return n;
}
