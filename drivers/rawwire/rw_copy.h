/*
 * rw_copy.h -- rawwire's run_copy (ABI 1.4): COPY ... FROM STDIN sent as
 * one write, as rawwire sends its batches: Query, the payload as CopyData
 * messages of PGCB_COPY_CHUNK bytes, CopyDone -- without waiting for the
 * CopyInResponse first. A server that refuses the statement (42P01) answers
 * ErrorResponse + ReadyForQuery and ignores the CopyData and CopyDone that
 * follow (the protocol says so: postgres.c accepts and drops them outside
 * COPY), so the connection stays in step; one that fails mid-stream (22P04)
 * does the same. The replies are parsed by rw_copy_feed (bytes only, for
 * the fake-peer tests and the fuzzer).
 */
#ifndef RW_COPY_H
#define RW_COPY_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "pgwire/rw_conn.h"

/* The ABI operation; see struct pgcb_driver. */
int rw_run_copy(struct pgcb_conn *c, const struct pgcb_copy *copy, uint64_t *rows, char *err,
                size_t errlen);

enum rw_copy_state {
    RW_CS_START = 0, /* expecting CopyInResponse (or ErrorResponse, or a non-COPY's result) */
    RW_CS_IN,        /* in COPY: expecting CommandComplete "COPY n" or ErrorResponse */
    RW_CS_DONE,      /* expecting ReadyForQuery */
    RW_CS_OTHER,     /* the statement was not a COPY FROM STDIN: its results until
                        ReadyForQuery */
    RW_CS_ERROR      /* an ErrorResponse came: expecting ReadyForQuery */
};

struct rw_copy_reply {
    int state;             /* enum rw_copy_state */
    int have_error;        /* an ErrorResponse came (in qerr) */
    int not_copy;          /* no CopyInResponse: a statement of another kind */
    int fatal;             /* FATAL / PANIC: the server ends the session */
    uint64_t rows;         /* from CommandComplete "COPY n" */
    char qerr[PGCB_ERRLEN];
};

void rw_copy_reply_init(struct rw_copy_reply *r);

/* The rw_feed_fn (rw_io.h) of a COPY's replies: DONE at ReadyForQuery;
 * FATAL at a FATAL/PANIC ErrorResponse; ERROR with err for a malformed or
 * out-of-order message (ReadyForQuery before any result, a second
 * CopyInResponse, a CopyInResponse whose column count does not match its
 * body, a CommandComplete that is not "COPY n", an unknown type). */
int rw_copy_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                 size_t errlen);

#endif /* RW_COPY_H */
