/*
 * rw_conninfo.c -- see rw_conninfo.h.
 */
#include "rw_conninfo.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rw_err.h"

static const struct {
    const char *key, *env;
} rw_param_info[RW_P_COUNT] = {
    [RW_P_HOST] = {"host", "PGHOST"},
    [RW_P_HOSTADDR] = {"hostaddr", "PGHOSTADDR"},
    [RW_P_PORT] = {"port", "PGPORT"},
    [RW_P_USER] = {"user", "PGUSER"},
    [RW_P_DBNAME] = {"dbname", "PGDATABASE"},
    [RW_P_PASSWORD] = {"password", "PGPASSWORD"},
    [RW_P_PASSFILE] = {"passfile", "PGPASSFILE"},
    [RW_P_CONNECT_TIMEOUT] = {"connect_timeout", "PGCONNECT_TIMEOUT"},
    [RW_P_APPLICATION_NAME] = {"application_name", "PGAPPNAME"},
    [RW_P_FALLBACK_APPLICATION_NAME] = {"fallback_application_name", NULL},
    [RW_P_OPTIONS] = {"options", "PGOPTIONS"},
    [RW_P_CLIENT_ENCODING] = {"client_encoding", "PGCLIENTENCODING"},
    [RW_P_SSLMODE] = {"sslmode", "PGSSLMODE"},
    [RW_P_GSSENCMODE] = {"gssencmode", "PGGSSENCMODE"},
    [RW_P_CHANNEL_BINDING] = {"channel_binding", "PGCHANNELBINDING"},
    [RW_P_TARGET_SESSION_ATTRS] = {"target_session_attrs", "PGTARGETSESSIONATTRS"},
    [RW_P_SERVICE] = {"service", "PGSERVICE"},
    [RW_P_REQUIRESSL] = {"requiressl", "PGREQUIRESSL"}, /* env: see rw_params_from_env */
    [RW_P_REQUIREPEER] = {"requirepeer", "PGREQUIREPEER"},
    [RW_P_SSL_MIN_PROTOCOL_VERSION] = {"ssl_min_protocol_version", "PGSSLMINPROTOCOLVERSION"},
    [RW_P_SSL_MAX_PROTOCOL_VERSION] = {"ssl_max_protocol_version", "PGSSLMAXPROTOCOLVERSION"},
    [RW_P_SSLROOTCERT] = {"sslrootcert", "PGSSLROOTCERT"},
    [RW_P_SSLCERT] = {"sslcert", "PGSSLCERT"},
    [RW_P_SSLKEY] = {"sslkey", "PGSSLKEY"},
    [RW_P_SSLPASSWORD] = {"sslpassword", NULL},
    [RW_P_SSLCRL] = {"sslcrl", "PGSSLCRL"},
    [RW_P_SSLCRLDIR] = {"sslcrldir", "PGSSLCRLDIR"},
    [RW_P_SSLSNI] = {"sslsni", "PGSSLSNI"},
};

/* Keys libpq (15) accepts that rawwire ignores: keepalives, Kerberos,
 * TLS compression (which OpenSSL 3 no longer offers, so libpq's request for
 * it is a no-op too) ... (their defaults are what rawwire does anyway). */
static const char *const rw_ignored_keys[] = {
    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
    "tcp_user_timeout", "sslcompression", "krbsrvname", "gsslib", "replication", NULL,
};

const char *rw_param_name(enum rw_param p)
{
    return rw_param_info[p].key;
}

const char *rw_param_env(enum rw_param p)
{
    return rw_param_info[p].env;
}

void rw_params_free(struct rw_params *p)
{
    for (int i = 0; i < RW_P_COUNT; i++) {
        free(p->v[i]);
        p->v[i] = NULL;
    }
}

/* True if `s` could hold a password (a "password" key, or a URI with a
 * user-info part): error messages then quote no piece of it, since a
 * mis-quoted password can look like a key. Conservative. */
static int rw_may_hold_password(const char *s)
{
    return strcasestr(s, "password") != NULL ||
           ((strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0) &&
            strchr(s, '@') != NULL);
}

/* Replace p->v[which] by a copy of val (n bytes). 0, or -2 out of memory. */
static int rw_param_put(struct rw_params *p, enum rw_param which, const char *val, size_t n)
{
    char *v = strndup(val, n);

    if (!v)
        return -2;
    free(p->v[which]);
    p->v[which] = v;
    return 0;
}

/* libpq's requiressl: sslmode=require for a value starting with '1', else
 * sslmode=prefer. The value itself is kept too. 0, or -2 out of memory. */
static int rw_param_set_requiressl(struct rw_params *p, const char *val, size_t n)
{
    int on = n > 0 && val[0] == '1';

    if (rw_param_put(p, RW_P_REQUIRESSL, val, n) ||
        rw_param_put(p, RW_P_SSLMODE, on ? "require" : "prefer", on ? 7 : 6))
        return -2;
    return 0;
}

/* Store value (n bytes) for key; a later occurrence replaces an earlier one,
 * as in libpq. 0, 1 for an ignored key, -1 unknown key, -2 out of memory. */
static int rw_param_set(struct rw_params *p, const char *key, size_t keylen, const char *val,
                        size_t n)
{
    if (keylen == 10 && memcmp(key, "requiressl", 10) == 0)
        return rw_param_set_requiressl(p, val, n);
    for (int i = 0; i < RW_P_COUNT; i++) {
        if (strlen(rw_param_info[i].key) == keylen && memcmp(rw_param_info[i].key, key, keylen) == 0) {
            char *v = strndup(val, n);
            if (!v)
                return -2;
            free(p->v[i]);
            p->v[i] = v;
            return 0;
        }
    }
    for (int i = 0; rw_ignored_keys[i]; i++)
        if (strlen(rw_ignored_keys[i]) == keylen && memcmp(rw_ignored_keys[i], key, keylen) == 0)
            return 1;
    return -1;
}

static int rw_set_or_fail(struct rw_params *p, const char *key, size_t keylen, const char *val,
                          size_t n, int quiet, char *err, size_t errlen)
{
    int rc = rw_param_set(p, key, keylen, val, n);

    if (rc == -1) {
        if (quiet)
            rw_errf(err, errlen, "invalid connection option (not quoted: the string may hold a password)");
        else
            rw_errf(err, errlen, "invalid connection option \"%.*s\"", keylen > 64 ? 64 : (int)keylen, key);
        return -1;
    }
    if (rc == -2) {
        rw_errf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- key=value ---------------------------------------------------------- */

static int rw_parse_kv(const char *s, struct rw_params *p, char *err, size_t errlen)
{
    const char *start = s;
    int quiet = rw_may_hold_password(s);
    size_t cap = strlen(s) + 1;
    char *val = malloc(cap);

    if (!val) {
        rw_errf(err, errlen, "out of memory");
        return -1;
    }
    for (;;) {
        const char *key;
        size_t keylen, n = 0;

        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        key = s;
        while (*s && *s != '=' && !isspace((unsigned char)*s))
            s++;
        keylen = (size_t)(s - key);
        while (isspace((unsigned char)*s))
            s++;
        if (*s != '=') {
            if (quiet)
                rw_errf(err, errlen, "missing \"=\" after the keyword at offset %zu of the connection "
                                     "info string", (size_t)(key - start));
            else
                rw_errf(err, errlen, "missing \"=\" after \"%.*s\" in connection info string",
                        keylen > 64 ? 64 : (int)keylen, key);
            goto fail;
        }
        s++;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\'') {
            s++;
            for (;;) {
                if (!*s) {
                    rw_errf(err, errlen, "unterminated quoted string in connection info string");
                    goto fail;
                }
                if (*s == '\\' && s[1]) {
                    val[n++] = s[1];
                    s += 2;
                } else if (*s == '\'') {
                    s++;
                    break;
                } else {
                    val[n++] = *s++;
                }
            }
        } else {
            /* '\\' takes the next character; a '\\' at the very end is
             * dropped (libpq's conninfo_parse) */
            while (*s && !isspace((unsigned char)*s)) {
                if (*s == '\\') {
                    if (*++s)
                        val[n++] = *s++;
                } else {
                    val[n++] = *s++;
                }
            }
        }
        if (rw_set_or_fail(p, key, keylen, val, n, quiet, err, errlen))
            goto fail;
    }
    free(val);
    return 0;
fail:
    free(val);
    return -1;
}

/* ---- URI ---------------------------------------------------------------- */

static int rw_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode s[0..n) into out (room for n + 1); *outlen its length.
 * -1 on a bad escape or an encoded NUL. */
static int rw_pct_decode(const char *s, size_t n, char *out, size_t *outlen)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi, lo;
            if (i + 2 >= n)
                return -1;
            hi = rw_hexval((unsigned char)s[i + 1]);
            lo = rw_hexval((unsigned char)s[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                return -1;
            out[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    *outlen = o;
    return 0;
}

static int rw_uri_set(struct rw_params *p, enum rw_param which, const char *s, size_t n, char *buf,
                      int quiet, char *err, size_t errlen)
{
    size_t m;
    const char *key = rw_param_info[which].key;

    if (rw_pct_decode(s, n, buf, &m)) {
        rw_errf(err, errlen, "invalid percent-encoded token in the URI's %s", key);
        return -1;
    }
    return rw_set_or_fail(p, key, strlen(key), buf, m, quiet, err, errlen);
}

/* The user info of a URI at u, as libpq's conninfo_uri_parse_options finds
 * it: only if an '@' comes before any '/' (a '?' does not stop the search);
 * the user up to the first ':' (or that '@'), the password from there to
 * the '@'; empty ones are not stored. *rest: after the '@', or u. */
static int rw_uri_userinfo(struct rw_params *p, const char *u, const char **rest, char *buf,
                           int quiet, char *err, size_t errlen)
{
    const char *at = u + strcspn(u, "@/"), *colon;

    *rest = u;
    if (*at != '@')
        return 0;
    colon = memchr(u, ':', (size_t)(at - u));
    if ((colon ? colon : at) > u &&
        rw_uri_set(p, RW_P_USER, u, (size_t)((colon ? colon : at) - u), buf, quiet, err, errlen))
        return -1;
    if (colon && at > colon + 1 &&
        rw_uri_set(p, RW_P_PASSWORD, colon + 1, (size_t)(at - colon - 1), buf, quiet, err, errlen))
        return -1;
    *rest = at + 1;
    return 0;
}

/* Append s[0..n) percent-decoded to out at *len. -1 on a bad escape. */
static int rw_uri_append(char *out, size_t *len, const char *s, size_t n)
{
    size_t m;

    if (rw_pct_decode(s, n, out + *len, &m))
        return -1;
    *len += m;
    return 0;
}

/* The host list at u (libpq's loop): `[v6]` or a name up to ':' '/' '?' ','
 * or the end, then optionally ':' and a port up to '/' '?' ',' or the end;
 * ',' starts the next one. host / port are stored when their (comma-joined)
 * text is not empty. *end: the terminator ('/', '?' or the NUL). */
static int rw_uri_hosts(struct rw_params *p, const char *u, const char **end, char *hosts,
                        char *ports, int quiet, char *err, size_t errlen)
{
    size_t nh = 0, np = 0;

    for (;;) {
        const char *hs = u, *he;
        if (*u == '[') {
            hs = ++u;
            u += strcspn(u, "]");
            if (!*u) {
                rw_errf(err, errlen, "missing \"]\" in the URI's IPv6 host address");
                return -1;
            }
            if (u == hs) {
                rw_errf(err, errlen, "IPv6 host address may not be empty in the URI");
                return -1;
            }
            he = u++;
            if (*u && !strchr(":/?,", *u)) {
                rw_errf(err, errlen, "unexpected character after the URI's IPv6 host address "
                                     "(expected \":\" or \"/\")");
                return -1;
            }
        } else {
            u += strcspn(u, ":/?,");
            he = u;
        }
        if (rw_uri_append(hosts, &nh, hs, (size_t)(he - hs))) {
            rw_errf(err, errlen, "invalid percent-encoded token in the URI's host");
            return -1;
        }
        if (*u == ':') {
            const char *ps = ++u;
            u += strcspn(u, "/?,");
            if (rw_uri_append(ports, &np, ps, (size_t)(u - ps))) {
                rw_errf(err, errlen, "invalid percent-encoded token in the URI's port");
                return -1;
            }
        }
        if (*u != ',')
            break;
        u++;
        hosts[nh++] = ',';
        ports[np++] = ',';
    }
    hosts[nh] = ports[np] = '\0';
    *end = u;
    if (nh && rw_set_or_fail(p, "host", 4, hosts, nh, quiet, err, errlen))
        return -1;
    if (np && rw_set_or_fail(p, "port", 4, ports, np, quiet, err, errlen))
        return -1;
    return 0;
}

static int rw_parse_uri(const char *s, size_t prefix, struct rw_params *p, char *err, size_t errlen)
{
    const char *u = s + prefix, *end, *q;
    size_t cap = strlen(s) * 2 + 2;
    char *buf = malloc(cap), *hosts = malloc(cap), *ports = malloc(cap);
    int rc = -1, quiet = rw_may_hold_password(s);

    if (!buf || !hosts || !ports) {
        rw_errf(err, errlen, "out of memory");
        goto out;
    }
    if (rw_uri_userinfo(p, u, &u, buf, quiet, err, errlen) ||
        rw_uri_hosts(p, u, &end, hosts, ports, quiet, err, errlen))
        goto out;
    u = end;
    if (*u == '/') {
        q = u + 1 + strcspn(u + 1, "?");
        if (q > u + 1 && rw_uri_set(p, RW_P_DBNAME, u + 1, (size_t)(q - u - 1), buf, quiet, err, errlen))
            goto out;
        u = q;
    }
    if (*u == '?') {
        u++;
        while (*u) {
            const char *amp = u + strcspn(u, "&"), *eq = memchr(u, '=', (size_t)(amp - u));
            size_t kl, vl;
            char *kbuf;
            if (!eq) {
                rw_errf(err, errlen, "missing key/value separator \"=\" in the URI's query parameters");
                goto out;
            }
            if (memchr(eq + 1, '=', (size_t)(amp - eq - 1))) { /* libpq refuses "k=v=w" */
                rw_errf(err, errlen, "extra key/value separator \"=\" in the URI's query parameters");
                goto out;
            }
            if (rw_pct_decode(u, (size_t)(eq - u), buf, &kl)) {
                rw_errf(err, errlen, "invalid percent-encoded token in the URI's query parameters");
                goto out;
            }
            kbuf = buf + kl + 1;
            if (rw_pct_decode(eq + 1, (size_t)(amp - eq - 1), kbuf, &vl)) {
                rw_errf(err, errlen, "invalid percent-encoded token in the URI's query parameters");
                goto out;
            }
            if (strcmp(buf, "ssl") == 0 && strcmp(kbuf, "true") == 0) {
                if (rw_set_or_fail(p, "sslmode", 7, "require", 7, quiet, err, errlen))
                    goto out;
            } else if (rw_set_or_fail(p, buf, kl, kbuf, vl, quiet, err, errlen)) {
                goto out;
            }
            u = *amp ? amp + 1 : amp;
        }
    }
    rc = 0;
out:
    free(buf);
    free(hosts);
    free(ports);
    return rc;
}

int rw_conninfo_parse(const char *conninfo, struct rw_params *p, char *err, size_t errlen)
{
    int rc;

    memset(p, 0, sizeof *p);
    if (!conninfo)
        conninfo = "";
    if (strncmp(conninfo, "postgresql://", 13) == 0)
        rc = rw_parse_uri(conninfo, 13, p, err, errlen);
    else if (strncmp(conninfo, "postgres://", 11) == 0)
        rc = rw_parse_uri(conninfo, 11, p, err, errlen);
    else
        rc = rw_parse_kv(conninfo, p, err, errlen);
    if (rc)
        rw_params_free(p);
    else
        p->secret_in_string = rw_may_hold_password(conninfo);
    return rc;
}

/* ---- environment and defaults ------------------------------------------- */

int rw_params_from_env(struct rw_params *p)
{
    const char *e;

    for (int i = 0; i < RW_P_COUNT; i++) {
        if (i == RW_P_REQUIRESSL || p->v[i] || !rw_param_info[i].env ||
            !(e = getenv(rw_param_info[i].env)))
            continue;
        if (!(p->v[i] = strdup(e)))
            return -1;
    }
    /* libpq: PGREQUIRESSL=1... only when sslmode came from nowhere */
    if (!p->v[RW_P_SSLMODE] && (e = getenv("PGREQUIRESSL")) && e[0] == '1') {
        if (!(p->v[RW_P_SSLMODE] = strdup("require")))
            return -1;
    }
    return 0;
}

static int rw_is(const char *v, const char *a)
{
    return v && strcmp(v, a) == 0;
}

static int rw_default(struct rw_params *p, enum rw_param which, const char *val)
{
    if (p->v[which] && *p->v[which])
        return 0;
    free(p->v[which]);
    return (p->v[which] = strdup(val)) ? 0 : -1;
}

/* Is v one of the NULL-terminated words? */
static int rw_one_of(const char *v, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(v, *words) == 0)
            return 1;
    return 0;
}

/* The enumerated keys, checked as libpq's connectOptions2 checks them (a
 * value given, even "", must be one of libpq's words), then refused where
 * rawwire cannot do what the value asks. 0, or -1 with err set. */
static int rw_check_modes(const struct rw_params *p, char *err, size_t errlen)
{
    static const char *const sslmodes[] = {"disable", "allow", "prefer", "require", "verify-ca",
                                           "verify-full", NULL};
    static const char *const gssmodes[] = {"disable", "prefer", "require", NULL};
    static const char *const cbmodes[] = {"disable", "prefer", "require", NULL};
    static const char *const tsattrs[] = {"any", "read-write", "read-only", "primary", "standby",
                                          "prefer-standby", NULL};
    const char *v;

    if ((v = p->v[RW_P_SSLMODE]) && !rw_one_of(v, sslmodes)) {
        rw_errf(err, errlen, "invalid sslmode value (expected disable, allow, prefer, require, "
                             "verify-ca or verify-full)");
        return -1;
    }
    if ((v = p->v[RW_P_GSSENCMODE]) && !rw_one_of(v, gssmodes)) {
        rw_errf(err, errlen, "invalid gssencmode value (expected disable, prefer or require)");
        return -1;
    }
    if (rw_is(v, "require")) {
        rw_errf(err, errlen, "gssencmode=require is not supported by rawwire (no GSSAPI)");
        return -1;
    }
    if ((v = p->v[RW_P_CHANNEL_BINDING]) && !rw_one_of(v, cbmodes)) {
        rw_errf(err, errlen, "invalid channel_binding value (expected disable, prefer or require)");
        return -1;
    }
    if ((v = p->v[RW_P_TARGET_SESSION_ATTRS]) && !rw_one_of(v, tsattrs)) {
        rw_errf(err, errlen, "invalid target_session_attrs value (expected any, read-write, "
                             "read-only, primary, standby or prefer-standby)");
        return -1;
    }
    if (v && !rw_is(v, "any")) {
        rw_errf(err, errlen, "target_session_attrs=%s is not supported by rawwire (only any)", v);
        return -1;
    }
    return 0;
}

/* libpq's sslVerifyProtocolVersion: NULL, "" or TLSv1[.1-3], any case. */
static int rw_tls_version_ok(const char *v)
{
    static const char *const versions[] = {"tlsv1", "tlsv1.1", "tlsv1.2", "tlsv1.3", NULL};

    if (!v || !*v)
        return 1;
    for (int i = 0; versions[i]; i++)
        if (strcasecmp(v, versions[i]) == 0)
            return 1;
    return 0;
}

/* ssl_min/max_protocol_version as libpq checks them (a bad value is
 * refused even when no TLS is used, as libpq refuses it); min defaults to
 * TLSv1.2 as in libpq. 0, or -1 with err set. */
static int rw_check_tls_versions(const struct rw_params *p, char *err, size_t errlen)
{
    const char *min = p->v[RW_P_SSL_MIN_PROTOCOL_VERSION], *max = p->v[RW_P_SSL_MAX_PROTOCOL_VERSION];

    if (!min)
        min = "TLSv1.2";
    if (!rw_tls_version_ok(min) || !rw_tls_version_ok(max)) {
        rw_errf(err, errlen, "invalid %s value (expected TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)",
                rw_tls_version_ok(min) ? "ssl_max_protocol_version" : "ssl_min_protocol_version");
        return -1;
    }
    if (!*min || !max || !*max || strcasecmp(min, "TLSv1") == 0)
        return 0;
    if (strcasecmp(max, "TLSv1") == 0 || strcasecmp(min, max) > 0) {
        rw_errf(err, errlen, "invalid SSL protocol version range (ssl_min_protocol_version, "
                             "ssl_max_protocol_version)");
        return -1;
    }
    return 0;
}

/* libpq's parse_int_param: strtol (leading white space allowed) made some
 * progress, fits an int, and only white space follows ("" is invalid).
 * 1 with *out set, or 0. */
static int rw_parse_int(const char *v, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (end == v || errno != 0 || n != (int)n)
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    *out = (int)n;
    return *end == '\0';
}

int rw_params_finish(struct rw_params *p, char *err, size_t errlen)
{
    const char *v;

    if (p->v[RW_P_SERVICE] && *p->v[RW_P_SERVICE]) {
        rw_errf(err, errlen, "service is not supported by rawwire (no pg_service.conf lookup)");
        return -1;
    }
    if (rw_check_modes(p, err, errlen) || rw_check_tls_versions(p, err, errlen))
        return -1;
    v = p->v[RW_P_CONNECT_TIMEOUT];
    if (v && !rw_parse_int(v, &(int){0})) {
        rw_errf(err, errlen, "invalid integer value for connect_timeout");
        return -1;
    }
    if (!p->v[RW_P_USER] || !*p->v[RW_P_USER]) {
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) != 0 || !res) {
            rw_errf(err, errlen, "could not look up the local user name (uid %u); set user",
                    (unsigned)geteuid());
            return -1;
        }
        if (rw_default(p, RW_P_USER, pw.pw_name))
            goto oom;
    }
    if (rw_default(p, RW_P_DBNAME, p->v[RW_P_USER]) || rw_default(p, RW_P_PORT, "5432"))
        goto oom;
    return 0;
oom:
    rw_errf(err, errlen, "out of memory");
    return -1;
}

/* ---- targets ------------------------------------------------------------ */

/* Number of comma-separated items in s (1 for "" or NULL). */
static size_t rw_count_items(const char *s)
{
    size_t n = 1;
    for (; s && *s; s++)
        n += *s == ',';
    return n;
}

/* The i-th comma-separated item of s (NULL: ""), malloc'd. */
static char *rw_item(const char *s, size_t i)
{
    const char *e;

    if (!s)
        return strdup("");
    while (i-- > 0) {
        s = strchr(s, ',');
        if (!s)
            return strdup("");
        s++;
    }
    e = strchr(s, ',');
    return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* A target's port as libpq's PQconnectPoll reads it: "" is 5432, else
 * parse_int_param and 1..65535. *port is replaced by the number in decimal
 * (" 5 " is "5"). 0, -1 invalid (*port untouched), -2 out of memory. */
static int rw_target_port(char **port)
{
    char num[8], *dup;
    int pn = 5432;

    if (**port && (!rw_parse_int(*port, &pn) || pn < 1 || pn > 65535))
        return -1;
    snprintf(num, sizeof num, "%d", pn);
    if (!(dup = strdup(num)))
        return -2;
    free(*port);
    *port = dup;
    return 0;
}

void rw_targets_free(struct rw_target *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        free(t[i].host);
        free(t[i].hostaddr);
        free(t[i].port);
    }
    free(t);
}

int rw_params_targets(const struct rw_params *p, struct rw_target **out, size_t *n, char *err,
                      size_t errlen)
{
    const char *host = p->v[RW_P_HOST], *addr = p->v[RW_P_HOSTADDR], *port = p->v[RW_P_PORT];
    size_t nh = host && *host ? rw_count_items(host) : 0;
    size_t na = addr && *addr ? rw_count_items(addr) : 0;
    size_t np = rw_count_items(port), count;
    struct rw_target *t;

    if (nh && na && nh != na) {
        rw_errf(err, errlen, "could not match %zu host names to %zu hostaddr values", nh, na);
        return -1;
    }
    count = nh > na ? nh : na;
    if (count == 0)
        count = 1;
    if (np != 1 && np != count) {
        rw_errf(err, errlen, "could not match %zu port numbers to %zu hosts", np, count);
        return -1;
    }
    t = calloc(count, sizeof *t);
    if (!t)
        goto oom;
    for (size_t i = 0; i < count; i++) {
        int rc;
        t[i].host = rw_item(nh ? host : NULL, i);
        t[i].hostaddr = rw_item(na ? addr : NULL, i);
        t[i].port = rw_item(port, np == 1 ? 0 : i);
        if (!t[i].host || !t[i].hostaddr || !t[i].port) {
            rw_targets_free(t, count);
            goto oom;
        }
        rc = rw_target_port(&t[i].port);
        if (rc == -2) {
            rw_targets_free(t, count);
            goto oom;
        }
        if (rc == -1) {
            if (p->secret_in_string) /* the "port" may be a piece of a password */
                rw_errf(err, errlen, "invalid port number (item %zu of port; not quoted: the "
                                     "string may hold a password)", (np == 1 ? 0 : i) + 1);
            else
                rw_errf(err, errlen, "invalid port number: \"%.16s\"", t[i].port);
            rw_targets_free(t, count);
            return -1;
        }
    }
    *out = t;
    *n = count;
    return 0;
oom:
    rw_errf(err, errlen, "out of memory");
    return -1;
}
