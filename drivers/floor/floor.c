/*
 * floor.c -- the "floor" reference driver: what the wire allows. It
 * connects and prepares exactly as rawwire (both link lib/pgwire), sends the same
 * pre-encoded Bind/Execute/Sync batch in one write (with parameters, the
 * same Binds rawwire encodes for run_batch_params), and skips the replies
 * by their headers (type + length) without decoding a value: it counts
 * DataRows as rows (so the runner's row checks pass) and folds nothing
 * (PGCB_CAP_REFERENCE: excluded from checksum agreement and rankings).
 *
 * It waits without sleeping (spin_us, default RW_FLOOR_SPIN_US: rw_options.h),
 * so that neither its own wake-up nor the server's cost of waking it is in
 * its latency: on a server-bound group a reader that sleeps between the
 * chunks of a reply is slower than one that does not, however little it
 * decodes.
 *
 * An ErrorResponse is still parsed (a batch that failed must not look like
 * one that worked) and the connection stays usable after it, as in rawwire.
 */
#include <stdio.h>
#include <string.h>

#include <pgcb/driver.h>

#include "pgwire/rw_codec.h"
#include "pgwire/rw_conn.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_io.h"
#include "pgwire/rw_options.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

struct floor_reply {
    struct pgcb_sum *sum;
    uint32_t syncs, ready;    /* ReadyForQuery messages to wait for, and received */
    int have_error;
    char qerr[PGCB_ERRLEN];
};

/* rw_feed_fn: skip whole messages by header; count DataRows and
 * ReadyForQuery; remember the first ErrorResponse. */
static int floor_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                      size_t errlen)
{
    struct floor_reply *r = ctx;
    const char *q = p, *end = p + n;
    uint64_t rows = 0;
    int ret = RW_FEED_MORE;

    *need = 0;
    for (;;) {
        uint32_t len;
        char type;
        int h = rw_dec_header(q, (size_t)(end - q), &type, &len);
        if (h == RW_HDR_MORE)
            break;
        if (h == RW_HDR_BAD) {
            rw_errf(err, errlen, "invalid message length %u (type 0x%02x)", len, (unsigned char)type);
            ret = RW_FEED_ERROR;
            break;
        }
        if ((size_t)(end - q) - 1 < len) {
            *need = (size_t)len + 1;
            break;
        }
        switch (type) {
        case 'D':
            rows++;
            break;
        case '2': case 'T': case 'n': case 'C': case 'I': case 'N': case 'S': case 'A':
            break;
        case 'Z':
            if (++r->ready == r->syncs) {
                q += (size_t)len + 1;
                ret = RW_FEED_DONE;
                goto out;
            }
            break;
        case 'E':
            if (!r->have_error) {
                struct rw_pgerr e;
                if (rw_dec_error(q + 5, len - 4, &e)) {
                    rw_errf(err, errlen, "malformed ErrorResponse");
                    ret = RW_FEED_ERROR;
                    goto out;
                }
                rw_pgerr_format(&e, r->qerr, sizeof r->qerr);
                r->have_error = 1;
            }
            break;
        default:
            rw_errf(err, errlen, "unexpected message type 0x%02x in a batch", (unsigned char)type);
            ret = RW_FEED_ERROR;
            goto out;
        }
        q += (size_t)len + 1;
    }
out:
    r->sum->rows += rows;
    *used = (size_t)(q - p);
    return ret;
}

/* run_batch and run_batch_params (p NULL for run_batch): the batch bytes
 * are rawwire's (rw_conn_batch_bytes), parameters included. */
static int floor_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                                  const struct pgcb_params *p, struct pgcb_sum *sum, char *err,
                                  size_t errlen)
{
    struct floor_reply r;
    int rc;

    if ((rc = rw_conn_batch_start(c, st, depth, p, err, errlen)) != PGCB_OK)
        return rc;
    r.sum = sum;
    r.syncs = c->opt.sync_per_batch ? 1 : depth;
    r.ready = 0;
    r.have_error = 0;
    rc = rw_io_pipeline(c, c->batch.data, c->batch.len, floor_feed, &r, err, errlen);
    return rw_conn_batch_end(c, rc, r.have_error ? r.qerr : NULL, err, errlen);
}

static int floor_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                           struct pgcb_sum *sum, char *err, size_t errlen)
{
    return floor_run_batch_params(c, st, depth, NULL, sum, err, errlen);
}

static int floor_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                      struct pgcb_conn **out, char *err, size_t errlen)
{
    struct rw_options o;
    int rc;

    *out = NULL;
    if ((rc = rw_parse_options("floor", opts, nopts, &o, err, errlen)) != PGCB_OK)
        return rc;
    return rw_conn_open(conninfo, &o, out, err, errlen);
}

static int floor_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                          char *err, size_t errlen)
{
    return rw_protocol("floor", opts, nopts, out, err, errlen);
}

static const struct pgcb_driver floor_driver = {
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    .caps = PGCB_CAP_REFERENCE | PGCB_CAP_PIPELINE,
    .name = "floor",
    .version = "1.0.0",
    .links = "rawwire's connection code; replies skipped by header",
    .description = "the wire floor: rawwire's pre-encoded batch, replies skipped without decoding",
    .options = rw_floor_option_specs,
    .protocol = floor_protocol,
    .open = floor_open,
    .close = rw_conn_close,
    .prepare = rw_conn_prepare,
    .run_batch = floor_run_batch,
    .run_batch_params = floor_run_batch_params,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    return &floor_driver;
}
