/*
 * rw_conn.c -- opening (conninfo, socket, StartupMessage, authentication,
 * until the first ReadyForQuery) and closing a connection. See rw_conn.h.
 */
#include "rw_conn.h"

#include <errno.h>
#include <langinfo.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rw_auth.h"
#include "rw_tls.h"
#include "rw_conninfo.h"
#include "rw_err.h"
#include "rw_io.h"
#include "rw_passfile.h"
#include "rw_prepare.h"

int rw_conn_fail(struct pgcb_conn *c, int rc)
{
    if (rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL)
        c->broken = 1;
    return rc;
}

int rw_conn_batch_start(struct pgcb_conn *c, const struct pgcb_stmt *st, uint32_t depth,
                        const struct pgcb_params *p, char *err, size_t errlen)
{
    if (c->broken) {
        rw_errf(err, errlen, "the connection is broken (an earlier error); it must be closed");
        return PGCB_ERR_IO;
    }
    if (depth == 0) {
        rw_errf(err, errlen, "depth must be at least 1");
        return PGCB_ERR_UNSUPPORTED;
    }
    return rw_conn_batch_bytes(c, st, depth, p, err, errlen);
}

int rw_conn_batch_end(struct pgcb_conn *c, int rc, const char *qerr, char *err, size_t errlen)
{
    if (rc == PGCB_OK) {
        if (!qerr)
            return PGCB_OK;
        rw_errf(err, errlen, "%s", qerr);
        return PGCB_ERR_QUERY;
    }
    if (rc == PGCB_ERR_NOMEM)
        c->broken = 1; /* mid-exchange: replies are left unread */
    if (rc == PGCB_ERR_IO && qerr) {
        char io[PGCB_ERRLEN];
        snprintf(io, sizeof io, "%s", err);
        rw_errf(err, errlen, "%s; %s", qerr, io);
    }
    return rw_conn_fail(c, rc);
}

static void rw_free_stmts(struct pgcb_conn *c)
{
    while (c->stmts) {
        struct pgcb_stmt *next = c->stmts->next;
        rw_stmt_free(c->stmts);
        c->stmts = next;
    }
}

void rw_conn_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0) {
        static const char terminate[5] = {'X', 0, 0, 0, 4};
        c->deadline_ns = 0;
        if (c->ssl)
            rw_tls_close(c, c->broken ? NULL : terminate, c->broken ? 0 : sizeof terminate);
        else if (!c->broken)
            (void)send(c->fd, terminate, sizeof terminate, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(c->fd);
    }
    rw_tls_close(c, NULL, 0); /* what a failed handshake left */
    rw_free_stmts(c);
    rw_buf_free(&c->batch);
    rw_buf_free(&c->copy);
    free(c->rbuf);
    if (c->c_locale)
        freelocale(c->c_locale);
    free(c);
}

/* Drop the socket and buffered bytes of a failed attempt (to try the next
 * host). */
static void rw_conn_reset(struct pgcb_conn *c)
{
    rw_tls_close(c, NULL, 0);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->rpos = c->rend = 0;
    c->broken = 0;
}

/* The CODESET spellings of libpq's pg_get_encoding_from_locale
 * (src/port/chklocale.c encoding_match_list), compared ignoring case, and
 * the PostgreSQL encoding names (pg_encoding_to_char) they map to. */
static const char *const rw_codesets[][2] = {
    {"EUC-JP", "EUC_JP"}, {"eucJP", "EUC_JP"}, {"IBM-eucJP", "EUC_JP"}, {"sdeckanji", "EUC_JP"},
    {"CP20932", "EUC_JP"},
    {"EUC-CN", "EUC_CN"}, {"eucCN", "EUC_CN"}, {"IBM-eucCN", "EUC_CN"}, {"GB2312", "EUC_CN"},
    {"dechanzi", "EUC_CN"}, {"CP20936", "EUC_CN"},
    {"EUC-KR", "EUC_KR"}, {"eucKR", "EUC_KR"}, {"IBM-eucKR", "EUC_KR"}, {"deckorean", "EUC_KR"},
    {"5601", "EUC_KR"}, {"CP51949", "EUC_KR"},
    {"EUC-TW", "EUC_TW"}, {"eucTW", "EUC_TW"}, {"IBM-eucTW", "EUC_TW"}, {"cns11643", "EUC_TW"},
    {"UTF-8", "UTF8"}, {"utf8", "UTF8"}, {"CP65001", "UTF8"},
    {"ISO-8859-1", "LATIN1"}, {"ISO8859-1", "LATIN1"}, {"iso88591", "LATIN1"}, {"CP28591", "LATIN1"},
    {"ISO-8859-2", "LATIN2"}, {"ISO8859-2", "LATIN2"}, {"iso88592", "LATIN2"}, {"CP28592", "LATIN2"},
    {"ISO-8859-3", "LATIN3"}, {"ISO8859-3", "LATIN3"}, {"iso88593", "LATIN3"}, {"CP28593", "LATIN3"},
    {"ISO-8859-4", "LATIN4"}, {"ISO8859-4", "LATIN4"}, {"iso88594", "LATIN4"}, {"CP28594", "LATIN4"},
    {"ISO-8859-9", "LATIN5"}, {"ISO8859-9", "LATIN5"}, {"iso88599", "LATIN5"}, {"CP28599", "LATIN5"},
    {"ISO-8859-10", "LATIN6"}, {"ISO8859-10", "LATIN6"}, {"iso885910", "LATIN6"},
    {"ISO-8859-13", "LATIN7"}, {"ISO8859-13", "LATIN7"}, {"iso885913", "LATIN7"},
    {"ISO-8859-14", "LATIN8"}, {"ISO8859-14", "LATIN8"}, {"iso885914", "LATIN8"},
    {"ISO-8859-15", "LATIN9"}, {"ISO8859-15", "LATIN9"}, {"iso885915", "LATIN9"},
    {"CP28605", "LATIN9"},
    {"ISO-8859-16", "LATIN10"}, {"ISO8859-16", "LATIN10"}, {"iso885916", "LATIN10"},
    {"KOI8-R", "KOI8R"}, {"CP20866", "KOI8R"}, {"KOI8-U", "KOI8U"}, {"CP21866", "KOI8U"},
    {"CP866", "WIN866"}, {"CP874", "WIN874"}, {"CP1250", "WIN1250"}, {"CP1251", "WIN1251"},
    {"ansi-1251", "WIN1251"}, {"CP1252", "WIN1252"}, {"CP1253", "WIN1253"}, {"CP1254", "WIN1254"},
    {"CP1255", "WIN1255"}, {"CP1256", "WIN1256"}, {"CP1257", "WIN1257"}, {"CP1258", "WIN1258"},
    {"ISO-8859-5", "ISO_8859_5"}, {"ISO8859-5", "ISO_8859_5"}, {"iso88595", "ISO_8859_5"},
    {"CP28595", "ISO_8859_5"},
    {"ISO-8859-6", "ISO_8859_6"}, {"ISO8859-6", "ISO_8859_6"}, {"iso88596", "ISO_8859_6"},
    {"CP28596", "ISO_8859_6"},
    {"ISO-8859-7", "ISO_8859_7"}, {"ISO8859-7", "ISO_8859_7"}, {"iso88597", "ISO_8859_7"},
    {"CP28597", "ISO_8859_7"},
    {"ISO-8859-8", "ISO_8859_8"}, {"ISO8859-8", "ISO_8859_8"}, {"iso88598", "ISO_8859_8"},
    {"CP28598", "ISO_8859_8"},
    {"SJIS", "SJIS"}, {"PCK", "SJIS"}, {"CP932", "SJIS"},
    {"BIG5", "BIG5"}, {"BIG5HKSCS", "BIG5"}, {"Big5-HKSCS", "BIG5"}, {"CP950", "BIG5"},
    {"GBK", "GBK"}, {"CP936", "GBK"}, {"UHC", "UHC"}, {"JOHAB", "JOHAB"}, {"CP1361", "JOHAB"},
    {"GB18030", "GB18030"}, {"CP54936", "GB18030"}, {"SJIS_2004", "SHIFT_JIS_2004"},
    {"US-ASCII", "SQL_ASCII"},
};

/* client_encoding=auto as libpq 15 resolves it (connectOptions2 with
 * pg_get_encoding_from_locale(NULL)): the process's current LC_CTYPE (not
 * the environment's: a program that never called setlocale is in "C");
 * "C" or "POSIX" is SQL_ASCII, else nl_langinfo(CODESET) through the table.
 * NULL when the codeset is unknown (libpq then sends no client_encoding). */
static const char *rw_locale_encoding(void)
{
    const char *ctype = setlocale(LC_CTYPE, NULL), *cs;

    if (!ctype)
        return NULL;
    if (strcasecmp(ctype, "C") == 0 || strcasecmp(ctype, "POSIX") == 0)
        return "SQL_ASCII";
    if (!(cs = nl_langinfo(CODESET)))
        return NULL;
    for (size_t i = 0; i < sizeof rw_codesets / sizeof rw_codesets[0]; i++)
        if (strcasecmp(cs, rw_codesets[i][0]) == 0)
            return rw_codesets[i][1];
    return NULL;
}

/* The client_encoding startup parameter for the parameter's value `enc`:
 * NULL (not sent) when unset or empty, the locale's for "auto". */
static const char *rw_startup_encoding(const char *enc)
{
    if (!enc || !*enc)
        return NULL;
    return strcmp(enc, "auto") == 0 ? rw_locale_encoding() : enc;
}

/* A setting of libpq's EnvironmentOptions (fe-connect.c): the variable's
 * value, sent as a startup parameter (build_startup_packet), unless unset or
 * "default" in any case. */
static const char *rw_env_option(const char *var)
{
    const char *v = getenv(var);
    return v && strcasecmp(v, "default") != 0 ? v : NULL;
}

/* StartupMessage (the parameters in libpq 15's order), authentication,
 * then messages until ReadyForQuery. On a server ErrorResponse, its
 * SQLSTATE goes to sqlstate (room for 6), and *refused is set when it came
 * before AuthenticationOk (where libpq retries with or without TLS). */
static int rw_startup(struct pgcb_conn *c, const struct rw_params *p, struct rw_auth *a,
                      char *sqlstate, int *refused, char *err, size_t errlen)
{
    const char *app = p->v[RW_P_APPLICATION_NAME];
    const char *opts = p->v[RW_P_OPTIONS];
    const char *kv[] = {
        "user", p->v[RW_P_USER],
        "database", p->v[RW_P_DBNAME],
        "options", opts && *opts ? opts : NULL,
        "application_name", app && *app ? app : p->v[RW_P_FALLBACK_APPLICATION_NAME],
        "client_encoding", rw_startup_encoding(p->v[RW_P_CLIENT_ENCODING]),
        "datestyle", rw_env_option("PGDATESTYLE"),
        "timezone", rw_env_option("PGTZ"),
        "geqo", rw_env_option("PGGEQO"),
        NULL, NULL,
    };
    struct rw_buf b;
    int rc;

    rw_buf_init(&b);
    rw_enc_startup(&b, kv);
    if (b.failed) {
        rw_buf_free(&b);
        rw_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    rc = rw_io_write_all(c, b.data, b.len, err, errlen);
    rw_buf_free(&b);
    c->msg_phase = RW_PHASE_AUTH;
    if (rc != PGCB_OK)
        return rc;

    for (;;) {
        char type;
        const char *body;
        size_t n;
        struct rw_pgerr e;
        char status;

        if ((rc = rw_io_read_msg(c, &type, &body, &n, err, errlen)) != PGCB_OK)
            return rc;
        switch (type) {
        case 'R':
            if (a->ok) {
                rw_errf(err, errlen, "authentication request after AuthenticationOk");
                return PGCB_ERR_PROTOCOL;
            }
            if ((rc = rw_auth_request(c, a, body, n, err, errlen)) != PGCB_OK)
                return rc;
            if (a->ok)
                c->msg_phase = RW_PHASE_READY;
            break;
        case 'E':
            if (rw_dec_error(body, n, &e)) {
                rw_errf(err, errlen, "malformed ErrorResponse from the server");
                return PGCB_ERR_PROTOCOL;
            }
            rw_pgerr_format(&e, err, errlen);
            snprintf(sqlstate, 6, "%s", e.code ? e.code : "");
            *refused = !a->ok;
            return PGCB_ERR_CONNECT;
        case 'N': /* NoticeResponse: drivers never print */
        case 'S': /* ParameterStatus: nothing rawwire depends on */
            break;
        case 'K':
            if (rw_dec_backend_key(body, n, &c->be_pid, &c->be_key)) {
                rw_errf(err, errlen, "malformed BackendKeyData from the server");
                return PGCB_ERR_PROTOCOL;
            }
            break;
        case 'v':
            rw_errf(err, errlen, "the server does not support protocol 3.0 as rawwire speaks it "
                                 "(NegotiateProtocolVersion)");
            return PGCB_ERR_CONNECT;
        case 'Z':
            if (!a->ok || rw_dec_ready(body, n, &status)) {
                rw_errf(err, errlen, "unexpected ReadyForQuery during startup");
                return PGCB_ERR_PROTOCOL;
            }
            c->msg_phase = RW_PHASE_READY;
            return PGCB_OK;
        default:
            rw_errf(err, errlen, "unexpected message type 0x%02x during startup", (unsigned char)type);
            return PGCB_ERR_PROTOCOL;
        }
    }
}

/* libpq's requirepeer: on a unix-domain socket, the server process's user
 * (SO_PEERCRED, then its name) must be `want`; TCP is not checked. NULL or
 * "" checks nothing. PGCB_OK, or PGCB_ERR_CONNECT with libpq's wording. */
static int rw_check_peer(struct pgcb_conn *c, const char *want, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    struct ucred cred;
    socklen_t cl = sizeof cred;
    struct passwd pw, *res = NULL;
    char buf[4096];
    int e;

    if (!want || !*want)
        return PGCB_OK;
    if (getsockname(c->fd, (struct sockaddr *)&ss, &sl) != 0 || ss.ss_family != AF_UNIX)
        return PGCB_OK;
    if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0) {
        rw_errf(err, errlen, "could not get peer credentials: %s", strerror(errno));
        return PGCB_ERR_CONNECT;
    }
    e = getpwuid_r(cred.uid, &pw, buf, sizeof buf, &res);
    if (e != 0 || !res) {
        if (e)
            rw_errf(err, errlen, "could not look up local user ID %u: %s", (unsigned)cred.uid, strerror(e));
        else
            rw_errf(err, errlen, "local user with ID %u does not exist", (unsigned)cred.uid);
        return PGCB_ERR_CONNECT;
    }
    if (strcmp(pw.pw_name, want) != 0) {
        rw_errf(err, errlen, "requirepeer specifies \"%.64s\", but actual peer user name is \"%.64s\"",
                want, pw.pw_name);
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

/* Append " (peer)" to err, after the server's own message. */
static void rw_err_where(const struct pgcb_conn *c, char *err, size_t errlen)
{
    size_t off = strlen(err);
    char where[sizeof c->peer + 8];
    size_t wl = (size_t)snprintf(where, sizeof where, " (%s)", c->peer);

    if (off + wl < errlen)
        memcpy(err + off, where, wl + 1);
}

/* The password for target t: the parameter's, else the password file's
 * (a->why_no_password says why none). */
static void rw_auth_setup(struct rw_auth *a, const struct rw_params *p, const struct rw_target *t)
{
    const char *pw = p->v[RW_P_PASSWORD];
    const char *cb = p->v[RW_P_CHANNEL_BINDING];

    memset(a, 0, sizeof *a);
    a->user = p->v[RW_P_USER];
    a->channel_binding = cb && *cb ? cb : "prefer";
    if (pw && *pw)
        a->password = strdup(pw);
    else
        a->password = rw_passfile_lookup(p->v[RW_P_PASSFILE], *t->host ? t->host : t->hostaddr,
                                         t->port, p->v[RW_P_DBNAME], a->user, &a->why_no_password);
}

static int rw_is_unix(const struct pgcb_conn *c)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    return getsockname(c->fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_UNIX;
}

/* What ended one attempt, for the retry libpq's sslmode allows. */
enum rw_attempt_end {
    RW_END_DONE = 0,      /* connected, or failed for good */
    RW_END_NEXT_HOST,     /* could not connect, or 57P03: the next host */
    RW_END_RETRY_PLAIN,   /* prefer: TLS failed or the server refused us over it */
    RW_END_RETRY_TLS      /* allow: the server refused us in clear text */
};

/* One attempt on target t: connect, TLS if `tls` (and the socket is not a
 * unix-domain one: libpq never asks there), start up. *end says what libpq
 * would do next. */
static int rw_attempt(struct pgcb_conn *c, const struct rw_params *p, const struct rw_target *t,
                      const char *mode, int tls, int *end, char *err, size_t errlen)
{
    char sqlstate[6] = "", answer = RW_TLS_NO;
    int refused = 0, rc, tried_tls = 0;
    struct rw_auth a;

    *end = RW_END_DONE;
    rc = rw_io_connect(c, t, err, errlen);
    if (rc != PGCB_OK) {
        *end = RW_END_NEXT_HOST;
        return rc;
    }
    if ((rc = rw_check_peer(c, p->v[RW_P_REQUIREPEER], err, errlen)) != PGCB_OK) {
        rw_err_where(c, err, errlen);
        return rc;
    }
    if (tls && !rw_is_unix(c)) {
        tried_tls = 1;
        if ((rc = rw_tls_request(c, &answer, err, errlen)) != PGCB_OK) {
            rw_err_where(c, err, errlen);
            return rc;
        }
        if (answer == RW_TLS_NO && (strcmp(mode, "require") == 0 || strncmp(mode, "verify-", 7) == 0)) {
            rw_errf(err, errlen, "server does not support SSL, but SSL was required (%s)", c->peer);
            return PGCB_ERR_CONNECT;
        }
        if (answer == RW_TLS_YES && (rc = rw_tls_handshake(c, p, t, err, errlen)) != PGCB_OK) {
            rw_err_where(c, err, errlen);
            if (strcmp(mode, "prefer") == 0)
                *end = RW_END_RETRY_PLAIN;
            return rc;
        }
    }
    rw_auth_setup(&a, p, t);
    if ((rc = rw_startup(c, p, &a, sqlstate, &refused, err, errlen)) != PGCB_OK) {
        rw_err_where(c, err, errlen);
        if (strcmp(sqlstate, "57P03") == 0)
            *end = RW_END_NEXT_HOST;
        else if (refused && strcmp(mode, "allow") == 0 && !tried_tls)
            *end = RW_END_RETRY_TLS;
        else if (refused && strcmp(mode, "prefer") == 0 && c->ssl)
            *end = RW_END_RETRY_PLAIN;
    }
    rw_auth_free(&a);
    return rc;
}

/* Connect to one target and start up, with TLS as sslmode says: disable
 * never; allow in clear text first, then with TLS if the server refused
 * that; prefer with TLS if the server offers it, in clear text after a
 * failed handshake or a refusal over TLS; require and verify-* only with
 * TLS. *next is set when libpq would go on to the next host: the
 * connection could not be made, or the server said 57P03 cannot_connect_now.
 * Any other failure (authentication, a missing database, requirepeer, TLS
 * that sslmode requires, a protocol error) stops the search. */
static int rw_try_target(struct pgcb_conn *c, const struct rw_params *p, const struct rw_target *t,
                         int *next, char *err, size_t errlen)
{
    const char *timeout = p->v[RW_P_CONNECT_TIMEOUT];
    const char *mode = p->v[RW_P_SSLMODE] && *p->v[RW_P_SSLMODE] ? p->v[RW_P_SSLMODE] : "prefer";
    int tls = strcmp(mode, "disable") != 0 && strcmp(mode, "allow") != 0, end, rc;

    *next = 0;
    c->deadline_ns = 0;
    if (timeout && *timeout && atol(timeout) > 0) {
        struct timespec ts;
        long secs = atol(timeout) < 2 ? 2 : atol(timeout); /* libpq's minimum */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        c->deadline_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + (int64_t)secs * 1000000000;
    }
    rc = rw_attempt(c, p, t, mode, tls, &end, err, errlen);
    if (end == RW_END_RETRY_PLAIN || end == RW_END_RETRY_TLS) { /* once, on a new connection */
        rw_conn_reset(c);
        rc = rw_attempt(c, p, t, mode, end == RW_END_RETRY_TLS, &end, err, errlen);
        if (end != RW_END_NEXT_HOST)
            end = RW_END_DONE;
    }
    *next = end == RW_END_NEXT_HOST;
    c->deadline_ns = 0;
    if (rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL)
        rc = PGCB_ERR_CONNECT; /* nothing was open yet: it is a failure to connect */
    return rc;
}

int rw_conn_open(const char *conninfo, const struct rw_options *opt, struct pgcb_conn **out,
                 char *err, size_t errlen)
{
    struct rw_params p;
    struct rw_target *t = NULL;
    size_t nt = 0;
    struct pgcb_conn *c;
    int rc = PGCB_ERR_CONNECT;

    *out = NULL;
    if (rw_conninfo_parse(conninfo, &p, err, errlen))
        return PGCB_ERR_CONNECT;
    if (rw_params_from_env(&p)) {
        rw_params_free(&p);
        rw_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    if (rw_params_finish(&p, err, errlen) || rw_params_targets(&p, &t, &nt, err, errlen)) {
        rw_params_free(&p);
        return PGCB_ERR_CONNECT;
    }
    c = calloc(1, sizeof *c);
    if (!c || !(c->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
        free(c);
        rw_targets_free(t, nt);
        rw_params_free(&p);
        rw_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    c->fd = -1;
    c->opt = *opt;
    rw_buf_init(&c->batch);
    rw_buf_init(&c->copy);
    for (size_t i = 0; i < nt; i++) {
        int next;
        rc = rw_try_target(c, &p, &t[i], &next, err, errlen);
        if (rc == PGCB_OK || !next)
            break;
        rw_conn_reset(c);
    }
    rw_targets_free(t, nt);
    rw_params_free(&p);
    if (rc != PGCB_OK) {
        c->broken = 1; /* no Terminate on a session that never started (libpq sends none) */
        rw_conn_close(c);
        return rc;
    }
    *out = c;
    return PGCB_OK;
}
