/*
 * check_util.c -- the driver conformance suite (check.h): the text helpers
 * of the checks (statuses, a driver's message quoted and checked, check
 * names), and the child's side of the records (check.c): announcing,
 * beginning and reporting checks, loading the driver and the setup of a task.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_int.h"
#include "host/loader.h"

#define CHK_FILL 0xA5

const uint32_t pgcb_chk_depths[CHK_NDEPTHS] = {1, 10, 1000};

/* ------------------------------------------------------------------------ */
/* Text helpers                                                             */
/* ------------------------------------------------------------------------ */

const char *pgcb_chk_status_name(int rc, char *buf, size_t n)
{
    static const char *const names[] = {
        "PGCB_OK",           "PGCB_ERR_CONNECT", "PGCB_ERR_QUERY",
        "PGCB_ERR_IO",       "PGCB_ERR_PROTOCOL", "PGCB_ERR_CONFIG",
        "PGCB_ERR_NOMEM",    "PGCB_ERR_UNSUPPORTED",
    };
    if (rc >= 0 && (size_t)rc < sizeof names / sizeof names[0])
        return names[rc];
    snprintf(buf, n, "%d (not a PGCB_* status)", rc);
    return buf;
}

const char *pgcb_chk_quote_msg(char *dst, size_t n, const char *err, size_t errlen)
{
    size_t o = 0;
    dst[o++] = '"';
    for (size_t i = 0; i < errlen && err[i]; i++) {
        unsigned char ch = (unsigned char)err[i];
        if (o + 8 >= n || o > 200) {
            o += (size_t)snprintf(dst + o, n - o, "...");
            break;
        }
        if (ch == '"' || ch == '\\')
            o += (size_t)snprintf(dst + o, n - o, "\\%c", ch);
        else if (ch == '\n')
            o += (size_t)snprintf(dst + o, n - o, "\\n");
        else if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(dst + o, n - o, "\\x%02x", ch);
        else if (ch < 0x80)
            dst[o++] = (char)ch;
        else {
            /* A whole valid UTF-8 sequence as it is, any other byte escaped. */
            size_t len = ch >= 0xc2 && ch <= 0xdf ? 2 : ch >= 0xe0 && ch <= 0xef ? 3
                         : ch >= 0xf0 && ch <= 0xf4 ? 4 : 0;
            size_t k = 1;
            while (len && k < len && i + k < errlen &&
                   ((unsigned char)err[i + k] & 0xc0) == 0x80)
                k++;
            if (len && k == len) {
                memcpy(dst + o, err + i, len);
                o += len;
                i += len - 1;
            } else {
                o += (size_t)snprintf(dst + o, n - o, "\\x%02x", ch);
            }
        }
    }
    if (o + 2 > n)
        o = n - 2;
    dst[o++] = '"';
    dst[o] = '\0';
    return dst;
}

char *pgcb_chk_err_reset(char *buf, size_t errlen)
{
    memset(buf, CHK_FILL, errlen + CHK_CANARY);
    return buf;
}

const char *pgcb_chk_msg_problem(const char *buf, size_t errlen, char *why, size_t n)
{
    for (size_t i = errlen; i < errlen + CHK_CANARY; i++)
        if ((unsigned char)buf[i] != CHK_FILL) {
            snprintf(why, n, "wrote past the end of err (errlen %zu: byte %zu changed)", errlen,
                     i);
            return why;
        }
    const char *nul = memchr(buf, '\0', errlen);
    if (!nul) {
        snprintf(why, n, "the message is not NUL-terminated within errlen (%zu)", errlen);
        return why;
    }
    if (nul == buf) {
        snprintf(why, n, "empty message (a failing call writes one line into err)");
        return why;
    }
    for (const char *p = buf; p < nul; p++)
        if (*p == '\n' || *p == '\r') {
            snprintf(why, n, "the message is more than one line (a newline at byte %zu)",
                     (size_t)(p - buf));
            return why;
        }
    return NULL;
}

void pgcb_chk_name_prepare(char *b, size_t n, const struct chk_query *q)
{
    snprintf(b, n, "prepare %s", q->name);
}

void pgcb_chk_name_batch(char *b, size_t n, const struct chk_query *q, uint32_t depth)
{
    snprintf(b, n, "batch %s depth %u", q->name, depth);
}

/* ------------------------------------------------------------------------ */
/* Child side                                                               */
/* ------------------------------------------------------------------------ */

static void c_write(struct chk *c, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = write(c->wfd, s, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            _exit(3); /* the parent is gone */
        }
        s += w;
        len -= (size_t)w;
    }
}

void pgcb_chk_send(struct chk *c, char type, const char *fmt, ...)
{
    char buf[CHK_NAME + CHK_DETAIL + 8];
    va_list ap;
    buf[0] = type;
    va_start(ap, fmt);
    vsnprintf(buf + 1, sizeof buf - 2, fmt, ap);
    va_end(ap);
    size_t len = strlen(buf);
    for (size_t i = 1; i < len; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[len++] = '\n';
    c_write(c, buf, len);
}

size_t pgcb_chk_plan(struct chk *c, const char *name)
{
    size_t i = c->nplan++;
    snprintf(c->plan[i], CHK_NAME, "%s", name);
    c->plan_done[i] = 0;
    pgcb_chk_send(c, 'E', "%s", name);
    return i;
}

void pgcb_chk_begin(struct chk *c, size_t i)
{
    pgcb_chk_send(c, 'B', "%s", c->plan[i]);
}

void pgcb_chk_phase(struct chk *c, const char *what)
{
    pgcb_chk_send(c, 'T', "%s", what);
}

void pgcb_chk_phase_rows(struct chk *c, const char *what, uint64_t rows)
{
    pgcb_chk_send(c, 'T', "%s\t%llu", what, (unsigned long long)rows);
}

void pgcb_chk_result(struct chk *c, size_t i, int ok, const char *fmt, ...)
{
    char detail[CHK_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    for (char *p = detail; *p; p++)
        if (*p == '\t')
            *p = ' ';
    pgcb_chk_send(c, ok ? 'P' : 'F', "%s\t%s", c->plan[i], detail);
    c->plan_done[i] = 1;
}

void pgcb_chk_fail_rest(struct chk *c, const char *fmt, ...)
{
    char why[CHK_DETAIL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < c->nplan; i++)
        if (!c->plan_done[i])
            pgcb_chk_result(c, i, 0, "not run: %s", why);
}

const struct pgcb_driver *pgcb_chk_load(struct chk *c, const char *label, const char *path,
                                        char *err, size_t errlen)
{
    pgcb_chk_phase(c, "load");
    if (pgcb_loader_open(label, path, &c->ld, err, errlen) != 0)
        return NULL;
    return c->ld.drv;
}

const struct pgcb_driver *pgcb_chk_load_checked(struct chk *c)
{
    char err[PGCB_ERRLEN];
    const struct pgcb_driver *d = pgcb_chk_load(c, c->label, c->path, err, sizeof err);
    if (!d)
        pgcb_chk_fail_rest(c, "the driver no longer loads: %s", err);
    return d;
}

struct pgcb_conn *pgcb_chk_open_setup(struct chk *c, const struct pgcb_driver *d)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    struct pgcb_conn *conn = NULL;
    pgcb_chk_phase(c, "open (setup)");
    int rc = d->open(c->conninfo, c->opts, c->nopts, &conn, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                     PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        pgcb_chk_fail_rest(c, "open (setup) returned %s: %s",
                           pgcb_chk_status_name(rc, rcb, sizeof rcb),
                           rc != PGCB_OK ? pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN)
                                         : "no connection");
        return NULL;
    }
    return conn;
}

struct pgcb_conn *pgcb_chk_setup(struct chk *c, const struct pgcb_driver **d)
{
    if (!pgcb_chk_passed(c, "open")) {
        pgcb_chk_fail_rest(c, "open failed");
        return NULL;
    }
    if (!(*d = pgcb_chk_load_checked(c)))
        return NULL;
    return pgcb_chk_open_setup(c, *d);
}

void pgcb_chk_prepare_all(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                          struct pgcb_stmt **stmts, int *ok)
{
    char err[PGCB_ERRLEN + CHK_CANARY];
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        stmts[i] = NULL;
        pgcb_chk_phase(c, "prepare (setup)");
        ok[i] = d->prepare(conn, sname, c->q[i].sql, &stmts[i],
                           pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN) == PGCB_OK;
    }
}
