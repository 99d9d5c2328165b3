/*
 * rw_prepare.c -- prepare (Parse + Describe + Sync once per statement) and
 * the encoded bytes of a batch, with or without parameters. See rw_conn.h.
 */
#include <stdlib.h>
#include <string.h>

#include <pgcb/value.h>

#include "rw_codec.h"
#include "rw_conn.h"
#include "rw_err.h"
#include "rw_io.h"
#include "rw_prepare.h"

/* Read replies until ReadyForQuery. The first ErrorResponse is formatted
 * into err and remembered in d->failed; later ones are ignored. */
static int rw_read_until_ready(struct pgcb_conn *c, struct rw_described *d, char *err, size_t errlen)
{
    for (;;) {
        char type, status;
        const char *body;
        size_t n;
        struct rw_pgerr e;
        int rc = rw_io_read_msg(c, &type, &body, &n, err, errlen);

        if (rc != PGCB_OK)
            return rc;
        switch (type) {
        case '1': /* ParseComplete */
        case '3': /* CloseComplete */
        case 'N':
        case 'S':
        case 'A':
            break;
        case 't':
            if (rw_dec_paramdesc(body, n, &d->nparams))
                goto malformed;
            break;
        case 'n': /* NoData: a statement without result columns */
            d->ncols = 0;
            break;
        case 'T': {
            unsigned nc;
            uint32_t *oids;
            if (rw_dec_rowdesc(body, n, &nc, NULL, 0))
                goto malformed;
            if (!(oids = malloc(((size_t)nc + 1) * sizeof *oids))) {
                rw_errf(err, errlen, "out of memory");
                return PGCB_ERR_NOMEM;
            }
            rw_dec_rowdesc(body, n, &nc, oids, nc);
            free(d->oids);
            d->oids = oids;
            d->ncols = nc;
            break;
        }
        case 'E':
            if (rw_dec_error(body, n, &e))
                goto malformed;
            if (!d->failed)
                rw_pgerr_format(&e, err, errlen);
            d->failed = 1;
            break;
        case 'Z':
            if (rw_dec_ready(body, n, &status))
                goto malformed;
            return PGCB_OK;
        default:
            rw_errf(err, errlen, "unexpected message type 0x%02x after Parse/Describe",
                    (unsigned char)type);
            return PGCB_ERR_PROTOCOL;
        }
        continue;
    malformed:
        rw_errf(err, errlen, "malformed message of type '%c' from the server", type);
        return PGCB_ERR_PROTOCOL;
    }
}

/* Encode and send the messages in b, then free b. */
static int rw_send_buf(struct pgcb_conn *c, struct rw_buf *b, char *err, size_t errlen)
{
    int rc = rw_io_send_buf(c, b, err, errlen);
    rw_buf_free(b);
    return rc;
}

/* Close statement `name` on the server after refusing it. */
static int rw_close_stmt(struct pgcb_conn *c, const char *name)
{
    struct rw_buf b;
    struct rw_described d = {0, 0, NULL, 0};
    char ignore[PGCB_ERRLEN];
    int rc;

    rw_buf_init(&b);
    rw_enc_close_stmt(&b, name);
    rw_enc_sync(&b);
    rc = rw_send_buf(c, &b, ignore, sizeof ignore);
    if (rc == PGCB_OK)
        rc = rw_read_until_ready(c, &d, ignore, sizeof ignore);
    free(d.oids);
    return rc;
}

void rw_stmt_free(struct pgcb_stmt *st)
{
    if (!st)
        return;
    free(st->exec);
    free(st->fmts);
    free(st->oids);
    free(st);
}

struct pgcb_stmt *rw_stmt_new(const struct pgcb_conn *c, const char *name,
                                     const struct rw_described *d)
{
    size_t namelen = strlen(name);
    struct pgcb_stmt *st = calloc(1, sizeof *st + namelen + 1 + d->ncols);
    int16_t *fmts = malloc(((size_t)d->ncols + 1) * sizeof *fmts);
    uint32_t *oids = malloc(((size_t)d->ncols + 1) * sizeof *oids);
    size_t nfmts = d->ncols;
    struct rw_buf b;

    if (!st || !fmts || !oids) {
        free(st);
        free(fmts);
        free(oids);
        return NULL;
    }
    if (d->ncols)
        memcpy(oids, d->oids, (size_t)d->ncols * sizeof *oids);
    st->oids = oids;
    memcpy(st->name, name, namelen + 1);
    st->nparams = d->nparams;
    st->ncols = d->ncols;
    st->kinds = (unsigned char *)st->name + namelen + 1;
    for (unsigned i = 0; i < d->ncols; i++) {
        fmts[i] = (int16_t)pgcb_value_format(d->oids[i], c->opt.binary);
        st->kinds[i] = (unsigned char)pgcb_value_kind_of(d->oids[i], fmts[i]);
    }
    /* one format code for all columns when they agree (0 codes: all text) */
    if (nfmts > 0) {
        int same = 1;
        for (size_t i = 1; i < nfmts; i++)
            same &= fmts[i] == fmts[0];
        if (same)
            nfmts = fmts[0] ? 1 : 0;
    }
    rw_buf_init(&b);
    rw_enc_bind(&b, name, 0, NULL, NULL, fmts, nfmts);
    if (c->opt.describe_each)
        rw_enc_describe_portal(&b);
    rw_enc_execute(&b);
    if (b.failed) {
        rw_buf_free(&b);
        free(fmts);
        free(oids);
        free(st);
        return NULL;
    }
    st->fmts = fmts;
    st->nfmts = nfmts;
    st->exec = b.data;
    st->exec_len = b.len;
    return st;
}

int rw_conn_prepare(struct pgcb_conn *c, const char *name, const char *sql, struct pgcb_stmt **out,
                    char *err, size_t errlen)
{
    struct rw_described d = {0, 0, NULL, 0};
    struct pgcb_stmt *st;
    struct rw_buf b;
    int rc;

    *out = NULL;
    if (c->broken) {
        rw_errf(err, errlen, "the connection is broken (an earlier error); it must be closed");
        return PGCB_ERR_IO;
    }
    rw_buf_init(&b);
    rw_enc_parse(&b, name, sql);
    rw_enc_describe_stmt(&b, name);
    rw_enc_sync(&b);
    rc = rw_send_buf(c, &b, err, errlen);
    if (rc == PGCB_OK && (rc = rw_read_until_ready(c, &d, err, errlen)) == PGCB_ERR_NOMEM)
        c->broken = 1; /* mid-exchange: replies are left unread */
    if (rc != PGCB_OK) {
        free(d.oids);
        return rw_conn_fail(c, rc);
    }
    if (d.failed) {
        free(d.oids);
        return PGCB_ERR_QUERY; /* Parse failed: the statement does not exist */
    }
    /* Parameters ($1 ...) are fine: their types are what the server
     * inferred (Parse sends none), their values come with each batch. */
    st = rw_stmt_new(c, name, &d);
    free(d.oids);
    if (!st) {
        rw_errf(err, errlen, "out of memory");
        rw_close_stmt(c, name);
        return PGCB_ERR_NOMEM;
    }
    st->next = c->stmts;
    c->stmts = st;
    *out = st;
    return PGCB_OK;
}

/* The Sync message (5 bytes). */
static const char rw_sync_msg[RW_SYNC_LEN] = {'S', 0, 0, 0, 4};

/* rw_conn_batch_bytes with parameters: execution i is Bind (query i's
 * values) [+ Describe] + Execute [+ Sync], encoded into c->batch after one
 * reservation for the whole batch (so no allocation once the buffer is large
 * enough). */
static int rw_batch_params(struct pgcb_conn *c, const struct pgcb_stmt *st, uint32_t depth,
                           const struct pgcb_params *p, char *err, size_t errlen)
{
    const uint32_t np = p->nparams;
    size_t total = 0;

    c->batch.len = 0;
    c->batch_stmt = NULL; /* the buffer no longer holds a batch to reuse */
    if (np > RW_MAX_PARAMS) {
        rw_errf(err, errlen, "%u parameters per query: a Bind message carries at most %u", np,
                RW_MAX_PARAMS);
        return PGCB_ERR_UNSUPPORTED;
    }
    if (!p->values || !p->lengths) {
        rw_errf(err, errlen, "%u parameters per query, but no %s array", np,
                p->values ? "lengths" : "values");
        return PGCB_ERR_UNSUPPORTED;
    }
    for (uint32_t i = 0; i < depth; i++) {
        size_t bytes = 0; /* query i's values in its Bind: length words and bytes */
        for (uint32_t j = 0; j < np; j++) {
            size_t k = (size_t)i * np + j;
            bytes += 4;
            if (!p->values[k])
                continue;
            if (p->lengths[k] < 0) {
                rw_errf(err, errlen, "parameter $%u of query %u: negative length %d", j + 1,
                        i + 1, p->lengths[k]);
                return PGCB_ERR_UNSUPPORTED;
            }
            bytes += (size_t)p->lengths[k];
        }
        if (bytes > RW_MAX_MSG_LEN - st->exec_len) {
            rw_errf(err, errlen, "the parameters of query %u take %zu bytes, more than one "
                    "protocol message carries", i + 1, bytes);
            return PGCB_ERR_UNSUPPORTED;
        }
        if (total > SIZE_MAX / 2 - bytes - st->exec_len) {
            rw_errf(err, errlen, "out of memory (a batch of %u executions)", depth);
            return PGCB_ERR_NOMEM;
        }
        total += st->exec_len + RW_SYNC_LEN + bytes;
    }
    if (rw_buf_reserve(&c->batch, total)) {
        c->batch.failed = 0;
        rw_errf(err, errlen, "out of memory (a batch of %u executions, %zu bytes)", depth, total);
        return PGCB_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < depth; i++) {
        rw_enc_bind(&c->batch, st->name, np, p->values + (size_t)i * np,
                    p->lengths + (size_t)i * np, st->fmts, st->nfmts);
        if (c->opt.describe_each)
            rw_enc_describe_portal(&c->batch);
        rw_enc_execute(&c->batch);
        if (!c->opt.sync_per_batch || i + 1 == depth)
            rw_buf_put(&c->batch, rw_sync_msg, RW_SYNC_LEN);
    }
    return PGCB_OK;
}

int rw_conn_batch_bytes(struct pgcb_conn *c, const struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, char *err, size_t errlen)
{
    if (p && p->nparams > 0)
        return rw_batch_params(c, st, depth, p, err, errlen);
    if (c->batch_stmt == st && c->batch_depth == depth)
        return PGCB_OK;
    c->batch.len = 0;
    c->batch_stmt = NULL;
    const size_t each = st->exec_len + (c->opt.sync_per_batch ? 0 : RW_SYNC_LEN);
    if ((size_t)depth > (SIZE_MAX / 2) / each ||
        rw_buf_reserve(&c->batch, each * depth + RW_SYNC_LEN)) {
        c->batch.failed = 0;
        rw_errf(err, errlen, "out of memory (a batch of %u executions)", depth);
        return PGCB_ERR_NOMEM;
    }
    char *o = c->batch.data;
    for (uint32_t i = 0; i < depth; i++) {
        memcpy(o, st->exec, st->exec_len);
        o += st->exec_len;
        if (!c->opt.sync_per_batch || i + 1 == depth) {
            memcpy(o, rw_sync_msg, RW_SYNC_LEN);
            o += RW_SYNC_LEN;
        }
    }
    c->batch.len = (size_t)(o - c->batch.data);
    c->batch_stmt = st;
    c->batch_depth = depth;
    return PGCB_OK;
}
