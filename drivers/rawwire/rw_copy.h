/*
 * rw_copy.h -- rawwire's run_copy (ABI 1.4): COPY ... FROM STDIN sent as
 * one write, as rawwire sends its batches: Query, the payload as CopyData
 * messages of PGCB_COPY_CHUNK bytes, CopyDone -- without waiting for the
 * CopyInResponse first. A server that refuses the statement (42P01) answers
 * ErrorResponse + ReadyForQuery and ignores the CopyData and CopyDone that
 * follow (the protocol says so: postgres.c accepts and drops them outside
 * COPY), so the connection stays in step; one that fails mid-stream (22P04)
 * does the same. The replies are parsed by rw_copy_feed (rw_copy_reply.h).
 */
#ifndef RW_COPY_H
#define RW_COPY_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "pgwire/rw_conn.h"
#include "rw_copy_reply.h"

/* The ABI operation; see struct pgcb_driver. */
int rw_run_copy(struct pgcb_conn *c, const struct pgcb_copy *copy, uint64_t *rows, char *err,
                size_t errlen);

#endif /* RW_COPY_H */
