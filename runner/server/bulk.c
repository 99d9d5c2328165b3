/* bulk.c -- see bulk.h. */
#include "bulk.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "config/config.h"
#include "pqutil/pq_errmsg.h"
#include "util.h"

int pgcb_bulk_valid_table(const char *s)
{
    size_t n = strlen(s), dots = 0;
    if (n == 0 || n > 127)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        int start = i == 0 || s[i - 1] == '.';
        if (ch == '.') {
            if (start || i + 1 == n || ++dots > 1)
                return 0;
        } else if (!(isalnum(ch) || ch == '_') || (start && isdigit(ch))) {
            return 0;
        }
    }
    return 1;
}

int pgcb_bulk_needed(const struct pgcb_config *cfg)
{
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (cfg->queries[i].copy || cfg->queries[i].params_from)
            return 1;
    return 0;
}

void pgcb_bulk_free(struct pgcb_bulk *b)
{
    if (!b)
        return;
    free(b->copy_sql);
    free(b->payload);
    free(b->source_sql);
    free(b->read_back_sql);
    free(b->truncate_sql);
    free(b->values);
    free(b->lengths);
    free(b->arena);
    free(b);
}

/* "FILE:LINE: [query.NAME] KEY: " then the rest. */
static void bulk_err(char *err, size_t errlen, const struct pgcb_config *cfg,
                     const struct pgcb_cfg_query *q, int line, const char *key, const char *msg)
{
    snprintf(err, errlen, "%s:%d: [query.%s] %s: %s", cfg->file, line ? line : q->line, q->name,
             key, msg);
}

/* The result columns of `sql` (described, not run) as a quoted, comma
 * separated list: new string, or NULL with the server's message in why. */
static char *source_columns(PGconn *pg, const char *sql, char *why, size_t n)
{
    PGresult *res = PQprepare(pg, "", sql, 0, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        pgcb_pq_err_result(why, n, res, pg);
        PQclear(res);
        return NULL;
    }
    PQclear(res);
    res = PQdescribePrepared(pg, "");
    if (PQresultStatus(res) != PGRES_COMMAND_OK || PQnfields(res) == 0) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            pgcb_pq_err_result(why, n, res, pg);
        else
            snprintf(why, n, "returns no columns");
        PQclear(res);
        return NULL;
    }
    size_t cap = 1, len = 0;
    char *cols = pgcb_xmalloc(cap);
    cols[0] = '\0';
    for (int j = 0; j < PQnfields(res); j++) {
        const char *name = PQfname(res, j);
        char *id = PQescapeIdentifier(pg, name, strlen(name));
        if (!id) {
            pgcb_pq_err_oneline(why, n, NULL, PQerrorMessage(pg), NULL);
            free(cols);
            PQclear(res);
            return NULL;
        }
        size_t add = strlen(id) + 2;
        cols = pgcb_xrealloc(cols, cap += add);
        len += (size_t)snprintf(cols + len, cap - len, "%s%s", j ? ", " : "", id);
        PQfreemem(id);
    }
    PQclear(res);
    return cols;
}

/* COPY (source) TO STDOUT: the payload and its row count. 0, or -1 with why. */
static int fetch_payload(PGconn *pg, const struct pgcb_cfg_query *q, struct pgcb_bulk *b,
                         char *why, size_t n)
{
    const char *fmt = q->copy_format == PGCB_COPY_BINARY ? "binary" : "text";
    char *sql = pgcb_xasprintf("COPY (%s) TO STDOUT (FORMAT %s)", q->copy_from, fmt);
    PGresult *res = PQexec(pg, sql);
    free(sql);
    if (PQresultStatus(res) != PGRES_COPY_OUT) {
        pgcb_pq_err_result(why, n, res, pg);
        PQclear(res);
        return -1;
    }
    PQclear(res);
    size_t cap = 1 << 16;
    b->payload = pgcb_xmalloc(cap);
    b->len = 0;
    char *buf;
    int got;
    while ((got = PQgetCopyData(pg, &buf, 0)) > 0) {
        if (b->len + (size_t)got > cap) {
            while (b->len + (size_t)got > cap)
                cap *= 2;
            b->payload = pgcb_xrealloc(b->payload, cap);
        }
        memcpy(b->payload + b->len, buf, (size_t)got);
        b->len += (size_t)got;
        PQfreemem(buf);
    }
    int rc = 0;
    if (got == -2) {
        pgcb_pq_err_oneline(why, n, NULL, PQerrorMessage(pg), NULL);
        rc = -1;
    }
    while ((res = PQgetResult(pg)) != NULL) {
        if (PQresultStatus(res) == PGRES_COMMAND_OK)
            b->rows = strtoull(PQcmdTuples(res), NULL, 10);
        else if (rc == 0) {
            pgcb_pq_err_result(why, n, res, pg);
            rc = -1;
        }
        PQclear(res);
    }
    return rc;
}

/* The rows of params_from in text format, copied into b's arrays. */
static int fetch_rows(PGconn *pg, const struct pgcb_cfg_query *q, struct pgcb_bulk *b, char *why,
                      size_t n)
{
    PGresult *res = PQexec(pg, q->params_from);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        pgcb_pq_err_result(why, n, res, pg);
        PQclear(res);
        return -1;
    }
    size_t nrows = (size_t)PQntuples(res), ncols = (size_t)PQnfields(res), bytes = 0;
    if (ncols > PGCB_MAX_PARAMS) {
        snprintf(why, n, "%zu columns: a query takes at most %d parameters", ncols,
                 PGCB_MAX_PARAMS);
        PQclear(res);
        return -1;
    }
    for (size_t r = 0; r < nrows; r++)
        for (size_t j = 0; j < ncols; j++)
            bytes += (size_t)PQgetlength(res, (int)r, (int)j) + 1;
    b->values = pgcb_xcalloc(nrows * ncols + 1, sizeof *b->values);
    b->lengths = pgcb_xcalloc(nrows * ncols + 1, sizeof *b->lengths);
    b->arena = pgcb_xmalloc(bytes + 1);
    char *p = b->arena;
    for (size_t r = 0; r < nrows; r++)
        for (size_t j = 0; j < ncols; j++) {
            size_t k = r * ncols + j;
            if (PQgetisnull(res, (int)r, (int)j))
                continue; /* values[k] NULL: SQL NULL */
            int len = PQgetlength(res, (int)r, (int)j);
            memcpy(p, PQgetvalue(res, (int)r, (int)j), (size_t)len + 1);
            b->values[k] = p;
            b->lengths[k] = len;
            p += len + 1;
        }
    PQclear(res);
    b->rows_view = (struct pgcb_gen_rows){nrows, ncols, b->values, b->lengths};
    b->rows = nrows;
    return 0;
}

/* Everything for query q. 0, or -1 with err. */
static int fetch_query(PGconn *pg, struct pgcb_config *cfg, struct pgcb_cfg_query *q, char *err,
                       size_t errlen)
{
    char why[PGCB_ERRLEN];
    const char *key = q->copy ? "copy_from" : "params_from";
    int line = q->copy ? q->copy_line : q->params_from_line;
    const char *table = q->copy ? q->copy : q->read_back;
    struct pgcb_bulk *b = pgcb_xcalloc(1, sizeof *b);
    q->bulk = b;
    b->is_copy = q->copy != NULL;
    b->source_sql = pgcb_xstrdup(q->copy ? q->copy_from : q->params_from);
    char *cols = source_columns(pg, b->source_sql, why, sizeof why);
    if (!cols) {
        bulk_err(err, errlen, cfg, q, line, key, why);
        return -1;
    }
    if (table) {
        b->read_back_sql = pgcb_xasprintf("SELECT %s FROM %s ORDER BY 1", cols, table);
        b->truncate_sql = pgcb_xasprintf("TRUNCATE %s", table);
    }
    if (q->copy) {
        b->copy_sql = pgcb_xasprintf("COPY %s (%s) FROM STDIN (FORMAT %s)", q->copy, cols,
                                     q->copy_format == PGCB_COPY_BINARY ? "binary" : "text");
        free(cols);
        if (fetch_payload(pg, q, b, why, sizeof why) != 0) {
            bulk_err(err, errlen, cfg, q, line, key, why);
            return -1;
        }
        free(q->sql);
        q->sql = pgcb_xstrdup(b->copy_sql);
    } else {
        free(cols);
        if (fetch_rows(pg, q, b, why, sizeof why) != 0) {
            bulk_err(err, errlen, cfg, q, line, key, why);
            return -1;
        }
        q->nparams = b->rows_view.ncols;
        q->params = pgcb_xcalloc(q->nparams, sizeof *q->params);
        for (size_t j = 0; j < q->nparams; j++)
            q->params[j] = (struct pgcb_gen){.kind = PGCB_GEN_ROWS, .a = (int64_t)j,
                                             .rows = &b->rows_view};
    }
    if (b->rows == 0) {
        bulk_err(err, errlen, cfg, q, line, key, "returns no rows: nothing to write");
        return -1;
    }
    if (q->copy && q->rows >= 0 && (uint64_t)q->rows != b->rows) {
        snprintf(why, sizeof why, "gives %llu rows, but the section says rows = %lld",
                 (unsigned long long)b->rows, (long long)q->rows);
        bulk_err(err, errlen, cfg, q, line, key, why);
        return -1;
    }
    return 0;
}

int pgcb_bulk_fetch(const char *conninfo, struct pgcb_config *cfg, char *err, size_t errlen)
{
    if (!pgcb_bulk_needed(cfg))
        return 0;
    PGconn *pg = PQconnectdb(conninfo ? conninfo : "");
    if (PQstatus(pg) != CONNECTION_OK) {
        char why[PGCB_ERRLEN];
        pgcb_pq_err_oneline(why, sizeof why, NULL, PQerrorMessage(pg), PQpass(pg));
        snprintf(err, errlen, "cannot connect to fetch the bulk queries' rows: %s", why);
        PQfinish(pg);
        return -1;
    }
    PQsetNoticeProcessor(pg, pgcb_pq_ignore_notice, NULL);
    int rc = 0;
    for (size_t i = 0; i < cfg->nqueries && rc == 0; i++) {
        struct pgcb_cfg_query *q = &cfg->queries[i];
        if (q->copy || q->params_from)
            rc = fetch_query(pg, cfg, q, err, errlen);
    }
    PQfinish(pg);
    return rc;
}
