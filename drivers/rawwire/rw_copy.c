/* rw_copy.c -- see rw_copy.h. */
#include "rw_copy.h"

#include <string.h>

#include "pgwire/rw_codec.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_io.h"

/* Query + CopyData... + CopyDone into c->copy (reused: no allocation once
 * it is as large as the largest COPY before). */
static int copy_bytes(struct pgcb_conn *c, const struct pgcb_copy *copy, char *err,
                      size_t errlen)
{
    struct rw_buf *b = &c->copy;
    b->len = 0;
    size_t chunks = (copy->len + PGCB_COPY_CHUNK - 1) / PGCB_COPY_CHUNK;
    if (rw_buf_reserve(b, strlen(copy->sql) + 6 + copy->len + 5 * chunks + 5) == 0) {
        rw_enc_query(b, copy->sql);
        for (size_t at = 0; at < copy->len; at += PGCB_COPY_CHUNK)
            rw_enc_copy_data(b, copy->data + at, copy->len - at < PGCB_COPY_CHUNK
                                                     ? copy->len - at : PGCB_COPY_CHUNK);
        rw_enc_copy_done(b);
    }
    if (b->failed) {
        b->failed = 0;
        b->len = 0;
        rw_errf(err, errlen, "out of memory for a COPY of %zu bytes", copy->len);
        return PGCB_ERR_NOMEM;
    }
    return PGCB_OK;
}

int rw_run_copy(struct pgcb_conn *c, const struct pgcb_copy *copy, uint64_t *rows, char *err,
                size_t errlen)
{
    struct rw_copy_reply r;
    int rc;

    *rows = 0;
    if (c->broken) {
        rw_errf(err, errlen, "connection is broken (an earlier I/O or protocol error)");
        return PGCB_ERR_IO;
    }
    if ((rc = copy_bytes(c, copy, err, errlen)) != PGCB_OK)
        return rc; /* nothing was sent */
    rw_copy_reply_init(&r);
    rc = rw_io_pipeline_rest(c, c->copy.data, c->copy.len, rw_copy_feed, &r, err, errlen);
    if (rc == PGCB_OK && !r.have_error && r.not_copy) {
        rw_errf(err, errlen, "the statement is not a COPY FROM STDIN (no CopyInResponse)");
        return PGCB_ERR_UNSUPPORTED;
    }
    if (rc == PGCB_OK && !r.have_error)
        *rows = r.rows;
    return rw_conn_batch_end(c, rc, r.have_error ? r.qerr : NULL, err, errlen);
}
