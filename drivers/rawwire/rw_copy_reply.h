/*
 * rw_copy_reply.h -- the parser of a COPY FROM STDIN's replies (rw_copy.h
 * sends the COPY): bytes only, no I/O, for rw_run_copy, the fake-peer tests
 * and the fuzzer.
 */
#ifndef RW_COPY_REPLY_H
#define RW_COPY_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

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

#endif /* RW_COPY_REPLY_H */
