/*
 * pq_copy.h -- COPY ... FROM STDIN over libpq (ABI 1.4 run_copy), for the
 * libpq drivers. Part of lib/pqutil.
 */
#ifndef PGCB_PQ_COPY_H
#define PGCB_PQ_COPY_H

#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

/* Run copy->sql on `pg` (a blocking connection, not in pipeline mode) with
 * PQexec, stream copy->data with PQputCopyData in pieces of PGCB_COPY_CHUNK
 * bytes, end with PQputCopyEnd, and read every result (PQgetResult) to the
 * end. *rows is the server's count (PQcmdTuples). Returns PGCB_OK;
 * PGCB_ERR_QUERY with "SQLSTATE: message" when the server refused the
 * statement or the data (the connection is usable); PGCB_ERR_UNSUPPORTED if
 * the statement did not start a COPY FROM STDIN (usable); PGCB_ERR_IO when
 * the connection broke. Allocates nothing itself (libpq allocates each
 * PGresult, cleared here). */
int pgcb_pq_copy(PGconn *pg, const struct pgcb_copy *copy, uint64_t *rows, char *err,
                 size_t errlen);

#endif /* PGCB_PQ_COPY_H */
