/*
 * libpq_sync.c -- the "libpq_sync" driver: plain synchronous libpq, the way
 * most applications use it. One PQexecPrepared() per execution, the whole
 * result buffered by libpq (no single-row mode), no pipelining (caps 0).
 *
 * Ownership: a struct pgcb_conn owns its PGconn, its "C" locale object and
 * the list of its statements; close() frees all of them. A statement is one
 * allocation holding its name and the per-column conversion kinds learnt
 * from PQdescribePrepared at prepare time.
 *
 * Hot path (run_batch, and run_batch_params, which is the same code with
 * text parameters): PQexecPrepared, then for every value PQgetlength,
 * PQgetvalue (PQgetisnull only for an empty one) and a conversion by the
 * cached column kind (pq_fold.c, include/pgcb/value.h). The driver
 * allocates nothing itself there once warmed up (the parameters'
 * NUL-terminated copies reuse the connection's buffer, pq_params.c); libpq
 * allocates each PGresult, which is PQclear()ed before the next execution.
 */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "pqutil/pq_copy.h"
#include "pqutil/pq_errmsg.h"
#include "pqutil/pq_fold.h"
#include "pqutil/pq_params.h"
#include "pqutil/pq_stream.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

enum { PQ_FORMAT_TEXT = 0, PQ_FORMAT_BINARY = 1 }; /* libpq resultFormat */

struct pgcb_conn {
    PGconn *pg;
    int result_format;      /* PQ_FORMAT_* */
    locale_t c_locale;      /* for strtof_l/strtod_l; never the global locale */
    struct pgcb_stmt *stmts;
    struct pgcb_pq_params params; /* run_batch_params' scratch (pq_params.h) */
};

/* ---- options ------------------------------------------------------------ */

static const struct pgcb_option_spec pq_options[] = {
    {"result_format", "text", "result format asked of the server: text | binary"},
    {NULL, NULL, NULL},
};

static int pq_parse_options(const struct pgcb_option *opts, size_t nopts, int *format,
                            char *err, size_t errlen)
{
    *format = PQ_FORMAT_TEXT;
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value ? opts[i].value : "";
        if (strcmp(k, "result_format") == 0) {
            if (strcmp(v, "text") == 0)
                *format = PQ_FORMAT_TEXT;
            else if (strcmp(v, "binary") == 0)
                *format = PQ_FORMAT_BINARY;
            else {
                pgcb_pq_errf(err, errlen, "result_format = \"%s\": expected text or binary", v);
                return PGCB_ERR_CONFIG;
            }
        } else {
            pgcb_pq_errf(err, errlen, "unknown option \"%s\" (= \"%s\"); libpq_sync knows result_format",
                         k, v);
            return PGCB_ERR_CONFIG;
        }
    }
    return PGCB_OK;
}

/* ---- open / close ------------------------------------------------------- */

static void pq_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    PQfinish(c->pg);
    pgcb_pq_stmts_free(c->stmts);
    pgcb_pq_params_free(&c->params);
    if (c->c_locale)
        freelocale(c->c_locale);
    free(c);
}

static int pq_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                   struct pgcb_conn **out, char *err, size_t errlen)
{
    struct pgcb_conn *c;
    int format, rc;

    *out = NULL;
    if (!conninfo)
        conninfo = "";
    if ((rc = pq_parse_options(opts, nopts, &format, err, errlen)) != PGCB_OK)
        return rc;
    if ((rc = pgcb_pq_check_conninfo(conninfo, err, errlen)) != PGCB_OK)
        return rc;

    c = calloc(1, sizeof *c);
    if (!c || !(c->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
        free(c);
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    c->result_format = format;
    c->pg = PQconnectdb(conninfo); /* "" = PG* variables + defaults, as libpq does */
    if (!c->pg) {
        pq_close(c);
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    if (PQstatus(c->pg) != CONNECTION_OK) {
        /* PQpass: the password in use (conninfo, PGPASSWORD or passfile). */
        pgcb_pq_err_oneline(err, errlen, NULL, PQerrorMessage(c->pg), PQpass(c->pg));
        pq_close(c);
        return PGCB_ERR_CONNECT;
    }
    PQsetNoticeProcessor(c->pg, pgcb_pq_ignore_notice, NULL);
    *out = c;
    return PGCB_OK;
}

/* ---- errors from results ------------------------------------------------ */

/* Status and message for a result that is not what was expected (res may be
 * NULL). A broken connection is PGCB_ERR_IO whatever the result says. */
static int pq_result_failure(struct pgcb_conn *c, const PGresult *res, char *err, size_t errlen)
{
    ExecStatusType st = PQresultStatus(res); /* PGRES_FATAL_ERROR for NULL */

    if (PQstatus(c->pg) == CONNECTION_BAD) {
        /* PQerrorMessage holds everything since the query was sent (the
         * server's FATAL, if any, then libpq's "server closed ..."). */
        pgcb_pq_err_oneline(err, errlen, NULL, PQerrorMessage(c->pg), NULL);
        if (!*err)
            pgcb_pq_err_result(err, errlen, res, c->pg);
        return PGCB_ERR_IO;
    }
    if (!res) {
        pgcb_pq_err_oneline(err, errlen, "libpq returned no result: ", PQerrorMessage(c->pg), NULL);
        return PGCB_ERR_NOMEM; /* libpq's documented reason when the link is fine */
    }
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        pgcb_pq_err_result(err, errlen, res, c->pg);
        return PGCB_ERR_QUERY;
    }
    /* PGRES_EMPTY_QUERY, COPY_*: not a query whose rows can be consumed. */
    pgcb_pq_errf(err, errlen, "unexpected result status %s", PQresStatus(st));
    return PGCB_ERR_UNSUPPORTED;
}

/* ---- prepare ------------------------------------------------------------ */

/* Drop server-side statement `name` after refusing it, so the name can be
 * used again. Best effort: a failure here changes nothing for the caller. */
static void pq_deallocate(struct pgcb_conn *c, const char *name)
{
    char *ident = PQescapeIdentifier(c->pg, name, strlen(name));
    char sql[600];

    if (!ident)
        return;
    if ((size_t)snprintf(sql, sizeof sql, "DEALLOCATE %s", ident) < sizeof sql)
        PQclear(PQexec(c->pg, sql));
    PQfreemem(ident);
}


static int pq_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                      struct pgcb_stmt **out, char *err, size_t errlen)
{
    PGresult *res;
    struct pgcb_stmt *st = NULL;
    int rc;

    *out = NULL;
    res = PQprepare(c->pg, name, sql, 0, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = pq_result_failure(c, res, err, errlen);
        PQclear(res);
        return rc;
    }
    PQclear(res);

    /* Column types once, here, rather than PQftype per value in run_batch:
     * the server guarantees a prepared statement's result types do not
     * change (else it fails with 0A000 "cached plan must not change result
     * type"). */
    res = PQdescribePrepared(c->pg, name);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        rc = pq_result_failure(c, res, err, errlen);
    else
        rc = pgcb_pq_stmt_new(name, res, c->result_format == PQ_FORMAT_BINARY, &st, err, errlen);
    PQclear(res);
    if (rc != PGCB_OK) {
        if (PQstatus(c->pg) == CONNECTION_OK)
            pq_deallocate(c, name);
        return rc;
    }
    st->next = c->stmts;
    c->stmts = st;
    *out = st;
    return PGCB_OK;
}

/* ---- run_batch, run_batch_params ---------------------------------------- */

#ifdef PGCB_PLANT_ITERS_PER_ROW
/* Planted regressions, for the A/B gate's tests and its power study only
 * (mk/fixtures.mk builds build/tests/fixtures/libpq_sync_plant.so with them;
 * never a shipped build; docs/regressions.md says how they were calibrated):
 *
 *  - per row: PGCB_PLANT_ITERS_PER_ROW steps of a dependent multiply-add per
 *    row received, extra client work the compiler cannot drop. The
 *    environment variable of the same name, when set to a number, overrides
 *    the count (the tests plant more, so that a short run shows it whatever
 *    the machine's noise).
 *  - proportional: with PGCB_PLANT_PCT=P in the environment (0 < P <= 1000),
 *    each batch, once its results are read, spins on the monotonic clock
 *    for P % of the time the batch took so far: the batch takes (1 + P/100)
 *    times as long as it would have, in every group and whatever the
 *    machine's speed at that moment -- a regression of exactly P % of the
 *    latency the runner measures (and the spin's CPU time on top of the
 *    client's). Read once, at the first batch. */
static void pq_plant(int rows)
{
    static volatile uint64_t sink;
    static long per_row = -1;
    if (per_row < 0) {
        const char *e = getenv("PGCB_PLANT_ITERS_PER_ROW");
        per_row = e && *e ? strtol(e, NULL, 10) : PGCB_PLANT_ITERS_PER_ROW;
        per_row = per_row < 0 ? 0 : per_row;
    }
    uint64_t x = sink;
    for (long i = 0; i < (long)rows * per_row; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

static uint64_t pq_plant_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* PGCB_PLANT_PCT as a fraction (0: none). */
static double pq_plant_fraction(void)
{
    static double f = -1;
    if (f < 0) {
        const char *e = getenv("PGCB_PLANT_PCT");
        double p = e && *e ? strtod(e, NULL) : 0;
        f = p > 0 && p <= 1000 ? p / 100 : 0;
    }
    return f;
}

/* The proportional plant: spin until (1 + fraction) x the time since t0. */
static void pq_plant_spin(uint64_t t0)
{
    double f = pq_plant_fraction();
    if (f <= 0)
        return;
    uint64_t now = pq_plant_now();
    uint64_t until = now + (uint64_t)((double)(now - t0) * f);
    while (pq_plant_now() < until)
        ;
}
#endif

/* Both operations: `p` NULL (run_batch) or the batch's parameters, query d
 * binding its own values (text format: paramFormats NULL). */
static int pq_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                               const struct pgcb_params *p, struct pgcb_sum *sum, char *err,
                               size_t errlen)
{
#ifdef PGCB_PLANT_ITERS_PER_ROW
    const uint64_t plant_t0 = pq_plant_now();
#endif
    const int np = pgcb_pq_nparams(p);
    int rc = pgcb_pq_params_reserve(&c->params, p, depth, err, errlen);

    if (rc != PGCB_OK)
        return rc;
    for (uint32_t d = 0; d < depth; d++) {
        const int *lengths;
        const char *const *values = pgcb_pq_params_query(&c->params, p, d, &lengths);
        PGresult *res = PQexecPrepared(c->pg, st->name, np, values, lengths, NULL,
                                       c->result_format);

        switch (PQresultStatus(res)) {
        case PGRES_TUPLES_OK:
            rc = pgcb_pq_fold_result(res, st, c->c_locale, sum, err, errlen);
#ifdef PGCB_PLANT_ITERS_PER_ROW
            pq_plant(PQntuples(res));
#endif
            break;
        case PGRES_COMMAND_OK: /* INSERT etc. without RETURNING: no rows */
            rc = PGCB_OK;
            break;
        default:
            rc = pq_result_failure(c, res, err, errlen);
            break;
        }
        PQclear(res);
        if (rc != PGCB_OK)
            return rc;
    }
#ifdef PGCB_PLANT_ITERS_PER_ROW
    pq_plant_spin(plant_t0);
#endif
    return PGCB_OK;
}

static int pq_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        struct pgcb_sum *sum, char *err, size_t errlen)
{
    return pq_run_batch_params(c, st, depth, NULL, sum, err, errlen);
}

/* ---- run_copy (ABI 1.4) ------------------------------------------------- */

/* PQexec-style COPY on the blocking connection (pq_copy.c). */
static int pq_run_copy(struct pgcb_conn *c, const struct pgcb_copy *copy, uint64_t *rows,
                       char *err, size_t errlen)
{
    return pgcb_pq_copy(c->pg, copy, rows, err, errlen);
}

/* ---- run_stream (ABI 1.6) ----------------------------------------------- */

/* Buffered: libpq's one PGresult of every row, as PQexecPrepared holds it;
 * streamed: single-row mode (pq_stream.c). libpq 15 has no chunked rows
 * (PQsetChunkedRowsMode is libpq 17's). */
static int pq_run_stream(struct pgcb_conn *c, const struct pgcb_stream *s,
                         struct pgcb_stream_out *out, char *err, size_t errlen)
{
    return pgcb_pq_stream(c->pg, s->stmt, s->params, &c->params, c->result_format, s->mode,
                          c->c_locale, NULL, NULL, out, err, errlen);
}

/* ---- descriptor --------------------------------------------------------- */

/* ABI 1.3: libpq sends Bind, Describe (portal), Execute and Sync with every
 * PQexecPrepared; the statement is named, parsed once at prepare. */
static int pq_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                       char *err, size_t errlen)
{
    int format, rc = pq_parse_options(opts, nopts, &format, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    *out = (struct pgcb_protocol){
        .result_format = format == PQ_FORMAT_BINARY ? PGCB_FORMAT_BINARY : PGCB_FORMAT_TEXT,
        .describe = PGCB_DESCRIBE_PER_EXECUTION,
        .sync = PGCB_SYNC_PER_QUERY,
        .statements = PGCB_STMT_NAMED,
    };
    return PGCB_OK;
}

static char pq_links[32]; /* "libpq X.Y", written once by pq_links_init */
static pthread_once_t pq_links_once = PTHREAD_ONCE_INIT;

static void pq_links_init(void)
{
    int v = PQlibVersion(); /* 150018 for 15.18; 90624 for 9.6.24 */

    if (v >= 100000)
        snprintf(pq_links, sizeof pq_links, "libpq %d.%d", v / 10000, v % 10000);
    else
        snprintf(pq_links, sizeof pq_links, "libpq %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

static const struct pgcb_driver pq_driver = {
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    .caps = 0,
    .name = "libpq_sync",
    .version = "1.0.0",
    .links = pq_links,
    .description = "libpq, synchronous: one PQexecPrepared at a time, whole result buffered",
    .options = pq_options,
    .open = pq_open,
    .close = pq_close,
    .prepare = pq_prepare,
    .run_batch = pq_run_batch,
    .run_batch_params = pq_run_batch_params,
    .protocol = pq_protocol,
    .run_copy = pq_run_copy,
    .run_stream = pq_run_stream,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    pthread_once(&pq_links_once, pq_links_init);
    return &pq_driver;
}
