/* server.c -- see server.h. */
#include "server.h"
#include "srvcpu.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pqutil/pq_errmsg.h"
#include "pgcb/driver.h"
#include "config/sqlsplit.h"
#include "sys/sysinfo.h"
#include "util.h"

void pgcb_libpq_version(char *buf, size_t n)
{
    int v = PQlibVersion();
    snprintf(buf, n, "%d.%d", v / 10000, v % 10000);
}

/* Append " key='value'" (' and \ escaped, as libpq parses it) to the
 * growing string *out (len, cap). */
static void conninfo_put(char **out, size_t *len, size_t *cap, const char *key, const char *val)
{
    size_t need = strlen(key) + 2 * strlen(val) + 5;

    if (*len + need >= *cap) {
        *cap = (*len + need) * 2;
        *out = pgcb_xrealloc(*out, *cap);
    }
    *len += (size_t)sprintf(*out + *len, "%s%s='", *len ? " " : "", key);
    for (const char *s = val; *s; s++) {
        if (*s == '\'' || *s == '\\')
            (*out)[(*len)++] = '\\';
        (*out)[(*len)++] = *s;
    }
    (*out)[(*len)++] = '\'';
    (*out)[*len] = '\0';
}

char *pgcb_conninfo_redact(const char *conninfo)
{
    char *errmsg = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &errmsg);
    if (!opts) {
        PQfreemem(errmsg);
        return pgcb_xstrdup("(unparsable conninfo)");
    }
    size_t cap = 64, len = 0;
    char *out = pgcb_xmalloc(cap);
    out[0] = '\0';
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (o->val && strcmp(o->keyword, "password") != 0)
            conninfo_put(&out, &len, &cap, o->keyword, o->val);
    PQconninfoFree(opts);
    return out;
}

/* libpq's parse error for `ci` (em, freed here), one line; withheld when
 * the string could hold a password (libpq quotes pieces of it). */
static void conninfo_parse_error(const char *ci, char *em, char *err, size_t errlen)
{
    if (!em)
        snprintf(err, errlen, "out of memory");
    else if (pgcb_pq_conninfo_may_hold_password(ci ? ci : ""))
        snprintf(err, errlen, "invalid connection string (not quoted: it may hold a password)");
    else
        pgcb_pq_err_oneline(err, errlen, NULL, em, NULL);
    PQfreemem(em);
}

char *pgcb_conninfo_merge(const char *base, const char *extra, char *err, size_t errlen)
{
    char *em = NULL;
    PQconninfoOption *b = PQconninfoParse(base ? base : "", &em), *x;
    size_t cap = 64, len = 0;
    char *out;

    if (!b) {
        conninfo_parse_error(base, em, err, errlen);
        return NULL;
    }
    if (!(x = PQconninfoParse(extra ? extra : "", &em))) {
        conninfo_parse_error(extra, em, err, errlen);
        PQconninfoFree(b);
        return NULL;
    }
    out = pgcb_xmalloc(cap);
    out[0] = '\0';
    /* Both arrays list libpq's keywords in the same order. */
    for (size_t i = 0; b[i].keyword && x[i].keyword; i++) {
        const char *v = x[i].val ? x[i].val : b[i].val;
        if (v)
            conninfo_put(&out, &len, &cap, b[i].keyword, v);
    }
    PQconninfoFree(x);
    PQconninfoFree(b);
    return out;
}

struct setup_ctx {
    PGconn *conn;
    const char *path;
    char *err;
    size_t errlen;
};

static int run_stmt(void *user, const char *stmt, int line)
{
    struct setup_ctx *c = user;
    PGresult *res = PQexec(c->conn, stmt);
    ExecStatusType st = PQresultStatus(res);
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        char msg[400];
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        pgcb_oneline(msg, sizeof msg, primary ? primary : PQerrorMessage(c->conn));
        snprintf(c->err, c->errlen, "%s:%d: setup statement failed: %s%s%s", c->path, line,
                 state ? state : "", state ? ": " : "", msg);
        rc = 1;
    }
    PQclear(res);
    return rc;
}

static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open setup file: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = pgcb_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            cap *= 2;
            buf = pgcb_xrealloc(buf, cap);
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static void describe_target(PGconn *conn, char *buf, size_t n)
{
    const char *host = PQhost(conn), *port = PQport(conn);
    if (host && host[0] == '/')
        snprintf(buf, n, "socket %s/.s.PGSQL.%s", host, port ? port : "?");
    else
        snprintf(buf, n, "host %s port %s", host ? host : "?", port ? port : "?");
}

/* A session of the runner's own, or NULL with "cannot connect to the
 * server: ..." in err. libpq's parse errors quote the token or the whole URI
 * they choke on, which can be the password: checked first, as the libpq
 * drivers do. */
static PGconn *connect_session(const char *conninfo, char *err, size_t errlen)
{
    if (pgcb_pq_check_conninfo(conninfo, err, errlen) != PGCB_OK)
        return NULL;
    PGconn *conn = PQconnectdb(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        char msg[400];
        pgcb_oneline(msg, sizeof msg, PQerrorMessage(conn));
        snprintf(err, errlen, "cannot connect to the server: %s", msg);
        PQfinish(conn);
        return NULL;
    }
    return conn;
}

/* One SHOW into buf (n bytes): 0, or -1 (buf ""). */
static int show(PGconn *conn, const char *name, char *buf, size_t n)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SHOW %s", name);
    PGresult *res = PQexec(conn, sql);
    int ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
    snprintf(buf, n, "%s", ok ? PQgetvalue(res, 0, 0) : "");
    PQclear(res);
    return ok ? 0 : -1;
}

/* What the transports' defaults are derived from (transport.h). */
static void read_transport_facts(PGconn *conn, struct pgcb_transport_facts *f)
{
    char port[32], ssl[16];
    *f = (struct pgcb_transport_facts){0};
    if (show(conn, "port", port, sizeof port) != 0 ||
        show(conn, "listen_addresses", f->listen_addresses, sizeof f->listen_addresses) != 0 ||
        show(conn, "unix_socket_directories", f->unix_socket_directories,
             sizeof f->unix_socket_directories) != 0 ||
        show(conn, "ssl", ssl, sizeof ssl) != 0)
        return;
    f->port = atoi(port);
    f->ssl = strcmp(ssl, "on") == 0;
    f->known = f->port > 0;
}

int pgcb_server_prepare(const char *conninfo, const char *setup_path,
                        struct pgcb_server_info *info, char *err, size_t errlen)
{
    *info = (struct pgcb_server_info){0};
    PGconn *conn = connect_session(conninfo, err, errlen);
    if (!conn)
        return -1;
    /* Notices (e.g. "table does not exist, skipping" from the setup
     * script) are not errors; libpq's default processor would print them. */
    PQsetNoticeProcessor(conn, pgcb_pq_ignore_notice, NULL);
    describe_target(conn, info->where, sizeof info->where);
    const char *v = PQparameterStatus(conn, "server_version");
    snprintf(info->version, sizeof info->version, "%s", v ? v : "unknown");
    info->version_num = PQserverVersion(conn);
    read_transport_facts(conn, &info->transport);

    /* A server here (its backend is a postgres process of this machine):
     * its CPU time can be read. */
    info->postmaster_pid = pgcb_srvcpu_postmaster(PQbackendPID(conn));
    const char *env = getenv("PGCB_SERVER_CPUS");
    if (env && *env) {
        snprintf(info->cpus, sizeof info->cpus, "%s", env);
        snprintf(info->cpus_source, sizeof info->cpus_source, "PGCB_SERVER_CPUS");
    } else {
        /* A backend on this machine (unix socket or loopback) inherits the
         * postmaster's affinity: read it from the backend's pid, if that
         * pid is a postgres process here. */
        int pid = PQbackendPID(conn);
        char comm[64] = "", path[64];
        snprintf(path, sizeof path, "/proc/%d/comm", pid);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = '\0';
            fclose(f);
        }
        if (strncmp(comm, "postgres", 8) == 0 &&
            pgcb_cpus_of_pid(pid, info->cpus, sizeof info->cpus) == 0)
            snprintf(info->cpus_source, sizeof info->cpus_source, "detected");
        else
            snprintf(info->cpus_source, sizeof info->cpus_source, "unknown");
    }

    int rc = 0;
    if (setup_path) {
        char *text = read_file(setup_path, err, errlen);
        if (!text) {
            rc = -1;
        } else {
            struct setup_ctx c = {conn, setup_path, err, errlen};
            int bad_line = 0;
            int s = pgcb_sql_split(text, run_stmt, &c, &bad_line);
            if (s < 0) {
                snprintf(err, errlen, "%s:%d: unterminated quote or comment", setup_path,
                         bad_line);
                rc = -1;
            } else if (s > 0) {
                rc = -1;
            }
            free(text);
        }
    }
    PQfinish(conn);
    return rc;
}

/* Run `sql` with $1 = tag in a session of our own; its rows (PGresult
 * outlives the session; the caller PQclear()s it), or NULL with err. */
static PGresult *query_tagged(const char *conninfo, const char *sql, const char *tag, char *err,
                              size_t errlen)
{
    PGconn *conn = connect_session(conninfo, err, errlen);
    if (!conn)
        return NULL;
    const char *params[] = {tag};
    PGresult *res = PQexecParams(conn, sql, 1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        char msg[400];
        pgcb_oneline(msg, sizeof msg, PQerrorMessage(conn));
        snprintf(err, errlen, "%s", msg);
        PQclear(res);
        res = NULL;
    }
    PQfinish(conn);
    return res;
}

int pgcb_server_terminate_tagged(const char *conninfo, const char *tag, char *err,
                                 size_t errlen)
{
    PGresult *res = query_tagged(conninfo,
                                 "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                                 "FROM pg_stat_activity WHERE application_name = $1 "
                                 "AND pid <> pg_backend_pid()", tag, err, errlen);
    int n = res && PQntuples(res) == 1 ? atoi(PQgetvalue(res, 0, 0)) : -1;
    if (res && n < 0)
        snprintf(err, errlen, "count(*) returned %d rows", PQntuples(res));
    PQclear(res);
    return n;
}

int pgcb_server_tagged_conns(const char *conninfo, const char *tag,
                             struct pgcb_transport_conn *out, size_t max, char *err,
                             size_t errlen)
{
    /* ssl is NULL where the session may not see the backend's details
     * (another role without pg_read_all_stats); client_port is -1 for the
     * unix socket. */
    PGresult *res = query_tagged(conninfo,
                                 "SELECT a.pid, s.ssl, s.version, s.cipher, s.bits, "
                                 "host(a.client_addr), a.client_port "
                                 "FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) "
                                 "WHERE a.application_name = $1 AND a.pid <> pg_backend_pid() "
                                 "ORDER BY a.pid", tag, err, errlen);
    if (!res)
        return -1;
    int n = PQntuples(res);
    for (int i = 0; i < n && (size_t)i < max; i++) {
        struct pgcb_transport_conn *c = &out[i];
        *c = (struct pgcb_transport_conn){.pid = atoi(PQgetvalue(res, i, 0))};
        c->ssl = PQgetisnull(res, i, 1) ? -1 : strcmp(PQgetvalue(res, i, 1), "t") == 0;
        snprintf(c->version, sizeof c->version, "%s", PQgetvalue(res, i, 2));
        snprintf(c->cipher, sizeof c->cipher, "%s", PQgetvalue(res, i, 3));
        c->bits = PQgetisnull(res, i, 4) ? 0 : atoi(PQgetvalue(res, i, 4));
        snprintf(c->client_addr, sizeof c->client_addr, "%s", PQgetvalue(res, i, 5));
        c->client_port = PQgetisnull(res, i, 6) ? -1 : atoi(PQgetvalue(res, i, 6));
    }
    PQclear(res);
    return n;
}

int pgcb_conninfo_appname(const char *conninfo, char *buf, size_t n)
{
    char *errmsg = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo ? conninfo : "", &errmsg);
    PQfreemem(errmsg);
    int set = 0;
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (strcmp(o->keyword, "application_name") == 0 && o->val && o->val[0]) {
            snprintf(buf, n, "%s", o->val);
            set = 1;
        }
    PQconninfoFree(opts);
    return set;
}
