/* br_ref.c -- see br_ref.h. */
#include "br_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "br_dump.h"
#include "pqutil/pq_errmsg.h"
#include "pqutil/pq_fold.h"
#include "pqutil/pq_params.h"
#include "pqutil/pq_stream.h"

/* The types whose text the fold's `int` kind may sum: int2, int4, int8, oid. */
static int int_type(uint32_t oid)
{
    return oid == 21 || oid == 23 || oid == 20 || oid == 26;
}

/* The key of the parameters of p: each value's length and bytes (-1: NULL). */
static char *params_key(const struct pgcb_params *p, size_t *len)
{
    size_t n = 1;
    for (uint32_t j = 0; p && j < p->nparams; j++)
        n += sizeof(int) + (p->values[j] ? (size_t)p->lengths[j] : 0);
    char *k = malloc(n), *at = k;
    if (!k)
        return NULL;
    for (uint32_t j = 0; p && j < p->nparams; j++) {
        int l = p->values[j] ? p->lengths[j] : -1;
        memcpy(at, &l, sizeof l);
        at += sizeof l;
        if (l > 0) {
            memcpy(at, p->values[j], (size_t)l);
            at += l;
        }
    }
    *len = (size_t)(at - k);
    return k;
}

int br_ref_matches(const struct br_ref *r, const struct pgcb_params *p)
{
    size_t n;
    char *k = params_key(p, &n);
    int same = k && r->key && n == r->keylen && memcmp(k, r->key, n) == 0;
    free(k);
    return same;
}

/* Per PGresult of rows: every column's statistics. */
static int ref_rows(void *arg, const PGresult *res, char *err, size_t errlen)
{
    struct br_ref *r = arg;
    int nrows = PQntuples(res), ncols = PQnfields(res);
    if ((uint32_t)ncols != r->ncols) {
        snprintf(err, errlen, "the reference reading got %d columns, not %u", ncols, r->ncols);
        return PGCB_ERR_PROTOCOL;
    }
    for (int i = 0; i < nrows; i++)
        for (int j = 0; j < ncols; j++) {
            struct br_ref_col *col = &r->cols[j];
            if (PQgetisnull(res, i, j)) {
                col->nulls++;
                continue;
            }
            const unsigned char *v = (const unsigned char *)PQgetvalue(res, i, j);
            uint32_t bytes = (uint32_t)PQgetlength(res, i, j), cps = 0, astral = 0;
            for (uint32_t b = 0; b < bytes; b++) {
                cps += (v[b] & 0xC0) != 0x80;
                astral += v[b] >= 0xF0;
            }
            col->sum_len[BR_LEN_BYTES] += bytes;
            col->sum_len[BR_LEN_CODEPOINTS] += cps;
            col->sum_len[BR_LEN_UTF16] += cps + astral;
            if (int_type(col->oid))
                col->sum_int += (uint32_t)strtoll((const char *)v, NULL, 10);
            else if (col->oid == 16)
                col->sum_bool += v[0] == 't';
        }
    return PGCB_OK;
}

int br_ref_read(const char *conninfo, const char *sql, const struct pgcb_params *p,
                locale_t c_locale, struct br_ref *out, char *err, size_t errlen)
{
    br_ref_free(out);
    /* Its own application_name: the runner's count of the driver's backends
     * (tagged by PGAPPNAME) is not this passing connection's. */
    const char *keys[] = {"dbname", "application_name", NULL};
    const char *vals[] = {conninfo ? conninfo : "", "pgcb_bridge_reference", NULL};
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (!pg || PQstatus(pg) != CONNECTION_OK) {
        pgcb_pq_err_oneline(err, errlen, "the bridge's reference connection: ",
                            pg ? PQerrorMessage(pg) : "out of memory", pg ? PQpass(pg) : NULL);
        PQfinish(pg);
        return PGCB_ERR_CONNECT;
    }
    PQsetNoticeProcessor(pg, pgcb_pq_ignore_notice, NULL);
    struct pgcb_stmt *st = NULL;
    struct pgcb_pq_params scratch = {0};
    int rc = PGCB_OK;
    PGresult *res = PQprepare(pg, "pgcb_ref", sql, 0, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        pgcb_pq_err_result(err, errlen, res, pg);
        rc = PQstatus(pg) == CONNECTION_OK ? PGCB_ERR_QUERY : PGCB_ERR_IO;
    }
    PQclear(res);
    if (rc == PGCB_OK) {
        res = PQdescribePrepared(pg, "pgcb_ref");
        rc = PQresultStatus(res) == PGRES_COMMAND_OK
                 ? pgcb_pq_stmt_new("pgcb_ref", res, 0, &st, err, errlen) : PGCB_ERR_IO;
        if (rc == PGCB_OK) {
            out->ncols = (uint32_t)PQnfields(res);
            out->cols = calloc(out->ncols ? out->ncols : 1, sizeof *out->cols);
            for (uint32_t j = 0; out->cols && j < out->ncols; j++)
                out->cols[j].oid = (uint32_t)PQftype(res, (int)j);
            rc = out->cols ? PGCB_OK : PGCB_ERR_NOMEM;
        } else if (rc == PGCB_ERR_IO) {
            pgcb_pq_err_result(err, errlen, res, pg);
        }
        PQclear(res);
    }
    if (rc == PGCB_OK) {
        struct pgcb_stream_out o = {0};
        rc = pgcb_pq_stream(pg, st, p, &scratch, 0, PGCB_RESULT_STREAMED, c_locale, ref_rows, out,
                            &o, err, errlen);
        out->sum = o.sum;
        out->rows = o.sum.rows;
    }
    if (rc == PGCB_OK && !(out->key = params_key(p, &out->keylen)))
        rc = PGCB_ERR_NOMEM;
    if (rc == PGCB_ERR_NOMEM && !*err)
        snprintf(err, errlen, "out of memory");
    pgcb_pq_stmts_free(st);
    pgcb_pq_params_free(&scratch);
    PQfinish(pg);
    if (rc != PGCB_OK)
        br_ref_free(out);
    return rc;
}

void br_ref_free(struct br_ref *r)
{
    free(r->key);
    free(r->cols);
    *r = (struct br_ref){0};
}
