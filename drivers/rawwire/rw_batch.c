/*
 * rw_batch.c -- rawwire's run_batch and run_batch_params: the batch (the
 * pre-encoded executions, or Binds with this call's parameters) in one
 * send, the replies parsed in place as they are read (rw_reply.c).
 */
#include <stdio.h>
#include <string.h>

#include "rw_batch.h"
#include "rw_err.h"
#include "rw_io.h"
#include "rw_reply.h"

/* Both operations: p NULL for run_batch. */
int rw_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, struct pgcb_sum *sum, char *err,
                        size_t errlen)
{
    struct rw_reply r;
    int rc;

    if (c->broken) {
        rw_errf(err, errlen, "the connection is broken (an earlier error); it must be closed");
        return PGCB_ERR_IO;
    }
    if (depth == 0) {
        rw_errf(err, errlen, "depth must be at least 1");
        return PGCB_ERR_UNSUPPORTED;
    }
    if ((rc = rw_conn_batch_bytes(c, st, depth, p, err, errlen)) != PGCB_OK)
        return rc;
    rw_reply_init(&r, st->kinds, st->ncols, sum, c->c_locale, depth);
    rc = rw_io_pipeline(c, c->batch.data, c->batch.len, rw_reply_feed, &r, err, errlen);
    if (rc == PGCB_OK) {
        if (!r.have_error)
            return PGCB_OK;
        rw_errf(err, errlen, "%s", r.qerr);
        return PGCB_ERR_QUERY;
    }
    if (rc == PGCB_ERR_IO && r.have_error) {
        /* the server said why before it closed the connection */
        char io[PGCB_ERRLEN];
        snprintf(io, sizeof io, "%s", err);
        rw_errf(err, errlen, "%s; %s", r.qerr, io);
    }
    return rw_conn_fail(c, rc);
}

int rw_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth, struct pgcb_sum *sum,
                 char *err, size_t errlen)
{
    return rw_run_batch_params(c, st, depth, NULL, sum, err, errlen);
}
