/*
 * session.h -- the drivers of a run, opened and prepared, and the
 * measurement of groups.
 *
 * A session owns the loaded drivers, their connections and statements. It
 * is built from a loaded config (which must outlive it) and fills the
 * groups of a struct pgcb_result, which the caller owns.
 */
#ifndef PGCB_SESSION_H
#define PGCB_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "hist.h"
#include "loader.h"
#include "result.h"

/* Samples per block buffer: a block is at most this many batches. */
#define PGCB_BLOCK_MAX 65536
/* Target duration of one block, between budget checks and progress. */
#define PGCB_BLOCK_TARGET_NS 10000000ull

struct pgcb_sdriver {
    const struct pgcb_cfg_driver *cfg;
    struct pgcb_loaded ld;
    struct pgcb_option *opts;     /* the driver's INI keys, pointing into cfg */
    size_t nopts;
    struct pgcb_conn *conn;       /* NULL while not connected */
    struct pgcb_stmt **stmts;     /* per config query; NULL if not prepared */
    uint64_t *prime_rows;         /* per query: rows of one execution at prime */
    int needs_reconnect;          /* the connection broke: reopen before use */
};

struct pgcb_session {
    const struct pgcb_config *cfg;
    struct pgcb_sdriver *drivers;
    size_t ndrivers;
    size_t **orders;              /* orders[o][k]: driver index */
    size_t norders;
    int quiet;                    /* no progress line */
    volatile sig_atomic_t *stop;  /* set by a signal handler: stop between blocks */

    /* scratch, allocated once */
    uint64_t *samples;            /* PGCB_BLOCK_MAX */
    struct pgcb_hist order_hist;      /* one driver's samples in one order */
};

/* Load every driver of cfg and check its INI keys against its options.
 * Returns 0, or -1 with one line in err (naming file:line or the driver). */
int pgcb_session_load(struct pgcb_session *s, const struct pgcb_config *cfg, char *err,
                      size_t errlen);

/* Open a connection per driver, prepare every query a suite uses, and prime
 * each statement once (checking its row count against [query] rows).
 * Returns 0, or -1 with one line in err. */
int pgcb_session_open(struct pgcb_session *s, char *err, size_t errlen);

/* Fill r->drivers and r->orders from the session. */
void pgcb_session_describe(const struct pgcb_session *s, struct pgcb_result *r);

/* Measure group `g` (r->groups[g] set up with suite/query/depth and cells
 * zeroed): warm-up, then every execution order. Fills every cell. Returns
 * 0, or 1 if the run was asked to stop (cells not reached stay NOT_RUN). */
int pgcb_session_run_group(struct pgcb_session *s, struct pgcb_result *r, size_t g,
                           size_t query_index);

void pgcb_session_free(struct pgcb_session *s);

#endif
