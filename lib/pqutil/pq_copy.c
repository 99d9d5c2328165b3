/* pq_copy.c -- see pq_copy.h. */
#include "pq_copy.h"

#include <stdlib.h>
#include <string.h>

#include "pq_errmsg.h"

/* The failure of `res` (NULL allowed): PGCB_ERR_IO when the connection is
 * gone, PGCB_ERR_QUERY for a server error, else `otherwise`. */
static int copy_failure(PGconn *pg, const PGresult *res, int otherwise, char *err, size_t errlen)
{
    if (PQstatus(pg) == CONNECTION_BAD) {
        pgcb_pq_err_oneline(err, errlen, NULL, PQerrorMessage(pg), NULL);
        return PGCB_ERR_IO;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        pgcb_pq_err_result(err, errlen, res, pg);
        return PGCB_ERR_QUERY;
    }
    if (otherwise == PGCB_ERR_UNSUPPORTED)
        pgcb_pq_errf(err, errlen, "the statement is not a COPY FROM STDIN (result status %s)",
                     PQresStatus(st));
    return otherwise;
}

/* Read results until PQgetResult says there are none; the first failure
 * wins. *rows from a COMMAND_OK result. */
static int drain(PGconn *pg, int rc, uint64_t *rows, char *err, size_t errlen)
{
    PGresult *res;
    while ((res = PQgetResult(pg)) != NULL) {
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_COMMAND_OK) {
            if (rows)
                *rows = strtoull(PQcmdTuples(res), NULL, 10);
        } else if (st == PGRES_COPY_IN) {
            /* Still in COPY: end it (a failure to send ends the connection). */
            if (PQputCopyEnd(pg, "pgclientbench: COPY abandoned") != 1 && rc == PGCB_OK)
                rc = copy_failure(pg, NULL, PGCB_ERR_IO, err, errlen);
        } else if (rc == PGCB_OK) {
            rc = copy_failure(pg, res, PGCB_ERR_UNSUPPORTED, err, errlen);
        }
        PQclear(res);
        if (PQstatus(pg) == CONNECTION_BAD) {
            if (rc == PGCB_OK || rc == PGCB_ERR_QUERY)
                rc = copy_failure(pg, NULL, PGCB_ERR_IO, err, errlen);
            break;
        }
    }
    return rc;
}

int pgcb_pq_copy(PGconn *pg, const struct pgcb_copy *copy, uint64_t *rows, char *err,
                 size_t errlen)
{
    *rows = 0;
    if (!PQsendQuery(pg, copy->sql))
        return copy_failure(pg, NULL, PGCB_ERR_IO, err, errlen);
    PGresult *res = PQgetResult(pg);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        int rc = copy_failure(pg, res, PGCB_ERR_UNSUPPORTED, err, errlen);
        PQclear(res);
        return drain(pg, rc, NULL, err, errlen);
    }
    PQclear(res);
    for (size_t at = 0; at < copy->len;) {
        size_t n = copy->len - at < PGCB_COPY_CHUNK ? copy->len - at : PGCB_COPY_CHUNK;
        /* Blocking connection: 1, or -1 when the connection failed. */
        if (PQputCopyData(pg, copy->data + at, (int)n) != 1)
            return copy_failure(pg, NULL, PGCB_ERR_IO, err, errlen);
        at += n;
    }
    if (PQputCopyEnd(pg, NULL) != 1)
        return copy_failure(pg, NULL, PGCB_ERR_IO, err, errlen);
    return drain(pg, PGCB_OK, rows, err, errlen);
}
