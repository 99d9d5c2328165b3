/*
 * rw_reply.c -- see rw_reply.h.
 */
#include "rw_reply.h"

#include <stdio.h>
#include <string.h>

#include <pgcb/value.h>

#include "pgwire/rw_codec.h"
#include "pgwire/rw_err.h"

void rw_reply_init(struct rw_reply *r, const unsigned char *kinds, unsigned ncols,
                   struct pgcb_sum *sum, locale_t c_locale, uint32_t depth, unsigned flags)
{
    r->kinds = kinds;
    r->oids = NULL;
    r->ncols = ncols;
    r->query_rows = sum->rows;
    r->value_rc = 0;
    r->verr[0] = '\0';
    r->sum = sum;
    r->c_locale = c_locale;
    r->depth = depth;
    r->syncs = (flags & RW_REPLY_SYNC_PER_BATCH) ? 1 : depth;
    r->ready = 0;
    r->done = 0;
    r->flags = flags;
    r->state = RW_RS_BIND;
    r->have_error = 0;
    r->fatal = 0;
    r->error_query = 0;
    r->qerr[0] = '\0';
}

unsigned rw_reply_flags(const struct pgcb_conn *c)
{
    return (c->opt.describe_each ? RW_REPLY_DESCRIBE : 0u) |
           (c->opt.sync_per_batch ? RW_REPLY_SYNC_PER_BATCH : 0u);
}

/* The 1-based execution the next message belongs to. */
static uint32_t rw_query_no(const struct rw_reply *r)
{
    uint32_t q = r->done + 1;
    return q > r->depth ? r->depth : q;
}

/* Record that column i's value (`flen` bytes at f) in the row after `rows`
 * rows of the batch was refused by pgcb_value_fold (the first such). */
__attribute__((cold, noinline)) static void rw_value_error(struct rw_reply *r, uint64_t rows,
                                                           unsigned i, const char *f,
                                                           uint32_t flen)
{
    struct pgcb_sum scratch = {0, 0};
    enum pgcb_value_kind k = (enum pgcb_value_kind)r->kinds[i];
    /* which refusal, asked again here, off the row loop's path: only the
     * out-of-line kinds can be PGCB_VALUE_UNSUPPORTED (and calling the
     * inline pgcb_value_fold a second time in this file would cost its
     * inlining into the row loop) */
    int vr = k >= PGCB_VALUE_FIRST_MORE ? pgcb_value_fold_more(&scratch, k, f, flen, r->c_locale)
                                        : -1;
    char *err = r->verr;
    size_t errlen = sizeof r->verr;
    const char *tn = r->oids ? pgcb_value_type_name(r->oids[i]) : NULL;
    char type[48], where[48] = "";
    int binary = pgcb_value_kind_binary((enum pgcb_value_kind)r->kinds[i]);

    if (tn)
        snprintf(type, sizeof type, "%s %s", binary ? "binary" : "text", tn);
    else if (r->oids)
        snprintf(type, sizeof type, "%s oid %u", binary ? "binary" : "text", r->oids[i]);
    else
        snprintf(type, sizeof type, "kind %u", r->kinds[i]);
    if (r->depth > 1)
        snprintf(where, sizeof where, " of query %u of the batch", rw_query_no(r));
    r->value_rc = vr;
    if (vr == PGCB_VALUE_UNSUPPORTED)
        rw_errf(err, errlen, "row %llu%s column %u: %s value with more than one dimension: "
                "only one-dimensional arrays are converted", (unsigned long long)(rows - r->query_rows + 1),
                where, i + 1, type);
    else
        rw_errf(err, errlen, "row %llu%s column %u: malformed %s value (%u bytes)",
                (unsigned long long)(rows - r->query_rows + 1), where, i + 1, type, flen);
}

/* The kinds of a statement once one of its values was refused: every
 * column folded as its bytes (PGCB_VALUE_TEXT = 0, which refuses nothing),
 * so that the replies are read to their end without a check per value. A
 * statement has at most 65535 columns (a 16-bit count). */
static const unsigned char rw_text_kinds[65536];

/* The rest of DataRow body b (n bytes) after a refused value: its framing
 * checked as rw_datarow checks it, nothing folded. */
__attribute__((cold, noinline)) static int rw_datarow_frame(const struct rw_reply *r,
                                                            const char *b, size_t n, char *err,
                                                            size_t errlen)
{
    const char *f = b + 2, *end = b + n;
    for (unsigned i = 0; i < r->ncols; i++) {
        uint32_t flen;
        if (end - f < 4)
            goto past_end;
        flen = rw_be32(f);
        f += 4;
        if (flen == 0xffffffffu)
            continue;
        if (flen > (size_t)(end - f))
            goto past_end;
        f += flen;
    }
    if (f != end) {
        rw_errf(err, errlen, "DataRow with %zu bytes after its last column", (size_t)(end - f));
        return -1;
    }
    return 0;
past_end:
    rw_errf(err, errlen, "DataRow field runs past the end of its message");
    return -1;
}

/* Column i's value (`flen` bytes at f) of DataRow body b (n bytes; its
 * column count already checked) was refused: record it, fold nothing more
 * of the batch (the kinds become rw_text_kinds, so that no check per value
 * or row is needed), check the row's framing. A tail call off the row
 * loop's path. */
__attribute__((cold, noinline)) static int rw_value_refused(struct rw_reply *r, uint64_t rows,
                                                            unsigned i, const char *f,
                                                            uint32_t flen, const char *b,
                                                            size_t n, char *err, size_t errlen)
{
    rw_value_error(r, rows, i, f, flen);
    r->kinds = rw_text_kinds;
    return rw_datarow_frame(r, b, n, err, errlen);
}

/* One DataRow body: every value folded, then the row. */
static int rw_datarow(struct rw_reply *r, const char *b, size_t n, char *err, size_t errlen)
{
    const char *f = b + 2, *end = b + n;
    const unsigned char *kinds = r->kinds;
    struct pgcb_sum s = *r->sum; /* kept in registers across the row */
    unsigned nc;

    if (n < 2) {
        rw_errf(err, errlen, "DataRow shorter than its column count");
        return -1;
    }
    nc = rw_be16(b);
    if (nc != r->ncols) {
        rw_errf(err, errlen, "DataRow with %u columns; the statement was described with %u", nc,
                r->ncols);
        return -1;
    }
    for (unsigned i = 0; i < nc; i++) {
        uint32_t flen;
        if (end - f < 4)
            goto past_end;
        flen = rw_be32(f);
        f += 4;
        if (flen == 0xffffffffu) {
            pgcb_sum_null(&s);
            continue;
        }
        if (flen > (size_t)(end - f))
            goto past_end;
        if (pgcb_value_fold(&s, (enum pgcb_value_kind)kinds[i], f, flen, r->c_locale))
            return rw_value_refused(r, s.rows, i, f, flen, b, n, err, errlen);
        f += flen;
    }
    if (f != end) {
        rw_errf(err, errlen, "DataRow with %zu bytes after its last column", (size_t)(end - f));
        return -1;
    }
    pgcb_sum_row(&s);
    *r->sum = s;
    return 0;
past_end:
    rw_errf(err, errlen, "DataRow field runs past the end of its message");
    return -1;
}

static int rw_unexpected(const struct rw_reply *r, char type, char *err, size_t errlen)
{
    static const char *const states[] = {"BindComplete", "RowDescription or NoData",
                                         "DataRow or CommandComplete", "ReadyForQuery",
                                         "ReadyForQuery after an error"};
    if ((unsigned char)type >= 0x20 && (unsigned char)type < 0x7f)
        rw_errf(err, errlen, "unexpected message type '%c' in query %u of the batch (expecting %s)",
                type, rw_query_no(r), states[r->state]);
    else
        rw_errf(err, errlen, "unknown message type 0x%02x in query %u of the batch",
                (unsigned char)type, rw_query_no(r));
    return RW_FEED_ERROR;
}

int rw_reply_feed(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                  size_t errlen)
{
    struct rw_reply *r = ctx;
    const char *q = p, *end = p + n;
    int ret = RW_FEED_MORE;

    *need = 0;
    for (;;) {
        uint32_t len;
        char type;
        int h = rw_dec_header(q, (size_t)(end - q), &type, &len);
        if (h == RW_HDR_MORE)
            break;
        if (h == RW_HDR_BAD) {
            rw_errf(err, errlen, "invalid message length %u (type 0x%02x) in query %u of the batch",
                    len, (unsigned char)type, rw_query_no(r));
            ret = RW_FEED_ERROR;
            break;
        }
        if ((size_t)(end - q) - 1 < len) {
            *need = (size_t)len + 1;
            break;
        }
        const char *b = q + 5;
        size_t bn = len - 4;
        switch (type) {
        case 'D':
            if (r->state != RW_RS_ROWS)
                return rw_unexpected(r, type, err, errlen);
            if (rw_datarow(r, b, bn, err, errlen))
                return RW_FEED_ERROR;
            break;
        case '2': /* BindComplete */
            if (r->state != RW_RS_BIND || bn != 0)
                return rw_unexpected(r, type, err, errlen);
            r->state = (r->flags & RW_REPLY_DESCRIBE) ? RW_RS_DESC : RW_RS_ROWS;
            break;
        case 'T': /* RowDescription: the statement's, already known from prepare */
            if (r->state != RW_RS_DESC || bn < 2)
                return rw_unexpected(r, type, err, errlen);
            if (rw_be16(b) != r->ncols) {
                rw_errf(err, errlen, "RowDescription with %u columns in query %u of the batch; "
                        "the statement was described with %u", rw_be16(b), rw_query_no(r),
                        r->ncols);
                return RW_FEED_ERROR;
            }
            r->state = RW_RS_ROWS;
            break;
        case 'n': /* NoData */
            if (r->state != RW_RS_DESC || bn != 0 || r->ncols != 0)
                return rw_unexpected(r, type, err, errlen);
            r->state = RW_RS_ROWS;
            break;
        case 'C': /* CommandComplete */
        case 'I': /* EmptyQueryResponse */
            if (r->state != RW_RS_ROWS)
                return rw_unexpected(r, type, err, errlen);
            r->done++;
            r->query_rows = r->sum->rows;
            r->state = r->syncs == 1 && r->done < r->depth ? RW_RS_BIND : RW_RS_DONE;
            break;
        case 'E': {
            /* in any state: a query's error (BIND .. ROWS), an error at the
             * Sync (DONE: the commit failed), or a second one (ERROR: a
             * FATAL after an earlier error) */
            struct rw_pgerr e;
            if (rw_dec_error(b, bn, &e)) {
                rw_errf(err, errlen, "malformed ErrorResponse in query %u of the batch",
                        rw_query_no(r));
                return RW_FEED_ERROR;
            }
            uint32_t qno = r->state == RW_RS_DONE || r->state == RW_RS_ERROR
                               ? (r->syncs == 1 ? r->depth : r->ready + 1)
                               : rw_query_no(r);
            if (!r->have_error) {
                size_t l;
                r->have_error = 1;
                r->error_query = qno;
                rw_pgerr_format(&e, r->qerr, sizeof r->qerr);
                l = strlen(r->qerr);
                if (r->depth > 1 && l < sizeof r->qerr)
                    snprintf(r->qerr + l, sizeof r->qerr - l, " (query %u of %u in the batch%s)",
                             r->error_query, r->depth,
                             r->state == RW_RS_DONE ? ", at its Sync" : "");
                else if (r->state == RW_RS_DONE && l < sizeof r->qerr)
                    snprintf(r->qerr + l, sizeof r->qerr - l, " (at the query's Sync)");
            }
            if (r->state != RW_RS_DONE && r->state != RW_RS_ERROR)
                r->done++;
            r->state = RW_RS_ERROR;
            if (rw_pgerr_is_fatal(&e)) {
                /* the server ends the session: no ReadyForQuery will come */
                r->fatal = 1;
                q += (size_t)len + 1;
                ret = RW_FEED_FATAL;
                goto out;
            }
            break;
        }
        case 'Z': {
            char status;
            if ((r->state != RW_RS_DONE && r->state != RW_RS_ERROR) || rw_dec_ready(b, bn, &status))
                return rw_unexpected(r, type, err, errlen);
            r->state = RW_RS_BIND;
            r->done = ++r->ready == r->syncs ? r->depth : r->ready;
            if (r->ready == r->syncs) {
                q += (size_t)len + 1;
                ret = RW_FEED_DONE;
                goto out;
            }
            break;
        }
        case 'N': /* NoticeResponse */
        case 'S': /* ParameterStatus */
        case 'A': /* NotificationResponse */
            break;
        default:
            return rw_unexpected(r, type, err, errlen);
        }
        q += (size_t)len + 1;
    }
out:
    *used = (size_t)(q - p);
    return ret;
}
