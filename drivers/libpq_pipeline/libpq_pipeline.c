/*
 * libpq_pipeline.c -- the "libpq_pipeline" driver: libpq's pipeline mode
 * (libpq 14+, PQsendFlushRequest 15+) on a non-blocking connection, up to
 * `depth` executions of a prepared statement in flight at once (caps
 * PGCB_CAP_PIPELINE).
 *
 * Options:
 *   sync          per_query (default): a PQpipelineSync after every query,
 *                 so a failing query aborts only itself; per_batch: one sync
 *                 at the end of the batch, a failing query aborts the rest.
 *   max_in_flight queries sent but not yet completely read, at most (1000;
 *                 1..1000000). A batch deeper than that refills the window as
 *                 results come back.
 *   result_format text | binary, as libpq_sync.
 *
 * Values are folded by lib/pqutil's pq_fold.c (include/pgcb/value.h), as
 * libpq_sync folds them, with the same per-column kinds learnt at prepare
 * time, so both drivers produce identical checksums. Both link the static
 * library lib/pqutil: one source, a hidden copy in each .so, so the two
 * never share symbols.
 *
 * I/O: the connection is non-blocking, so PQsend* only queue (libpq writes
 * out whole 8 kB chunks as they fill; before libpq 17, which has
 * PQsendPipelineSync, PQpipelineSync also flushes, so sync = per_query costs
 * one send() per query). run_batch queues the whole window, then loops:
 * PQflush; parse and fold every result
 * that is complete (PQisBusy false); when nothing more can be done, poll()
 * the socket for POLLIN always and POLLOUT too while PQflush has output
 * pending, and PQconsumeInput when readable. Reading while writing is what
 * makes any depth and any result size safe: the server, blocked writing
 * results we do not read, would otherwise stop reading the queries we are
 * blocked writing.
 *
 * Result sequence in pipeline mode, per query: one result (PGRES_TUPLES_OK,
 * PGRES_COMMAND_OK, PGRES_FATAL_ERROR or, after an error earlier in the same
 * sync segment, PGRES_PIPELINE_ABORTED), then a NULL; per sync: one
 * PGRES_PIPELINE_SYNC (no NULL). run_batch counts both and checks the order.
 *
 * Pools (ABI 1.5, pp_pool.c): N such connections in one thread on
 * lib/pgload's epoll loop, one query in flight on each (PQsendQueryPrepared
 * + PQpipelineSync: the bytes libpq_sync sends), PQconsumeInput when its
 * socket is readable.
 *
 * Ownership: a struct pgcb_conn owns its PGconn, its "C" locale, its
 * statements and its parameter scratch; close() frees them. run_batch
 * allocates nothing itself (run_batch_params: only when a batch has a
 * query larger than any before); libpq allocates each PGresult,
 * PQclear()ed as soon as it is folded.
 */
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include "pqutil/pq_copy.h"
#include "pqutil/pq_errmsg.h"
#include "pqutil/pq_fold.h"
#include "pqutil/pq_params.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

#include "pp_int.h"

/* ---- options ------------------------------------------------------------ */

static const struct pgcb_option_spec pp_options[] = {
    {"sync", "per_query",
     "per_query: a sync after every query (an error aborts only that query) | per_batch: one per batch"},
    {"max_in_flight", "1000", "queries sent but not yet read, at most: 1..1000000"},
    {"result_format", "text", "result format asked of the server: text | binary"},
    {NULL, NULL, NULL},
};

/* A decimal integer in [1, PP_MAX_IN_FLIGHT_LIMIT]: digits only. */
static int pp_parse_count(const char *v, uint32_t *out)
{
    uint32_t n = 0;

    if (!*v)
        return -1;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (uint32_t)(*p - '0');
        if (n > PP_MAX_IN_FLIGHT_LIMIT)
            return -1;
    }
    if (n < 1)
        return -1;
    *out = n;
    return 0;
}

static int pp_parse_options(struct pgcb_conn *c, const struct pgcb_option *opts, size_t nopts,
                            char *err, size_t errlen)
{
    c->result_format = PQ_FORMAT_TEXT;
    c->sync_per_query = 1;
    c->max_in_flight = PP_MAX_IN_FLIGHT_DEFAULT;
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key ? opts[i].key : "", *v = opts[i].value ? opts[i].value : "";
        if (strcmp(k, "result_format") == 0) {
            if (strcmp(v, "text") == 0)
                c->result_format = PQ_FORMAT_TEXT;
            else if (strcmp(v, "binary") == 0)
                c->result_format = PQ_FORMAT_BINARY;
            else
                goto bad_value;
        } else if (strcmp(k, "sync") == 0) {
            if (strcmp(v, "per_query") == 0)
                c->sync_per_query = 1;
            else if (strcmp(v, "per_batch") == 0)
                c->sync_per_query = 0;
            else
                goto bad_value;
        } else if (strcmp(k, "max_in_flight") == 0) {
            if (pp_parse_count(v, &c->max_in_flight))
                goto bad_value;
        } else {
            pgcb_pq_errf(err, errlen,
                         "unknown option \"%s\" (= \"%s\"); libpq_pipeline knows sync, "
                         "max_in_flight and result_format", k, v);
            return PGCB_ERR_CONFIG;
        }
        continue;
    bad_value:
        pgcb_pq_errf(err, errlen, "%s = \"%s\": expected %s", k, v,
                     strcmp(k, "sync") == 0            ? "per_query or per_batch"
                     : strcmp(k, "max_in_flight") == 0 ? "an integer from 1 to 1000000"
                                                       : "text or binary");
        return PGCB_ERR_CONFIG;
    }
    return PGCB_OK;
}

/* ---- open / close ------------------------------------------------------- */

void pp_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    PQfinish(c->pg); /* accepts NULL */
    pgcb_pq_stmts_free(c->stmts);
    pgcb_pq_params_free(&c->params);
    if (c->c_locale)
        freelocale(c->c_locale);
    free(c);
}

int pp_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                   struct pgcb_conn **out, char *err, size_t errlen)
{
    struct pgcb_conn *c;
    int rc;

    *out = NULL;
    if (!conninfo)
        conninfo = "";
    c = calloc(1, sizeof *c);
    if (!c) {
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    if ((rc = pp_parse_options(c, opts, nopts, err, errlen)) != PGCB_OK ||
        (rc = pgcb_pq_check_conninfo(conninfo, err, errlen)) != PGCB_OK) {
        pp_close(c);
        return rc;
    }
    if (!(c->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
        pp_close(c);
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    c->pg = PQconnectdb(conninfo); /* "" = PG* variables + defaults, as libpq does */
    if (!c->pg) {
        pp_close(c);
        pgcb_pq_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    if (PQstatus(c->pg) != CONNECTION_OK) {
        /* PQpass: the password in use (conninfo, PGPASSWORD or passfile). */
        pgcb_pq_err_oneline(err, errlen, NULL, PQerrorMessage(c->pg), PQpass(c->pg));
        pp_close(c);
        return PGCB_ERR_CONNECT;
    }
    PQsetNoticeProcessor(c->pg, pgcb_pq_ignore_notice, NULL);
    c->sock = PQsocket(c->pg);
    if (PQsetnonblocking(c->pg, 1) != 0 || !PQenterPipelineMode(c->pg)) {
        pgcb_pq_err_oneline(err, errlen, "cannot enter non-blocking pipeline mode: ",
                            PQerrorMessage(c->pg), PQpass(c->pg));
        pp_close(c);
        return PGCB_ERR_CONNECT;
    }
    *out = c;
    return PGCB_OK;
}

/* ---- waiting ------------------------------------------------------------ */

/* The connection broke (or could not be used): PGCB_ERR_IO and libpq's
 * message, one line, after `prefix`. PQerrorMessage holds what libpq
 * collected since the pipeline was last idle (a server FATAL, then
 * "server closed the connection unexpectedly"). */
int pp_io_failure(struct pgcb_conn *c, const char *prefix, char *err, size_t errlen)
{
    const char *msg = PQerrorMessage(c->pg);

    pgcb_pq_err_oneline(err, errlen, prefix,
                        msg && *msg ? msg : "connection to the server lost", NULL);
    return PGCB_ERR_IO;
}

/* Block until the socket is readable, or writable when `want_write` (output
 * pending after PQflush returned 1), then read whatever arrived. Always waits
 * for POLLIN too: see the top of the file. */
static int pp_wait(struct pgcb_conn *c, int want_write, char *err, size_t errlen)
{
    struct pollfd p = {.fd = c->sock, .events = (short)(POLLIN | (want_write ? POLLOUT : 0))};
    int n;

    while ((n = poll(&p, 1, -1)) < 0) {
        if (errno != EINTR) {
            pgcb_pq_errf(err, errlen, "poll on the connection's socket: %s", strerror(errno));
            return PGCB_ERR_IO;
        }
    }
    if (p.revents & POLLNVAL) {
        pgcb_pq_errf(err, errlen, "the connection's socket is no longer open");
        return PGCB_ERR_IO;
    }
    /* POLLERR / POLLHUP: let libpq read, it finds the error or the EOF. */
    if ((p.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput(c->pg))
        return pp_io_failure(c, NULL, err, errlen);
    return PGCB_OK;
}

/* The next result, waiting for it (prepare only: not the timed path). */
static int pp_next_result(struct pgcb_conn *c, PGresult **out, char *err, size_t errlen)
{
    for (;;) {
        int f = PQflush(c->pg);
        if (f < 0 || PQstatus(c->pg) == CONNECTION_BAD)
            return pp_io_failure(c, NULL, err, errlen);
        if (!PQisBusy(c->pg)) {
            if (PQstatus(c->pg) == CONNECTION_BAD)
                return pp_io_failure(c, NULL, err, errlen);
            *out = PQgetResult(c->pg);
            return PGCB_OK;
        }
        int rc = pp_wait(c, f == 1, err, errlen);
        if (rc != PGCB_OK)
            return rc;
    }
}

/* Read the results of one queued segment up to and including its
 * PGRES_PIPELINE_SYNC. The first `nkeep` non-NULL results are stored in
 * keep[] (owned by the caller, who PQclear()s them; unset entries NULL); the
 * others are cleared. */
static int pp_read_segment(struct pgcb_conn *c, PGresult **keep, int nkeep, char *err,
                           size_t errlen)
{
    int nres = 0, nnull = 0;

    for (int i = 0; i < nkeep; i++)
        keep[i] = NULL;
    for (;;) {
        PGresult *res;
        int rc = pp_next_result(c, &res, err, errlen);
        if (rc != PGCB_OK)
            return rc;
        if (!res) {
            if (++nnull > nres) { /* at most one NULL after each result */
                pgcb_pq_errf(err, errlen, "libpq returned no result where one was due: %s",
                             PQerrorMessage(c->pg));
                return PGCB_ERR_PROTOCOL;
            }
            continue;
        }
        if (PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            return PGCB_OK;
        }
        if (nres < nkeep)
            keep[nres] = res;
        else
            PQclear(res);
        nres++;
    }
}

/* ---- errors from results ------------------------------------------------ */

/* Status and message for a result that is not what was expected (res may be
 * NULL). A broken connection is PGCB_ERR_IO whatever the result says. */
int pp_result_failure(struct pgcb_conn *c, const PGresult *res, char *err, size_t errlen)
{
    ExecStatusType st = PQresultStatus(res); /* PGRES_FATAL_ERROR for NULL */

    if (PQstatus(c->pg) == CONNECTION_BAD)
        return pp_io_failure(c, NULL, err, errlen);
    if (!res) {
        pgcb_pq_err_oneline(err, errlen, "libpq returned no result: ", PQerrorMessage(c->pg), NULL);
        return PGCB_ERR_PROTOCOL;
    }
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        pgcb_pq_err_result(err, errlen, res, c->pg);
        return PGCB_ERR_QUERY;
    }
    pgcb_pq_errf(err, errlen, "unexpected result status %s", PQresStatus(st));
    return PGCB_ERR_UNSUPPORTED;
}

/* ---- prepare ------------------------------------------------------------ */

/* Drop server-side statement `name` after refusing it, so the name can be
 * used again. Best effort. DEALLOCATE through the extended protocol: the
 * simple protocol (PQsendQuery) is not allowed in pipeline mode, and
 * PQsendClosePrepared is libpq 17. */
static void pp_deallocate(struct pgcb_conn *c, const char *name)
{
    char *ident = PQescapeIdentifier(c->pg, name, strlen(name));
    char sql[600], err[PGCB_ERRLEN];

    if (!ident)
        return;
    if ((size_t)snprintf(sql, sizeof sql, "DEALLOCATE %s", ident) < sizeof sql &&
        PQsendQueryParams(c->pg, sql, 0, NULL, NULL, NULL, NULL, 0) && PQpipelineSync(c->pg))
        pp_read_segment(c, NULL, 0, err, sizeof err);
    PQfreemem(ident);
}


/* Parse + Describe + Sync in one round trip; the column types are learnt
 * once, here (the server guarantees a prepared statement's result types do
 * not change: 0A000 "cached plan must not change result type"). */
int pp_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                      struct pgcb_stmt **out, char *err, size_t errlen)
{
    PGresult *r[2]; /* the Parse's result, the Describe's */
    struct pgcb_stmt *st = NULL;
    int rc;

    *out = NULL;
    if (PQstatus(c->pg) == CONNECTION_BAD)
        return pp_io_failure(c, NULL, err, errlen);
    if (!PQsendPrepare(c->pg, name, sql, 0, NULL) || !PQsendDescribePrepared(c->pg, name) ||
        !PQpipelineSync(c->pg))
        return pp_io_failure(c, "cannot send the statement: ", err, errlen);
    if ((rc = pp_read_segment(c, r, 2, err, errlen)) != PGCB_OK)
        goto out;

    if (PQresultStatus(r[0]) != PGRES_COMMAND_OK) {
        rc = pp_result_failure(c, r[0], err, errlen);
        goto out; /* nothing was prepared */
    }
    if (PQresultStatus(r[1]) != PGRES_COMMAND_OK)
        rc = pp_result_failure(c, r[1], err, errlen);
    else
        rc = pgcb_pq_stmt_new(name, r[1], c->result_format == PQ_FORMAT_BINARY, &st, err, errlen);
    if (rc != PGCB_OK) {
        if (PQstatus(c->pg) == CONNECTION_OK)
            pp_deallocate(c, name);
        goto out;
    }
    st->next = c->stmts;
    c->stmts = st;
    *out = st;
out:
    PQclear(r[0]);
    PQclear(r[1]);
    return rc;
}

/* ---- run_batch, run_batch_params ---------------------------------------- */


/* err = `msg` + " (query i of n)", the suffix kept whole however long msg
 * is: the ABI wants err to start with the SQLSTATE for PGCB_ERR_QUERY. */
static void pp_add_query_index(char *err, size_t errlen, uint32_t i, uint32_t n)
{
    char suffix[48];
    int k = snprintf(suffix, sizeof suffix, " (query %u of %u)", i, n);
    size_t len = strlen(err);

    if (k <= 0 || (size_t)k >= errlen)
        return;
    if (len + (size_t)k >= errlen) {
        len = errlen - 1 - (size_t)k;
        while (len > 0 && ((unsigned char)err[len] & 0xc0) == 0x80)
            len--; /* do not cut a UTF-8 sequence */
    }
    memcpy(err + len, suffix, (size_t)k + 1);
}

/* One batch: see the top of the file for the I/O loop.
 *
 * Counters: `sent` queries queued; `got` of them have delivered their result
 * (the index of the next result is got + 1); `done` of them are complete
 * (their terminating NULL read), so sent - done are in flight; syncs_sent /
 * syncs_got likewise for PQpipelineSync. The batch is over when every query
 * that will be sent is done and every sync sent has come back: the
 * connection is then idle in pipeline mode, ready for the next batch, even
 * after a query error.
 *
 * Both operations: `p` NULL (run_batch) or the batch's parameters, query i
 * binding its own values in text format. libpq copies them into its output
 * buffer as each query is queued, so one query's NUL-terminated copies
 * (pq_params.c) at a time are enough. */
static int pp_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                               const struct pgcb_params *p, struct pgcb_sum *sum, char *err,
                               size_t errlen)
{
    PGconn *const pg = c->pg;
    const int np = pgcb_pq_nparams(p);
    const uint32_t window = depth < c->max_in_flight ? depth : c->max_in_flight;
    const int per_query = c->sync_per_query;
    uint32_t sent = 0, got = 0, done = 0, syncs_sent = 0, syncs_got = 0;
    int want_null = 0;   /* a query's result was read: its NULL comes next */
    int stop = 0;        /* send no more queries: per_batch after an error, or a value refused */
    int value_rc = PGCB_OK; /* the first value refused (pgcb_pq_fold_result), once the sum is lost */
    int rc = PGCB_OK;    /* the first failure, reported after draining */
    int f;

    if (depth == 0)
        return PGCB_OK; /* the ABI says depth >= 1; nothing to do anyway */
    if (PQstatus(pg) != CONNECTION_OK)
        return pp_io_failure(c, "connection not usable: ", err, errlen);
    if ((rc = pgcb_pq_params_reserve(&c->params, p, depth, err, errlen)) != PGCB_OK)
        return rc; /* nothing sent */

    for (;;) {
        /* Queue what the window allows: one write at the PQflush below
         * (libpq writes 8 kB chunks itself as they fill; in libpq < 17 each
         * PQpipelineSync also flushes). */
        if (!stop && sent < depth && sent - done < window) {
            do {
                const int *lengths;
                const char *const *values = pgcb_pq_params_query(&c->params, p, sent, &lengths);
                if (!PQsendQueryPrepared(pg, st->name, np, values, lengths, NULL,
                                         c->result_format))
                    goto send_failed;
                sent++;
                if (per_query) {
                    if (!PQpipelineSync(pg))
                        goto send_failed;
                    syncs_sent++;
                }
            } while (sent < depth && sent - done < window);
            /* per_batch, window full before the end: the server only
             * flushes its output at a Sync or when asked to. */
            if (!per_query && sent < depth && !PQsendFlushRequest(pg))
                goto send_failed;
        }
        if (!per_query && syncs_sent == 0 && (sent == depth || stop)) {
            if (!PQpipelineSync(pg))
                goto send_failed;
            syncs_sent = 1;
        }

        if ((f = PQflush(pg)) < 0)
            goto broken;

        /* Everything libpq has complete, in order. */
        while ((want_null || got < sent || syncs_got < syncs_sent) && !PQisBusy(pg)) {
            if (PQstatus(pg) == CONNECTION_BAD)
                goto broken;
            PGresult *res = PQgetResult(pg);
            if (!res) {
                if (!want_null)
                    goto out_of_order;
                want_null = 0;
                done++;
                continue;
            }
            ExecStatusType s = PQresultStatus(res);
            if (s == PGRES_PIPELINE_SYNC) {
                PQclear(res);
                if (want_null || syncs_got == syncs_sent)
                    goto out_of_order;
                syncs_got++;
                continue;
            }
            if (want_null || got == sent) {
                PQclear(res);
                goto out_of_order;
            }
            got++;
            want_null = 1;
            switch (s) {
            case PGRES_TUPLES_OK: {
                /* Also after another query failed (sync = per_query): its
                 * rows are read and folded like any. */
                if (value_rc != PGCB_OK)
                    break; /* a value refused before: the sum is lost, drain */
                int frc = pgcb_pq_fold_result(res, st, c->c_locale, sum, err, errlen);
                if (frc != PGCB_OK) {
                    /* a value that does not convert (PROTOCOL, UNSUPPORTED;
                     * the result itself was whole): it overrides an earlier
                     * QUERY error; nothing more is sent, what was is read,
                     * so that the connection stays usable */
                    pp_add_query_index(err, errlen, got, depth);
                    rc = value_rc = frc;
                    stop = 1;
                }
                break;
            }
            case PGRES_COMMAND_OK: /* INSERT etc. without RETURNING: no rows */
                break;
            case PGRES_PIPELINE_ABORTED:
                if (rc == PGCB_OK) { /* cannot happen without an error first */
                    pgcb_pq_errf(err, errlen, "query aborted by the server");
                    pp_add_query_index(err, errlen, got, depth);
                    rc = PGCB_ERR_QUERY;
                }
                break;
            default:
                if (PQstatus(pg) == CONNECTION_BAD) {
                    PQclear(res);
                    goto broken;
                }
                if (s == PGRES_COPY_IN || s == PGRES_COPY_OUT || s == PGRES_COPY_BOTH) {
                    PQclear(res);
                    pgcb_pq_errf(err, errlen, "query %u of %u started a COPY, which a "
                                 "pipelined prepared statement cannot run", got, depth);
                    return PGCB_ERR_PROTOCOL;
                }
                if (rc == PGCB_OK) {
                    rc = pp_result_failure(c, res, err, errlen);
                    pp_add_query_index(err, errlen, got, depth);
                }
                if (!per_query)
                    stop = 1;
                break;
            }
            PQclear(res);
        }
        if (PQstatus(pg) == CONNECTION_BAD)
            goto broken;

        if (!stop && sent < depth && sent - done < window)
            continue; /* room in the window: queue more before waiting */
        if (!per_query && syncs_sent == 0 && stop)
            continue; /* per_batch, stopped by an error: send the sync */
        /* Here the window is full, or every query is sent (or none more will
         * be), with their syncs: done == sent means the latter. */
        if (done == sent && syncs_got == syncs_sent)
            return rc;
        if (pp_wait(c, f == 1, err, errlen) != PGCB_OK) {
            if (PQstatus(pg) == CONNECTION_BAD)
                goto broken;
            return PGCB_ERR_IO; /* poll() failed: err says why */
        }
    }

send_failed:
    if (PQstatus(pg) != CONNECTION_BAD) {
        /* Not a broken link (out of memory in libpq?), but the pipeline's
         * state is unknown: the connection cannot be used again. */
        char msg[PGCB_ERRLEN / 2];
        pgcb_pq_err_oneline(msg, sizeof msg, NULL, PQerrorMessage(pg), NULL);
        pgcb_pq_errf(err, errlen, "cannot queue query %u of %u: %s", sent + 1, depth, msg);
        return PGCB_ERR_IO;
    }
    /* fall through */
broken: {
        char prefix[80];
        /* Parse what the server sent before it closed (its FATAL, if any):
         * libpq appends a server error to PQerrorMessage as it parses it. */
        (void)PQisBusy(pg);
        snprintf(prefix, sizeof prefix, "connection lost after %u of %u queries were read: ", got,
                 depth);
        return pp_io_failure(c, prefix, err, errlen);
    }
out_of_order:
    pgcb_pq_errf(err, errlen, "libpq returned results out of pipeline order after query %u of %u "
                              "(%u sent, %u syncs of %u back)", got, depth, sent, syncs_got,
                 syncs_sent);
    return PGCB_ERR_PROTOCOL;
}

static int pp_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        struct pgcb_sum *sum, char *err, size_t errlen)
{
    return pp_run_batch_params(c, st, depth, NULL, sum, err, errlen);
}

/* ---- descriptor --------------------------------------------------------- */

/* ABI 1.3: libpq's PQsendQueryPrepared sends Bind, Describe (portal) and
 * Execute with every query; a Sync after each (sync = per_query) or one per
 * batch (PQpipelineSync); named statements, parsed once at prepare. */
static int pp_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                       char *err, size_t errlen)
{
    struct pgcb_conn c;
    memset(&c, 0, sizeof c);
    int rc = pp_parse_options(&c, opts, nopts, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    *out = (struct pgcb_protocol){
        .result_format = c.result_format == PQ_FORMAT_BINARY ? PGCB_FORMAT_BINARY
                                                             : PGCB_FORMAT_TEXT,
        .describe = PGCB_DESCRIBE_PER_EXECUTION,
        .sync = c.sync_per_query ? PGCB_SYNC_PER_QUERY : PGCB_SYNC_PER_BATCH,
        .statements = PGCB_STMT_NAMED,
    };
    return PGCB_OK;
}

/* ---- run_copy (ABI 1.4) ------------------------------------------------- */

/* libpq refuses COPY in pipeline mode: between batches (no result pending)
 * the connection leaves pipeline mode and non-blocking mode, runs the COPY
 * as libpq_sync does (pq_copy.c), and goes back. The round trip is the same
 * as libpq_sync's; what differs is the two mode switches, which send
 * nothing. */
static int pp_run_copy(struct pgcb_conn *c, const struct pgcb_copy *copy, uint64_t *rows,
                       char *err, size_t errlen)
{
    *rows = 0;
    if (!PQexitPipelineMode(c->pg) || PQsetnonblocking(c->pg, 0) != 0)
        return pp_io_failure(c, "cannot leave pipeline mode for COPY: ", err, errlen);
    int rc = pgcb_pq_copy(c->pg, copy, rows, err, errlen);
    if (rc == PGCB_ERR_IO)
        return rc;
    if (PQsetnonblocking(c->pg, 1) != 0 || !PQenterPipelineMode(c->pg))
        return pp_io_failure(c, "cannot enter pipeline mode again after COPY: ", err, errlen);
    return rc;
}

static char pp_links[32]; /* "libpq X.Y", written once by pp_links_init */
static pthread_once_t pp_links_once = PTHREAD_ONCE_INIT;

static void pp_links_init(void)
{
    int v = PQlibVersion(); /* 150018 for 15.18; 90624 for 9.6.24 */

    if (v >= 100000)
        snprintf(pp_links, sizeof pp_links, "libpq %d.%d", v / 10000, v % 10000);
    else
        snprintf(pp_links, sizeof pp_links, "libpq %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

static const struct pgcb_driver pp_driver = {
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    .caps = PGCB_CAP_PIPELINE,
    .name = "libpq_pipeline",
    .version = "1.0.0",
    .links = pp_links,
    .description = "libpq pipeline mode, non-blocking: up to depth queries in flight on one connection",
    .options = pp_options,
    .open = pp_open,
    .close = pp_pool_close,
    .prepare = pp_pool_prepare,
    .run_batch = pp_run_batch,
    .run_batch_params = pp_run_batch_params,
    .protocol = pp_protocol,
    .run_copy = pp_run_copy,
    .pool_open = pp_pool_open,
    .run_load = pp_pool_run_load,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    pthread_once(&pp_links_once, pp_links_init);
    return &pp_driver;
}
