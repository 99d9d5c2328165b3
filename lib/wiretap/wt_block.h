/*
 * wt_block.h -- the counter block a wire proxy (build/pgcb-proxy) shares
 * with the program that started it: what crossed the wire (wt_count.h's
 * totals, over every connection the proxy carried), how late its delayed
 * deliveries were against the times it was asked for, and what went wrong.
 *
 * The starter creates the block (wt_block_create: an anonymous memory file,
 * mapped shared), passes its descriptor to the proxy (inherited across
 * exec), which maps it (wt_block_map). The proxy alone writes, with relaxed
 * atomic stores and adds; the starter reads (wt_block_read) at any time.
 * Every counter only grows, so a reader's figures over a span are the
 * difference of two reads.
 */
#ifndef WT_BLOCK_H
#define WT_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "wt_count.h"

#define WT_BLOCK_MAGIC 0x70676362776972ULL /* "pgcbwir" */

/* Lateness buckets, upper bounds in ns (the last one is open). */
#define WT_LATE_NBUCKETS 10
extern const uint64_t wt_late_bounds[WT_LATE_NBUCKETS - 1];

struct wt_delay {
    uint64_t chunks;                        /* deliveries made (each a chunk as read) */
    uint64_t late_sum_ns;                   /* sum of (delivered - due) */
    uint64_t late_max_ns;
    uint64_t late_hist[WT_LATE_NBUCKETS];   /* by wt_late_bounds */
};

struct wt_block {
    uint64_t magic;            /* WT_BLOCK_MAGIC once the proxy listens */
    uint64_t port;             /* the TCP port it listens on */
    uint64_t half_rtt_ns;      /* the delay it adds each way */
    struct wt_totals tot;
    struct wt_delay delay;
    uint64_t accepted;         /* client connections accepted */
    uint64_t refused;          /* client connections closed because the upstream refused */
    uint64_t errors;           /* connections ended by an I/O error */
    uint64_t error_seq;        /* bumped after last_error is written */
    char last_error[256];      /* the newest error, one line */
};

/* Create a zeroed block: *fd the descriptor to pass on (close-on-exec: the
 * starter clears it in the child it execs the proxy in), the mapping returned (unmap with wt_block_unmap). NULL with
 * why on failure. */
struct wt_block *wt_block_create(int *fd, char *why, size_t whylen);

/* Map the block behind fd (the proxy's side). NULL with why. */
struct wt_block *wt_block_map(int fd, char *why, size_t whylen);

void wt_block_unmap(struct wt_block *b);

/* A copy of the counters (each field read atomically). */
void wt_block_read(const struct wt_block *b, struct wt_block *out);

/* The proxy's side: record one delivery `late_ns` after it was due. */
void wt_block_late(struct wt_block *b, uint64_t late_ns);

/* The proxy's side: a one-line error (counted in errors or refused). */
void wt_block_error(struct wt_block *b, int refused, const char *msg);

#endif
