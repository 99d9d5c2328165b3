/* describe.c -- see describe.h. */
#include "describe.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcb/value.h"
#include "pqutil/pq_errmsg.h"
#include "util.h"

int pgcb_describe_text_type(uint32_t oid)
{
    return oid == PGCB_OID_TEXT || oid == PGCB_OID_VARCHAR || oid == PGCB_OID_BPCHAR ||
           oid == PGCB_OID_NAME;
}

int pgcb_describe_folded(uint32_t oid)
{
    return pgcb_value_kind_of(oid, 0) == PGCB_VALUE_TEXT && !pgcb_describe_text_type(oid);
}

/* The server's name of type oid ("point", "character varying"), new; NULL
 * if it cannot say. */
static char *type_name(PGconn *conn, uint32_t oid)
{
    char arg[16];
    snprintf(arg, sizeof arg, "%u", oid);
    const char *vals[1] = {arg};
    PGresult *res = PQexecParams(conn, "SELECT format_type($1::oid, NULL)", 1, NULL, vals,
                                 NULL, NULL, 0);
    char *name = NULL;
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
        !PQgetisnull(res, 0, 0))
        name = pgcb_xstrdup(PQgetvalue(res, 0, 0));
    PQclear(res);
    return name;
}

static void describe_one(PGconn *conn, const char *sql, struct pgcb_desc *d)
{
    PGresult *res = PQprepare(conn, "", sql, 0, NULL);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return;
    res = PQdescribePrepared(conn, "");
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        PQclear(res);
        return;
    }
    int n = PQnfields(res);
    d->known = 1;
    d->ncols = n > 0 ? (size_t)n : 0;
    d->cols = pgcb_xcalloc(d->ncols ? d->ncols : 1, sizeof *d->cols);
    for (size_t i = 0; i < d->ncols; i++) {
        struct pgcb_desc_col *c = &d->cols[i];
        c->name = pgcb_xstrdup(PQfname(res, (int)i));
        c->oid = PQftype(res, (int)i);
        c->folded = pgcb_describe_folded(c->oid);
    }
    PQclear(res);
    for (size_t i = 0; i < d->ncols; i++)
        if (d->cols[i].folded)
            d->cols[i].type = type_name(conn, d->cols[i].oid);
}

void pgcb_describe_queries(const char *conninfo, const struct pgcb_config *cfg,
                           struct pgcb_desc *out)
{
    char err[512];
    const char *ci = conninfo ? conninfo : "";
    /* libpq's parse errors can quote a password: checked first, as the
     * server session does (a bad string stopped the run before this). */
    if (pgcb_pq_check_conninfo(ci, err, sizeof err) != PGCB_OK)
        return;
    PGconn *conn = PQconnectdb(ci);
    if (PQstatus(conn) == CONNECTION_OK)
        for (size_t q = 0; q < cfg->nqueries; q++)
            if (cfg->queries[q].sql) /* a COPY query has none: not described */
                describe_one(conn, cfg->queries[q].sql, &out[q]);
    PQfinish(conn);
}

void pgcb_describe_free(struct pgcb_desc *d, size_t n)
{
    for (size_t q = 0; d && q < n; q++) {
        for (size_t i = 0; i < d[q].ncols; i++) {
            free(d[q].cols[i].name);
            free(d[q].cols[i].type);
        }
        free(d[q].cols);
    }
}

void pgcb_describe_group(struct pgcb_res_group *gr, const struct pgcb_desc *d)
{
    if (!d->known)
        return;
    gr->columns = (uint32_t)d->ncols;
    size_t n = 0;
    for (size_t i = 0; i < d->ncols; i++)
        n += d->cols[i].folded != 0;
    if (n == 0)
        return;
    gr->folded = pgcb_xcalloc(n, sizeof *gr->folded);
    for (size_t i = 0; i < d->ncols; i++) {
        const struct pgcb_desc_col *c = &d->cols[i];
        if (!c->folded)
            continue;
        gr->folded[gr->nfolded++] = (struct pgcb_res_folded){
            .column = (uint32_t)i + 1, .name = pgcb_xstrdup(c->name),
            .type = pgcb_xstrdup(c->type ? c->type : "?"), .oid = c->oid};
    }
}
