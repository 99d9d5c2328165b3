/*
 * hist.h -- log-linear latency histogram (HdrHistogram layout) for
 * nanosecond samples.
 *
 * Purpose: bounded memory per (driver, group, execution order) however many
 * samples are recorded. The runner records each batch latency outside the
 * timed loop.
 *
 * Layout (PGCB_HIST_SUB_BITS = 10):
 *   - values 0 .. 2047 have one bucket each (width 1): recorded exactly;
 *   - each power-of-two range [2^k, 2^(k+1)), k = 11 .. 39, is split into
 *     1024 buckets of width 2^(k-10): relative resolution 1/1024 at worst
 *     (a bucket midpoint is within 1/2048 of any value in the bucket);
 *   - values >= 2^40 (about 18 min) are clamped into the top bucket and
 *     counted in `overflow`.
 * Memory: PGCB_HIST_NCOUNTS (31744) uint64_t counters = 248 KiB.
 *
 * n, min, max, mean and m2 are kept exactly over the raw (unclamped) values;
 * only the quantiles come from the buckets. mean/m2 use Welford's update
 * (m2 = sum of squared deviations from the mean).
 *
 * Not thread-safe: one writer at a time; merge per-thread histograms with
 * pgcb_hist_merge().
 */
#ifndef PGCB_HIST_H
#define PGCB_HIST_H

#include <stddef.h>
#include <stdint.h>

#define PGCB_HIST_SUB_BITS 10
/* Values below this are exact (bucket width 1): 2^(SUB_BITS+1) = 2048. */
#define PGCB_HIST_EXACT_LIMIT ((uint64_t)1 << (PGCB_HIST_SUB_BITS + 1))
/* Highest value with a bucket of its own range: 2^40 - 1. */
#define PGCB_HIST_HIGHEST ((((uint64_t)1) << 40) - 1)
/* 2048 exact buckets + 29 ranges (k = 11..39) of 1024 buckets. */
#define PGCB_HIST_NCOUNTS \
    ((size_t)PGCB_HIST_EXACT_LIMIT + (size_t)(40 - PGCB_HIST_SUB_BITS - 1) * \
     ((size_t)1 << PGCB_HIST_SUB_BITS))

struct pgcb_hist {
    uint64_t *counts;  /* ncounts buckets, owned (calloc'd by init) */
    size_t ncounts;    /* PGCB_HIST_NCOUNTS */
    uint64_t n;        /* samples recorded */
    uint64_t min, max; /* raw extremes; both 0 while n == 0 */
    uint64_t overflow; /* samples >= 2^40, clamped into the top bucket */
    double mean, m2;   /* Welford running mean and sum of squared deviations */
};

/* Allocates the counters (zeroed). 0 ok, -1 on ENOMEM (h->counts NULL). */
int pgcb_hist_init(struct pgcb_hist *h);

/* Initialise h over caller-owned memory of PGCB_HIST_NCOUNTS counts (e.g. a
 * region shared with another process), which it zeroes. Never allocates;
 * do not call pgcb_hist_free() on it. */
void pgcb_hist_init_in(struct pgcb_hist *h, uint64_t *counts);
/* Releases the counters; h may be re-initialised. Safe on a zeroed struct. */
void pgcb_hist_free(struct pgcb_hist *h);
/* Forgets every sample, keeps the memory. O(ncounts). */
void pgcb_hist_reset(struct pgcb_hist *h);

/* Records one value. O(1), no allocation. */
void pgcb_hist_add(struct pgcb_hist *h, uint64_t v);
/* Records n values. O(n). */
void pgcb_hist_add_many(struct pgcb_hist *h, const uint64_t *v, size_t n);
/*
 * dst += src: counts added, mean/m2 combined with Chan et al.'s parallel
 * formula, min/max/overflow combined. src is unchanged. O(ncounts).
 * 0 ok, -1 if the layouts differ (dst unchanged).
 */
int pgcb_hist_merge(struct pgcb_hist *dst, const struct pgcb_hist *src);

/*
 * The value at rank r = ceil(q * n) (at least 1, at most n) in ascending
 * order -- the "lower" convention: for q = 0.5 and even n this is the lower
 * of the two middle values. q is clamped to [0, 1] (NaN counts as 0); q * n
 * is rounded down to an integer when it is within 1e-12 (relative) of it, so
 * that e.g. 0.07 * 100 gives rank 7 despite floating-point error.
 * The result is the midpoint (pgcb_hist_bucket_mid) of the bucket holding
 * that rank, clamped to [min, max]: exact for values < 2048.
 * 0 when n == 0. O(ncounts).
 */
uint64_t pgcb_hist_quantile(const struct pgcb_hist *h, double q);
/*
 * The median: for odd n the value at rank (n + 1) / 2, for even n the mean
 * of the values at ranks n / 2 and n / 2 + 1, each a bucket midpoint clamped
 * to [min, max] as in pgcb_hist_quantile -- so for values < 2048 it is the
 * textbook median. 0 when n == 0. O(ncounts).
 */
double pgcb_hist_median(const struct pgcb_hist *h);

/* Samples recorded in the buckets of lo .. hi (both included, at the
 * buckets' resolution). */
uint64_t pgcb_hist_count_range(const struct pgcb_hist *h, uint64_t lo, uint64_t hi);
/* Sample standard deviation (divisor n - 1) of the raw values; 0 if n < 2. */
double pgcb_hist_stddev(const struct pgcb_hist *h);

/* Bucket geometry for value v (values >= 2^40 map to the top bucket). */
size_t pgcb_hist_index(uint64_t v);
/* Lowest value of v's bucket. */
uint64_t pgcb_hist_bucket_lo(uint64_t v);
/* Highest value of v's bucket (inclusive). */
uint64_t pgcb_hist_bucket_hi(uint64_t v);
/* lo + width / 2: the value reported for the bucket (lo when width is 1). */
uint64_t pgcb_hist_bucket_mid(uint64_t v);

#endif
