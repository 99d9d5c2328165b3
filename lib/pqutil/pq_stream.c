/* pq_stream.c -- see pq_stream.h. */
#include "pq_stream.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pq_errmsg.h"
#include "pq_params.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The status of a result that is not rows (res may be NULL), err set. */
static int failure(PGconn *pg, const PGresult *res, char *err, size_t errlen)
{
    if (PQstatus(pg) == CONNECTION_BAD) {
        /* The server's own reason first, when it sent one before closing
         * (57P01 from pg_terminate_backend), else libpq's. */
        if (res && PQresultErrorField(res, PG_DIAG_SQLSTATE)) {
            pgcb_pq_err_result(err, errlen, res, pg);
            return PGCB_ERR_IO;
        }
        pgcb_pq_err_oneline(err, errlen, NULL, PQerrorMessage(pg), NULL);
        if (!*err)
            pgcb_pq_err_result(err, errlen, res, pg);
        return PGCB_ERR_IO;
    }
    if (!res) {
        pgcb_pq_err_oneline(err, errlen, "libpq returned no result: ", PQerrorMessage(pg), NULL);
        return PGCB_ERR_NOMEM;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        pgcb_pq_err_result(err, errlen, res, pg);
        return PGCB_ERR_QUERY;
    }
    pgcb_pq_errf(err, errlen, "unexpected result status %s", PQresStatus(st));
    return PGCB_ERR_UNSUPPORTED;
}

int pgcb_pq_stream(PGconn *pg, const struct pgcb_stmt *st, const struct pgcb_params *p,
                   struct pgcb_pq_params *scratch, int result_format, uint32_t mode,
                   locale_t loc, pgcb_pq_rows_fn fn, void *arg, struct pgcb_stream_out *out,
                   char *err, size_t errlen)
{
    const int streamed = mode == PGCB_RESULT_STREAMED;
    const int np = pgcb_pq_nparams(p);
    const int *lengths = NULL;
    const char *const *values = NULL;
    int rc = pgcb_pq_params_reserve(scratch, p, 1, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    values = pgcb_pq_params_query(scratch, p, 0, &lengths);
    snprintf(out->idiom, sizeof out->idiom, "%s",
             streamed ? "PQsendQueryPrepared + PQsetSingleRowMode, a PGresult per row"
                      : "PQsendQueryPrepared + PQgetResult, the whole result in one PGresult");

    uint64_t t0 = now_ns(), first = 0;
    if (!PQsendQueryPrepared(pg, st->name, np, values, lengths, NULL, result_format))
        return failure(pg, NULL, err, errlen);
    if (streamed && !PQsetSingleRowMode(pg)) {
        pgcb_pq_errf(err, errlen, "PQsetSingleRowMode refused");
        rc = PGCB_ERR_PROTOCOL;
    }
    /* Every PGresult to the terminating NULL: the connection idle again. */
    PGresult *res;
    while ((res = PQgetResult(pg)) != NULL) {
        ExecStatusType s = PQresultStatus(res);
        if (rc == PGCB_OK && (s == PGRES_SINGLE_TUPLE || s == PGRES_TUPLES_OK)) {
            if (PQntuples(res) > 0) {
                /* The first row is the caller's once libpq hands over its
                 * PGresult: buffered, after the whole result (its fold,
                 * every row's, follows); streamed, a row's fold (~0.1 us)
                 * short of the adapters' "converted and folded". */
                if (!first)
                    first = now_ns();
                rc = pgcb_pq_fold_result(res, st, loc, &out->sum, err, errlen);
                if (rc == PGCB_OK && fn)
                    rc = fn(arg, res, err, errlen);
            }
        } else if (rc == PGCB_OK && s != PGRES_COMMAND_OK) {
            rc = failure(pg, res, err, errlen);
        }
        PQclear(res);
        if (PQstatus(pg) == CONNECTION_BAD)
            break;
    }
    uint64_t end = now_ns();
    if (rc == PGCB_OK && PQstatus(pg) == CONNECTION_BAD)
        rc = failure(pg, NULL, err, errlen);
    out->total_ns = end > t0 ? end - t0 : 1;
    out->first_row_ns = first ? first - t0 : out->total_ns;
    return rc;
}
