/*
 * rw_batch.c -- rawwire's run_batch and run_batch_params: the batch (the
 * pre-encoded executions, or Binds with this call's parameters) in one
 * send, the replies parsed in place as they are read (rw_reply.c).
 */
#include <stdio.h>
#include <string.h>

#include <pgcb/value.h>

#include "rw_batch.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_io.h"
#include "rw_reply.h"

/* Both operations: p NULL for run_batch. */
int rw_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, struct pgcb_sum *sum, char *err,
                        size_t errlen)
{
    struct rw_reply r;
    int rc;

    if ((rc = rw_conn_batch_start(c, st, depth, p, err, errlen)) != PGCB_OK)
        return rc;
    rw_reply_init(&r, st->kinds, st->ncols, sum, c->c_locale, depth, rw_reply_flags(c));
    r.oids = st->oids;
    rc = rw_io_pipeline(c, c->batch.data, c->batch.len, rw_reply_feed, &r, err, errlen);
    rc = rw_conn_batch_end(c, rc, r.have_error ? r.qerr : NULL, err, errlen);
    if (rc == PGCB_OK && r.value_rc) {
        /* every reply was read: the connection is usable, the sum is not */
        snprintf(err, errlen, "%s", r.verr);
        return r.value_rc == PGCB_VALUE_UNSUPPORTED ? PGCB_ERR_UNSUPPORTED : PGCB_ERR_PROTOCOL;
    }
    return rc;
}

int rw_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth, struct pgcb_sum *sum,
                 char *err, size_t errlen)
{
    return rw_run_batch_params(c, st, depth, NULL, sum, err, errlen);
}
