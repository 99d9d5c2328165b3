/*
 * rw_reply.h -- the parser of a batch's replies: depth x (BindComplete,
 * [RowDescription | NoData,] DataRow*, CommandComplete | EmptyQueryResponse,
 * [ReadyForQuery]), ReadyForQuery after the last (RowDescription with a
 * Describe per execution; ReadyForQuery after each query with a Sync per
 * query). A query that fails gives ErrorResponse, then ReadyForQuery; with
 * one Sync per batch the server skips the batch's remaining queries. An
 * ErrorResponse where ReadyForQuery was expected is an error at the Sync
 * itself (the implicit commit failed: a deferred constraint, a serialization
 * failure): the query's error, and the connection stays usable. Works on
 * bytes only (no I/O): rw_reply_feed is the rw_feed_fn that rw_io_pipeline
 * calls with whatever has been read, and what the fuzzer calls with
 * anything.
 *
 * Values are parsed in place and folded into *sum as they come; nothing is
 * allocated. A value that does not convert in its column's type (or an
 * array of two dimensions) stops the folding, not the parsing: the replies
 * are read to their end, so the connection stays usable, and the batch
 * ends with value_rc and verr set (the sum is then meaningless). Every length is checked against the message and the message
 * against the bytes available before anything is read.
 */
#ifndef RW_REPLY_H
#define RW_REPLY_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "pgwire/rw_conn.h"
#include "pgwire/rw_io.h"

enum rw_reply_state {
    RW_RS_BIND = 0, /* expecting BindComplete (or ErrorResponse) */
    RW_RS_DESC,     /* expecting RowDescription or NoData (a Describe per execution) */
    RW_RS_ROWS,     /* DataRows until CommandComplete */
    RW_RS_DONE,     /* expecting ReadyForQuery */
    RW_RS_ERROR     /* an ErrorResponse came; expecting ReadyForQuery */
};

/* rw_reply_init flags: what the batch asked for. */
#define RW_REPLY_DESCRIBE 1u       /* a Describe of the portal before each Execute */
#define RW_REPLY_SYNC_PER_BATCH 2u /* one Sync after the last Execute, not one per query */

struct rw_reply {
    const unsigned char *kinds; /* enum pgcb_value_kind per column: the statement's; all
                                   PGCB_VALUE_TEXT once a value was refused (value_rc) */
    const uint32_t *oids;       /* type OID per column, for messages only; NULL: the
                                   message names the kind (rw_reply_init sets NULL) */
    unsigned ncols;
    uint64_t query_rows;        /* rows of the batch before the current query's */
    int value_rc;               /* the first value pgcb_value_fold refused (-1 malformed,
                                   PGCB_VALUE_UNSUPPORTED), 0 if none; message in verr */
    struct pgcb_sum *sum;
    locale_t c_locale;
    uint32_t depth;             /* executions in the batch */
    uint32_t syncs;             /* ReadyForQuery messages to wait for: depth, or 1 */
    uint32_t ready;             /* received so far */
    uint32_t done;              /* executions completed or failed so far */
    unsigned flags;             /* RW_REPLY_* */
    int state;                  /* enum rw_reply_state of the current query */
    int have_error;             /* an ErrorResponse came (first one in qerr) */
    int fatal;                  /* an ErrorResponse of severity FATAL or PANIC came:
                                   rw_reply_feed returned RW_FEED_FATAL */
    uint32_t error_query;       /* 1-based index of the query that failed first */
    char qerr[PGCB_ERRLEN];     /* "SQLSTATE: message (query i of n)" */
    char verr[PGCB_ERRLEN];     /* "row r column c: malformed binary timestamptz value ..." */
};

/* Start parsing the replies of `depth` executions of a statement with
 * `ncols` columns of `kinds`, sent as `flags` (RW_REPLY_*) say. */
void rw_reply_init(struct rw_reply *r, const unsigned char *kinds, unsigned ncols,
                   struct pgcb_sum *sum, locale_t c_locale, uint32_t depth, unsigned flags);

/* The RW_REPLY_* flags of a batch on connection `c`. */
unsigned rw_reply_flags(const struct pgcb_conn *c);

/* The rw_feed_fn: ctx is a struct rw_reply. A FATAL or PANIC
 * ErrorResponse is RW_FEED_FATAL at once (the server closes the session;
 * nothing more is waited for). Malformed input (bad length,
 * unknown or out-of-order message type, DataRow with another column count,
 * a field past the end of its message, an invalid value) is RW_FEED_ERROR
 * with err set. */
int rw_reply_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                  size_t errlen);

#endif /* RW_REPLY_H */
