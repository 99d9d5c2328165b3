/*
 * pq_errmsg.c -- see pq_errmsg.h.
 */
#include "pq_errmsg.h"

#include <libpq-fe.h>

#include <pgcb/driver.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A bounded writer into the caller's buffer. */
struct pq_out {
    char *buf;
    size_t cap; /* >= 1 */
    size_t len;
    int truncated;
};

static void pq_out_putn(struct pq_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (o->len + 1 >= o->cap) {
            o->truncated = 1;
            return;
        }
        o->buf[o->len++] = s[i];
    }
}

static void pq_out_puts(struct pq_out *o, const char *s)
{
    pq_out_putn(o, s, strlen(s));
}

/* After truncation, drop a UTF-8 sequence that was cut in the middle. */
static size_t pq_utf8_trim(const char *b, size_t len)
{
    size_t k = 0;
    while (k < 3 && k < len && ((unsigned char)b[len - 1 - k] & 0xc0) == 0x80)
        k++;
    if (k == len)
        return len;
    unsigned char lead = (unsigned char)b[len - 1 - k];
    size_t need = (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 1;
    return need > k + 1 ? len - 1 - k : len;
}

static void pq_out_finish(struct pq_out *o)
{
    if (o->truncated)
        o->len = pq_utf8_trim(o->buf, o->len);
    while (o->len > 0 && (o->buf[o->len - 1] == ' ' || o->buf[o->len - 1] == '\t'))
        o->len--;
    o->buf[o->len] = '\0';
}

static int pq_is_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

void pgcb_pq_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void pgcb_pq_err_oneline(char *err, size_t errlen, const char *prefix, const char *msg,
                         const char *secret)
{
    struct pq_out o = {err, errlen, 0, 0};
    size_t slen = secret ? strlen(secret) : 0;
    int sep = 0;
    const char *p = msg ? msg : "";

    if (prefix)
        pq_out_puts(&o, prefix);
    while (pq_is_space(*p))
        p++;
    while (*p) {
        if (*p == '\n' || *p == '\r') {
            while (pq_is_space(*p))
                p++;
            sep = 1;
            continue;
        }
        if (sep) {
            pq_out_puts(&o, "; ");
            sep = 0;
        }
        /* Redaction is literal: a password equal to, say, the user name
         * also hides the user name. Never showing it wins. */
        if (slen && strncmp(p, secret, slen) == 0) {
            pq_out_puts(&o, "***");
            p += slen;
            continue;
        }
        pq_out_putn(&o, p++, 1);
    }
    pq_out_finish(&o);
}

void pgcb_pq_err_result(char *err, size_t errlen, const PGresult *res, const PGconn *conn)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *prim = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *msg;
    char prefix[16];

    if (state && prim) {
        snprintf(prefix, sizeof prefix, "%.5s: ", state);
        pgcb_pq_err_oneline(err, errlen, prefix, prim, NULL);
        return;
    }
    msg = res ? PQresultErrorMessage(res) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(conn);
    if (!msg || !*msg)
        msg = "libpq reported an error without a message";
    pgcb_pq_err_oneline(err, errlen, NULL, msg, NULL);
}

int pgcb_pq_conninfo_may_hold_password(const char *conninfo)
{
    for (const char *p = conninfo; *p; p++)
        if (strncasecmp(p, "password", 8) == 0)
            return 1;
    /* URIs: user:password@host, or a (possibly %-encoded) ?password=. */
    if (strncmp(conninfo, "postgresql://", 13) == 0 || strncmp(conninfo, "postgres://", 11) == 0)
        return strchr(conninfo, '@') != NULL || strchr(conninfo, '?') != NULL;
    return 0;
}

int pgcb_pq_check_conninfo(const char *conninfo, char *err, size_t errlen)
{
    char *msg = NULL;
    PQconninfoOption *parsed = PQconninfoParse(conninfo, &msg);

    if (parsed) {
        PQconninfoFree(parsed);
        return PGCB_OK;
    }
    if (!msg) {
        pgcb_pq_errf(err, errlen, "out of memory parsing the connection string");
        return PGCB_ERR_NOMEM;
    }
    if (pgcb_pq_conninfo_may_hold_password(conninfo))
        pgcb_pq_errf(err, errlen, "invalid connection string (libpq's message withheld: "
                                  "it may quote the password)");
    else
        pgcb_pq_err_oneline(err, errlen, "invalid connection string: ", msg, NULL);
    PQfreemem(msg);
    return PGCB_ERR_CONNECT;
}

void pgcb_pq_ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}
