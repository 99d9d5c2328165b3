/*
 * test_rawwire_conninfo_diff.c -- rawwire's conninfo parser against libpq's
 * own (the oracle: PQconninfoParse, PQconndefaults of the libpq linked).
 *
 * A corpus of key=value strings and URIs, hand-written and generated
 * (every keyword libpq knows x value forms: bare, quoted, escapes, empty;
 * URI user info x host lists x ports x paths x query strings, percent-
 * encoding, IPv6, bad escapes, unknown keys). For each:
 *   - the decision: rw_conninfo_parse accepts iff PQconninfoParse does;
 *   - when both accept, every parameter rawwire keeps (user, password,
 *     host, hostaddr, port, dbname, application_name, connect_timeout,
 *     sslmode, options, ...) equals libpq's value (NULL = not set);
 *   - rawwire's error message never contains a password ("Zpw" marks them;
 *     later messages: when the string may hold a password at all).
 * Then PG* variables: rw_params_from_env on "" against PQconndefaults for
 * each key the environment sets (and PGREQUIRESSL's sslmode).
 * Then rawwire's later checks (rw_params_finish, rw_params_targets) on the
 * strings both accept: every refusal must be one of the declared reasons
 * below (libpq refuses most of them too, but only when connecting).
 *
 * DELIBERATE DIFFERENCES (also in docs/rawwire.md); any other difference
 * fails the test:
 *
 *   where            | libpq 15                     | rawwire
 *   -----------------+------------------------------+----------------------
 *   parse            | (none: every decision and value agrees)
 *   finish: service  | reads pg_service.conf        | refused
 *   finish: gssenc-  | GSS encryption               | refused: no GSSAPI
 *     mode=require   |                              |
 *   finish: target_  | read-write, standby, ...     | refused (only any)
 *     session_attrs  |                              |
 *   finish: invalid  | refused when connecting      | refused before
 *     values of sslmode, gssencmode, channel_binding, target_session_attrs,
 *     ssl_min/max_protocol_version, connect_timeout, port; host/port counts
 *   (libpq checks connect_timeout only once a server answers; rawwire
 *   refuses the same values, as parse_int_param does, before connecting)
 *
 * Prints "N cases, N agree". Runs in well under a second. Links the driver's
 * lib/pgwire (see the Makefile), no #include of a .c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "pgwire/rw_conninfo.h"

/* rawwire's later (finish/targets) refusals declared above: a substring of
 * the message, and whether libpq's own connect-time check may accept it
 * where the test can ask (sockets that do not exist): "not supported" is
 * rawwire's limit; connect_timeout libpq checks only once a server
 * answers (seen with a live one: "", "5x", "abc", 2^33 refused; " 5 ", -1,
 * +3 accepted); the rest libpq refuses too. */
static const struct {
    const char *part;
    int libpq_may_accept;
} rw_diff_declared_later[] = {
    {"is not supported by rawwire", 1},
    {"invalid integer value for connect_timeout", 1},
    {"invalid sslmode value", 0},
    {"invalid channel_binding value", 0},
    {"invalid gssencmode value", 0},
    {"invalid target_session_attrs value", 0},
    {"invalid ssl_min_protocol_version value", 0},
    {"invalid ssl_max_protocol_version value", 0},
    {"invalid SSL protocol version range", 0},
    {"invalid port number", 0},
    {"could not match", 0},
    {NULL, 0},
};

struct rw_diff_stats {
    unsigned cases, agree, later_refused, connect_asked;
    unsigned shown; /* differences printed (the first few) */
};

/* libpq's value of `key` in opts, or NULL. */
static const char *rw_diff_lpval(const PQconninfoOption *opts, const char *key)
{
    for (; opts && opts->keyword; opts++)
        if (strcmp(opts->keyword, key) == 0)
            return opts->val;
    return NULL;
}

static int rw_diff_streq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void rw_diff_report(struct rw_diff_stats *st, const char *ci, const char *what)
{
    if (st->shown++ < 20)
        fprintf(stderr, "DIFF [%s]: %s\n", ci, what);
}

/* True if connecting with libpq's parse `lp` cannot reach a server: every
 * host is a socket directory that does not exist (host unset: PGHOST is
 * such a directory while libpq runs), no hostaddr, no service. */
static int rw_diff_unreachable(const PQconninfoOption *lp)
{
    const char *h = rw_diff_lpval(lp, "host"), *a = rw_diff_lpval(lp, "hostaddr");
    const char *svc = rw_diff_lpval(lp, "service");

    if ((a && *a) || svc)
        return 0;
    if (!h)
        return 1;
    for (;;) { /* each item "/nonexistent..." or "/tmp/sock..." style path */
        if (h[0] != '/' || strncmp(h, "/tmp", 4) == 0 || strncmp(h, "/var", 4) == 0 ||
            strncmp(h, "/run", 4) == 0)
            return 0;
        h = strchr(h, ',');
        if (!h)
            return 1;
        h++;
    }
}

/* libpq's decision when connecting (connectOptions2 and PQconnectPoll's
 * checks): 1 if it got as far as trying the socket. */
static int rw_diff_lp_connect_ok(const char *ci, char *why, size_t whylen)
{
    PGconn *c;
    const char *m;
    int ok;

    setenv("PGHOST", "/nonexistent-rw-diff", 1);
    c = PQconnectdb(ci);
    unsetenv("PGHOST");
    m = PQerrorMessage(c);
    ok = PQstatus(c) != CONNECTION_OK && strncmp(m, "connection to server on socket", 30) == 0;
    snprintf(why, whylen, "%.*s", (int)strcspn(m, "\n"), m);
    PQfinish(c);
    return ok;
}

/* rawwire's later checks on parsed params: 1 if they agree with libpq's
 * (where libpq can be asked without a server: rw_diff_unreachable) or
 * rawwire refuses for a declared reason, 0 otherwise (reported). */
static int rw_diff_later(struct rw_diff_stats *st, const char *ci, const PQconninfoOption *lp,
                         struct rw_params *p)
{
    char err[256] = "", why[256] = "", what[600];
    struct rw_target *t = NULL;
    size_t n = 0;
    int rw_ok, ask = rw_diff_unreachable(lp), lp_ok = 1;

    rw_ok = rw_params_finish(p, err, sizeof err) == 0 &&
            rw_params_targets(p, &t, &n, err, sizeof err) == 0;
    if (rw_ok)
        rw_targets_free(t, n);
    if (ask) {
        st->connect_asked++;
        lp_ok = rw_diff_lp_connect_ok(ci, why, sizeof why);
    }
    if (rw_ok && lp_ok)
        return 1;
    if (rw_ok) {
        snprintf(what, sizeof what, "libpq refuses when connecting (%s), rawwire accepts", why);
        rw_diff_report(st, ci, what);
        return 0;
    }
    st->later_refused++;
    if (p->secret_in_string && strstr(err, "Zpw")) { /* (port=Zpw alone is a port) */
        rw_diff_report(st, ci, "a later error message contains the password");
        return 0;
    }
    if (!lp_ok) /* both refuse */
        return 1;
    for (int i = 0; rw_diff_declared_later[i].part; i++)
        if (strstr(err, rw_diff_declared_later[i].part) &&
            (!ask || rw_diff_declared_later[i].libpq_may_accept))
            return 1;
    snprintf(what, sizeof what, "rawwire refuses (%s), libpq %s", err,
             ask ? "accepts when connecting" : "accepts the parse");
    rw_diff_report(st, ci, what);
    return 0;
}

/* One conninfo string: decision, values, messages. */
static void rw_diff_one(struct rw_diff_stats *st, const char *ci)
{
    char *lperr = NULL, err[256] = "", what[512];
    PQconninfoOption *lp = PQconninfoParse(ci, &lperr);
    struct rw_params p;
    int rw_ok = rw_conninfo_parse(ci, &p, err, sizeof err) == 0, ok = 1;

    st->cases++;
    if (!!lp != rw_ok) {
        snprintf(what, sizeof what, "libpq %s (%s), rawwire %s (%s)", lp ? "accepts" : "refuses",
                 lperr ? lperr : "", rw_ok ? "accepts" : "refuses", err);
        rw_diff_report(st, ci, what);
        ok = 0;
    } else if (!rw_ok && strstr(err, "Zpw")) {
        rw_diff_report(st, ci, "rawwire's error message contains the password");
        ok = 0;
    } else if (rw_ok) {
        for (int i = 0; i < RW_P_COUNT; i++) {
            const char *key = rw_param_name((enum rw_param)i);
            const char *lv = rw_diff_lpval(lp, key);
            if (i == RW_P_REQUIRESSL) /* libpq keeps it as sslmode only */
                continue;
            if (!rw_diff_streq(lv, p.v[i])) {
                int secret = i == RW_P_PASSWORD;
                snprintf(what, sizeof what, "%s: libpq %s%s%s, rawwire %s%s%s", key,
                         lv && !secret ? "\"" : "", lv ? (secret ? "(set)" : lv) : "NULL",
                         lv && !secret ? "\"" : "", p.v[i] && !secret ? "\"" : "",
                         p.v[i] ? (secret ? "(set)" : p.v[i]) : "NULL", p.v[i] && !secret ? "\"" : "");
                rw_diff_report(st, ci, what);
                ok = 0;
            }
        }
        if (ok)
            ok = rw_diff_later(st, ci, lp, &p);
    }
    if (rw_ok)
        rw_params_free(&p);
    st->agree += ok;
    PQconninfoFree(lp);
    PQfreemem(lperr);
}

/* ---- the corpus ------------------------------------------------------- */

static const char *const rw_diff_hand[] = {
    "", "   ", "host=/tmp", "host = /tmp  port=5433", "host", "host=", "=x", "host='a b'",
    "host='unterminated", "host=a\\ b", "host=x\\", "host='x\\'", "host='it\\'s'",
    "password='Zpw \\\\ x' user=bob", "password=Zpw secretZpw", "password=Zpw Zpwx=1",
    "host=a host=b", "bogus=1", "HOST=x", "requiressl=1", "requiressl=10", "requiressl=0x",
    "sslmode=require requiressl=0", "requiressl=1 sslmode=disable", "requiressl=''",
    "requirepeer=postgres", "service=x", "sslmode=bogus", "connect_timeout=abc",
    "connect_timeout=10", "port=99999", "port=0", "port=abc", "host=a,b port=1,2,3",
    "host=a,b,c port=1,,3", "hostaddr=127.0.0.1", "hostaddr=1.2.3.4,5.6.7.8 host=a,b",
    "target_session_attrs=read-write", "channel_binding=require", "gssencmode=require",
    "options='-c geqo=off'", "application_name=a\\'b", "dbname='my db'",
    "postgresql://", "postgres://", "postgresql:///", "postgresql://h", "POSTGRESQL://h",
    "postgresql://bob:abc/def@db.example/app", "postgresql://bob:1234/5678@db.example/app",
    "postgresql://bob:se?cret@db", "postgresql://u@v:Zpw@host", "postgresql://u:Zpw@h/db",
    "postgresql://h?application_name=a=b", "postgresql://h?ssl=false", "postgresql://h?ssl=true",
    "postgresql://h?ssl=true&sslmode=disable", "postgresql://h?requiressl=1",
    "postgresql://h?%61pplication_name=x", "postgresql://h?host", "postgresql://h?&",
    "postgresql://h?a=1&", "postgresql://h/d%00b", "postgresql://h/d%", "postgresql://h/d%4",
    "postgresql://[::1]:5432,db2,db3:6000/", "postgresql://[::1/db", "postgresql://[]/",
    "postgresql://u:Zpw@[::1]x/", "postgresql://h,/d", "postgresql://,h:1,:2/",
    "postgresql:///db?host=/run/pg&ssl=true", "postgresql://%2Ftmp%2Fsock:5433/my%20db",
    "postgresql://u%40x:Z%2Fpw@h/db", "postgresql://h/db?hostaddr=1.2.3.4&port=1",
    NULL,
};

/* Every keyword libpq knows, each with several value forms. */
static void rw_diff_keywords(struct rw_diff_stats *st)
{
    static const char *const forms[] = {"x", "''", "'a b'", "a\\ b", "'it\\'s'", "x\\", "1", "0",
                                        "require", "disable", "prefer", "any", "/tmp,/var",
                                        "5432", "-1", "' 5 '", "+3", "TLSv1", "tlsv1.1", "TLSv1.3",
                                        "read-write", "verify-full", "allow", NULL};
    PQconninfoOption *defs = PQconndefaults();
    char ci[256];

    for (PQconninfoOption *o = defs; o && o->keyword; o++)
        for (int f = 0; forms[f]; f++) {
            snprintf(ci, sizeof ci, "%s=%s", o->keyword, forms[f]);
            rw_diff_one(st, ci);
            snprintf(ci, sizeof ci, "postgresql://h/db?%s=%s", o->keyword, forms[f][0] == '\'' ? "v" : forms[f]);
            rw_diff_one(st, ci);
        }
    PQconninfoFree(defs);
}

/* Generated URIs: scheme x user info x hosts x path x query. */
static void rw_diff_uris(struct rw_diff_stats *st)
{
    static const char *const schemes[] = {"postgresql://", "postgres://", NULL};
    static const char *const users[] = {"", "u@", "u:Zpw@", ":Zpw@", "u:@", "u%40x:Z%2Fpw@",
                                        "u:Zpw/b@", "u:Z?pw@", "u@v:Zpw@", "u:Zpw%zz@", "@", NULL};
    static const char *const hosts[] = {"", "h", "h:5433", "[::1]", "[::1]:1", "a,b", "a:1,b:2",
                                        ",", "h:", "%2Ftmp", "[]", "[::1", "[::1]x", "h:abc",
                                        "h%2", "a,[::1]:2,c", NULL};
    static const char *const paths[] = {"", "/", "/db", "/d%20b", "/d%zz", "/a/b", "/d@x", NULL};
    static const char *const queries[] = {"", "?", "?application_name=x", "?ssl=true", "?bogus=1",
                                          "?a", "?host=%2Fs&port=1", "?application_name=a=b",
                                          "?&", "?options=-c%20x%3D1", "?user=q&password=Zpw",
                                          "?connect_timeout=x", NULL};
    char ci[256];

    for (int a = 0; schemes[a]; a++)
        for (int b = 0; users[b]; b++)
            for (int c = 0; hosts[c]; c++)
                for (int d = 0; paths[d]; d++)
                    for (int e = 0; queries[e]; e++) {
                        snprintf(ci, sizeof ci, "%s%s%s%s%s", schemes[a], users[b], hosts[c],
                                 paths[d], queries[e]);
                        rw_diff_one(st, ci);
                    }
}

/* Generated key=value pairs of two keys with spacing and quoting. */
static void rw_diff_kv(struct rw_diff_stats *st)
{
    static const char *const keys[] = {"host", "port", "user", "password", "dbname", "options",
                                       "sslmode", "requiressl", "application_name", "nokey", NULL};
    static const char *const vals[] = {"v", "'v w'", "''", "'Zpw\\\\'", "Zpw\\ x", "'", "v'",
                                       "\\'", "a=b", NULL};
    static const char *const seps[] = {"=", " = ", "=  ", " =", NULL};
    char ci[256];

    for (int k = 0; keys[k]; k++)
        for (int v = 0; vals[v]; v++)
            for (int s = 0; seps[s]; s++) {
                snprintf(ci, sizeof ci, "%s%s%s", keys[k], seps[s], vals[v]);
                rw_diff_one(st, ci);
                snprintf(ci, sizeof ci, " host=h %s%s%s port=1 ", keys[k], seps[s], vals[v]);
                rw_diff_one(st, ci);
            }
}

/* ---- the environment -------------------------------------------------- */

/* PG* settings; each line is set, compared, then unset. */
static const char *const rw_diff_envs[][4] = {
    {"PGHOST", "/e1,/e2", NULL}, {"PGPORT", "6543", NULL}, {"PGUSER", "eu", NULL},
    {"PGDATABASE", "edb", NULL}, {"PGAPPNAME", "eapp", NULL}, {"PGCONNECT_TIMEOUT", "7", NULL},
    {"PGSSLMODE", "disable", NULL}, {"PGOPTIONS", "-c x=1", NULL}, {"PGREQUIREPEER", "ep", NULL},
    {"PGPASSWORD", "Zpw", NULL}, {"PGPASSFILE", "/e/pass", NULL}, {"PGREQUIRESSL", "1x", NULL},
    {"PGREQUIRESSL", "0", NULL}, {"PGREQUIRESSL", "1", "PGSSLMODE", "allow"},
    {"PGCLIENTENCODING", "UTF8", NULL}, {"PGTARGETSESSIONATTRS", "any", NULL},
    {"PGHOSTADDR", "1.2.3.4", NULL}, {"PGCHANNELBINDING", "disable", NULL},
};

/* The environment variable of parameter i ("PGHOST"), by its keyword in
 * libpq's defaults list. */
static const char *rw_diff_envvar(const PQconninfoOption *defs, enum rw_param i)
{
    const char *key = rw_param_name(i);

    for (; defs && defs->keyword; defs++)
        if (strcmp(defs->keyword, key) == 0)
            return defs->envvar;
    return NULL;
}

static void rw_diff_env(struct rw_diff_stats *st)
{
    for (size_t e = 0; e < sizeof rw_diff_envs / sizeof *rw_diff_envs; e++) {
        const char *const *env = rw_diff_envs[e];
        PQconninfoOption *defs;
        struct rw_params p;
        char err[256], name[128];
        int ok = 1;

        setenv(env[0], env[1], 1);
        if (env[2])
            setenv(env[2], env[3], 1);
        snprintf(name, sizeof name, "env %s=%s%s%s%s", env[0], env[0][2] == 'P' && env[0][3] == 'A' ? "(set)" : env[1],
                 env[2] ? " " : "", env[2] ? env[2] : "", env[2] ? "=..." : "");
        defs = PQconndefaults();
        if (rw_conninfo_parse("", &p, err, sizeof err) || rw_params_from_env(&p)) {
            rw_diff_report(st, name, "rawwire failed");
            ok = 0;
        } else {
            for (int i = 0; i < RW_P_COUNT; i++) {
                const char *ev = rw_diff_envvar(defs, (enum rw_param)i);
                int set = (ev && getenv(ev)) || (i == RW_P_SSLMODE && getenv("PGREQUIRESSL") &&
                                                  getenv("PGREQUIRESSL")[0] == '1');
                if (set && !rw_diff_streq(rw_diff_lpval(defs, rw_param_name((enum rw_param)i)), p.v[i])) {
                    rw_diff_report(st, name, rw_param_name((enum rw_param)i));
                    ok = 0;
                }
            }
            rw_params_free(&p);
        }
        PQconninfoFree(defs);
        unsetenv(env[0]);
        if (env[2])
            unsetenv(env[2]);
        st->cases++;
        st->agree += ok;
    }
}

int main(void)
{
    struct rw_diff_stats st = {0};
    static const char *const clear[] = {"PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE",
                                        "PGPASSWORD", "PGPASSFILE", "PGCONNECT_TIMEOUT", "PGAPPNAME",
                                        "PGOPTIONS", "PGCLIENTENCODING", "PGSSLMODE", "PGGSSENCMODE",
                                        "PGCHANNELBINDING", "PGTARGETSESSIONATTRS", "PGSERVICE",
                                        "PGREQUIRESSL", "PGREQUIREPEER", NULL};

    for (int i = 0; clear[i]; i++)
        unsetenv(clear[i]);
    for (int i = 0; rw_diff_hand[i]; i++)
        rw_diff_one(&st, rw_diff_hand[i]);
    rw_diff_keywords(&st);
    rw_diff_uris(&st);
    rw_diff_kv(&st);
    rw_diff_env(&st);
    printf("test_rawwire_conninfo_diff: %u cases, %u agree with libpq %d (%u also compared with "
           "libpq's decision when connecting; %u refused by rawwire's later checks)\n",
           st.cases, st.agree, PQlibVersion(), st.connect_asked, st.later_refused);
    return st.agree == st.cases ? 0 : 1;
}
