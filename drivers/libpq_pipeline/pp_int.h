/*
 * pp_int.h -- libpq_pipeline's connection, shared by its files (internal:
 * libpq_pipeline.c, the driver and its batches; pp_pool.c, its pools).
 */
#ifndef PP_INT_H
#define PP_INT_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "pqutil/pq_params.h"

enum { PQ_FORMAT_TEXT = 0, PQ_FORMAT_BINARY = 1 }; /* libpq resultFormat */

#define PP_MAX_IN_FLIGHT_DEFAULT 1000u
#define PP_MAX_IN_FLIGHT_LIMIT 1000000u

struct pp_pool;

struct pgcb_conn {
    PGconn *pg;
    int sock;               /* PQsocket, fixed once connected */
    int result_format;      /* PQ_FORMAT_* */
    int sync_per_query;     /* 1: sync = per_query; 0: per_batch */
    uint32_t max_in_flight;
    locale_t c_locale;      /* for strtof_l/strtod_l; never the global locale */
    struct pgcb_stmt *stmts;
    struct pgcb_pq_params params; /* run_batch_params' scratch (pq_params.h) */
    struct pp_pool *pool;   /* the pool this connection heads (pp_pool.c); NULL: none */
};

/* libpq_pipeline.c: open, close, prepare one connection (the ABI's
 * operations); the failures of a broken connection and of a result. */
int pp_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
            struct pgcb_conn **out, char *err, size_t errlen);
void pp_close(struct pgcb_conn *c);
int pp_prepare(struct pgcb_conn *c, const char *name, const char *sql, struct pgcb_stmt **out,
               char *err, size_t errlen);
int pp_io_failure(struct pgcb_conn *c, const char *prefix, char *err, size_t errlen);
int pp_result_failure(struct pgcb_conn *c, const PGresult *res, char *err, size_t errlen);

/* pp_pool.c: the ABI 1.5 operations. The pool is its first connection (the
 * one pool_open returns, c->pool holding the others): prepare prepares on
 * every connection, close closes them all, everything else works on the
 * first. */
int pp_pool_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                 uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen);
void pp_pool_close(struct pgcb_conn *c);
int pp_pool_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                    struct pgcb_stmt **out, char *err, size_t errlen);
int pp_pool_run_load(struct pgcb_conn *c, const struct pgcb_load *load,
                     struct pgcb_load_out *out, char *err, size_t errlen);

#endif /* PP_INT_H */
