/*
 * rw_reply.h -- the parser of a batch's replies: depth x (BindComplete,
 * DataRow*, CommandComplete | EmptyQueryResponse, ReadyForQuery), or
 * (ErrorResponse, ReadyForQuery) for a query that failed. Works on bytes
 * only (no I/O): rw_reply_feed is the rw_feed_fn that rw_io_pipeline calls
 * with whatever has been read, and what the fuzzer calls with anything.
 *
 * Values are parsed in place and folded into *sum as they come; nothing is
 * allocated. Every length is checked against the message and the message
 * against the bytes available before anything is read.
 */
#ifndef RW_REPLY_H
#define RW_REPLY_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "rw_conn.h"
#include "rw_io.h"

enum rw_reply_state {
    RW_RS_BIND = 0, /* expecting BindComplete (or ErrorResponse) */
    RW_RS_ROWS,     /* DataRows until CommandComplete */
    RW_RS_DONE,     /* expecting ReadyForQuery */
    RW_RS_ERROR     /* an ErrorResponse came; expecting ReadyForQuery */
};

struct rw_reply {
    const unsigned char *kinds; /* enum pgcb_value_kind per column (the statement's) */
    unsigned ncols;
    struct pgcb_sum *sum;
    locale_t c_locale;
    uint32_t depth;             /* ReadyForQuery messages to wait for */
    uint32_t ready;             /* received so far */
    int state;                  /* enum rw_reply_state of the current query */
    int have_error;             /* an ErrorResponse came (first one in qerr) */
    int fatal;                  /* ... of severity FATAL or PANIC */
    uint32_t error_query;       /* 1-based index of the query that failed first */
    char qerr[PGCB_ERRLEN];     /* "SQLSTATE: message (query i of n)" */
};

/* Start parsing the replies of `depth` executions of a statement with
 * `ncols` columns of `kinds`. */
void rw_reply_init(struct rw_reply *r, const unsigned char *kinds, unsigned ncols,
                   struct pgcb_sum *sum, locale_t c_locale, uint32_t depth);

/* The rw_feed_fn: ctx is a struct rw_reply. Malformed input (bad length,
 * unknown or out-of-order message type, DataRow with another column count,
 * a field past the end of its message, an invalid value) is RW_FEED_ERROR
 * with err set. */
int rw_reply_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                  size_t errlen);

#endif /* RW_REPLY_H */
