/* rw_stream.c -- see rw_stream.h. */
#include "rw_stream.h"

#include <stdio.h>
#include <time.h>

#include <pgcb/value.h>

#include "pgwire/rw_conn.h"
#include "pgwire/rw_io.h"
#include "rw_reply.h"

static uint64_t rw_stream_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The reply parser, and when its first row was folded. */
struct rw_stream_feed {
    struct rw_reply r;
    uint64_t first_ns;
};

/* rw_reply_feed, then the clock once, after the read that folded the
 * first row (the time to first row is to the end of that read's parsing). */
static int rw_stream_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need,
                          char *err, size_t errlen)
{
    struct rw_stream_feed *f = ctx;
    int rc = rw_reply_feed(&f->r, p, n, used, need, err, errlen);
    if (!f->first_ns && f->r.sum->rows)
        f->first_ns = rw_stream_now_ns();
    return rc;
}

int rw_run_stream(struct pgcb_conn *c, const struct pgcb_stream *s, struct pgcb_stream_out *out,
                  char *err, size_t errlen)
{
    struct pgcb_stmt *st = s->stmt;
    struct rw_stream_feed f = {.first_ns = 0};
    snprintf(out->idiom, sizeof out->idiom, "%s",
             s->mode == PGCB_RESULT_STREAMED
                 ? "DataRows parsed in place from the read buffer as they arrive"
                 : "no buffered mode: DataRows parsed in place from the read buffer as they "
                   "arrive (as streamed)");
    uint64_t t0 = rw_stream_now_ns();
    int rc = rw_conn_batch_start(c, st, 1, s->params, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    rw_reply_init(&f.r, st->kinds, st->ncols, &out->sum, c->c_locale, 1, rw_reply_flags(c));
    f.r.oids = st->oids;
    rc = rw_io_pipeline(c, c->batch.data, c->batch.len, rw_stream_feed, &f, err, errlen);
    rc = rw_conn_batch_end(c, rc, f.r.have_error ? f.r.qerr : NULL, err, errlen);
    uint64_t end = rw_stream_now_ns();
    out->total_ns = end > t0 ? end - t0 : 1;
    out->first_row_ns = f.first_ns ? f.first_ns - t0 : out->total_ns;
    if (rc == PGCB_OK && f.r.value_rc) {
        snprintf(err, errlen, "%s", f.r.verr);
        return f.r.value_rc == PGCB_VALUE_UNSUPPORTED ? PGCB_ERR_UNSUPPORTED : PGCB_ERR_PROTOCOL;
    }
    return rc;
}
