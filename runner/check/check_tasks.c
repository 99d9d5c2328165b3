/*
 * check_tasks.c -- the driver conformance suite (check.h): the tasks of a
 * connection's ordinary use: open and close, options (an unknown one, a
 * short error buffer, the declared defaults), prepare, the batches of each
 * query, and the reference driver's checksums.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "util.h"

#define CHK_UNKNOWN_OPTION "pgcb_check_no_such_option"

static double ms_since(uint64_t t0)
{
    return (double)(pgcb_now_ns() - t0) / 1e6;
}

/* What *out holds before open() runs: a failing open must store NULL. */
static char chk_sentinel;
#define CHK_UNSET ((struct pgcb_conn *)(void *)&chk_sentinel)

/* Open with `opts` and an error buffer of errlen; *conn is what open()
 * stored (CHK_UNSET if nothing). */
static int open_with(struct chk *c, const struct pgcb_driver *d, const struct pgcb_option *opts,
                     size_t nopts, char *err, size_t errlen, struct pgcb_conn **conn)
{
    *conn = CHK_UNSET;
    pgcb_chk_phase(c, "open");
    return d->open(c->conninfo, opts, nopts, conn, pgcb_chk_err_reset(err, errlen), errlen);
}

static int is_conn(const struct pgcb_conn *conn)
{
    return conn && conn != CHK_UNSET;
}

void pgcb_chk_task_open(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    size_t i_open = pgcb_chk_plan(c, "open"), i_close = pgcb_chk_plan(c, "close"),
           i_null = pgcb_chk_plan(c, "close_null");
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;

    pgcb_chk_begin(c, i_open);
    pgcb_chk_phase(c, "open");
    struct pgcb_conn *conn;
    uint64_t t0 = pgcb_now_ns();
    int rc = open_with(c, d, c->opts, c->nopts, err, PGCB_ERRLEN, &conn);
    double ms = ms_since(t0);
    if (rc != PGCB_OK) {
        char why[160];
        const char *bad = pgcb_chk_msg_problem(err, PGCB_ERRLEN, why, sizeof why);
        pgcb_chk_result(c, i_open, 0, "returned %s: %s%s%s%s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN), bad ? " (and " : "",
                        bad ? bad : "", bad ? ")" : "");
        pgcb_chk_fail_rest(c, "open failed");
        return;
    }
    if (!is_conn(conn)) {
        pgcb_chk_result(c, i_open, 0, "returned PGCB_OK but stored no connection in *out");
        pgcb_chk_fail_rest(c, "open failed");
        return;
    }
    pgcb_chk_result(c, i_open, 1, "%s in %.1f ms", (c->caps & PGCB_CAP_NO_IO) ? "opened (no I/O)"
                    : "connected", ms);

    pgcb_chk_begin(c, i_close);
    pgcb_chk_phase(c, "close");
    t0 = pgcb_now_ns();
    d->close(conn);
    pgcb_chk_result(c, i_close, 1, "returned in %.1f ms", ms_since(t0));

    pgcb_chk_begin(c, i_null);
    pgcb_chk_phase(c, "close");
    d->close(NULL);
    pgcb_chk_result(c, i_null, 1, "close(NULL) returned");
}

void pgcb_chk_task_options(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[160];
    size_t i_unknown = pgcb_chk_plan(c, "open_unknown_option"),
           i_short = pgcb_chk_plan(c, "errlen16_open"),
           i_defaults = pgcb_chk_plan(c, "open_defaults");
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;
    /* The options given (-O), and one the driver cannot know. */
    struct pgcb_option with_bad[65];
    size_t nbad = 0;
    for (size_t k = 0; k < c->nopts && nbad < 64; k++)
        with_bad[nbad++] = c->opts[k];
    with_bad[nbad++] = (struct pgcb_option){CHK_UNKNOWN_OPTION, "1"};
    const struct pgcb_option *bad = with_bad;
    struct pgcb_conn *conn;

    pgcb_chk_begin(c, i_unknown);
    int rc = open_with(c, d, bad, nbad, err, PGCB_ERRLEN, &conn);
    if (rc == PGCB_OK) {
        pgcb_chk_phase(c, "close");
        if (is_conn(conn))
            d->close(conn);
        pgcb_chk_result(c, i_unknown, 0, "accepted the unknown option " CHK_UNKNOWN_OPTION
                        " (PGCB_OK): must refuse it with PGCB_ERR_CONFIG and a message");
    } else if (rc != PGCB_ERR_CONFIG) {
        pgcb_chk_result(c, i_unknown, 0, "returned %s, expected PGCB_ERR_CONFIG: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    } else if (pgcb_chk_msg_problem(err, PGCB_ERRLEN, why, sizeof why)) {
        pgcb_chk_result(c, i_unknown, 0, "PGCB_ERR_CONFIG, but %s", why);
    } else if (conn) {
        pgcb_chk_result(c, i_unknown, 0, "PGCB_ERR_CONFIG, but *out is %s (a failing open "
                        "stores NULL)", conn == CHK_UNSET ? "left unset" : "not NULL");
    } else {
        pgcb_chk_result(c, i_unknown, 1, "PGCB_ERR_CONFIG: %s",
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    }

    pgcb_chk_begin(c, i_short);
    rc = open_with(c, d, bad, nbad, err, CHK_SHORT_ERRLEN, &conn);
    if (rc == PGCB_OK) {
        pgcb_chk_phase(c, "close");
        if (is_conn(conn))
            d->close(conn);
        pgcb_chk_result(c, i_short, 0, "the unknown option was accepted: no message to check");
    } else if (pgcb_chk_msg_problem(err, CHK_SHORT_ERRLEN, why, sizeof why)) {
        pgcb_chk_result(c, i_short, 0, "%s: %s", pgcb_chk_status_name(rc, rcb, sizeof rcb), why);
    } else {
        pgcb_chk_result(c, i_short, 1, "%s (%zu bytes + NUL within errlen %d, nothing written "
                        "past it)", pgcb_chk_quote_msg(qm, sizeof qm, err, CHK_SHORT_ERRLEN),
                        strlen(err), CHK_SHORT_ERRLEN);
    }

    pgcb_chk_begin(c, i_defaults);
    if (!pgcb_chk_passed(c, "open")) {
        pgcb_chk_result(c, i_defaults, 0, "not run: open failed");
        return;
    }
    /* Every declared default, with the options given (-O) for the keys that
     * have no default, or whose value was given. */
    struct pgcb_option opts[64];
    size_t n = 0, ndefaults = 0;
    char list[256] = "";
    for (const struct pgcb_option_spec *o = d->options; o && o->key && n < 64; o++) {
        const char *given = NULL;
        for (size_t k = 0; k < c->nopts; k++)
            if (strcmp(c->opts[k].key, o->key) == 0)
                given = c->opts[k].value;
        if (!given && !o->default_value)
            continue;
        opts[n++] = (struct pgcb_option){o->key, given ? given : o->default_value};
        ndefaults += !given;
        if (!given)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s=%s",
                     ndefaults > 1 ? ", " : "", o->key, o->default_value);
    }
    if (ndefaults == 0) {
        pgcb_chk_result(c, i_defaults, 1, "no option declares a default: nothing to check");
        return;
    }
    rc = open_with(c, d, opts, n, err, PGCB_ERRLEN, &conn);
    if (rc != PGCB_OK || !is_conn(conn)) {
        pgcb_chk_result(c, i_defaults, 0, "open with every option at its declared default (%s) "
                        "returned %s: %s", list, pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        rc == PGCB_OK ? "no connection"
                                      : pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    pgcb_chk_phase(c, "close");
    d->close(conn);
    pgcb_chk_result(c, i_defaults, 1, "opened with %s", list);
}

void pgcb_chk_task_prepare(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], name[CHK_NAME], why[160];
    for (size_t i = 0; i < c->nq; i++) {
        pgcb_chk_name_prepare(name, sizeof name, &c->q[i]);
        pgcb_chk_plan(c, name);
    }
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = pgcb_chk_setup(c, &d);
    if (!conn)
        return;
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        struct pgcb_stmt *st = NULL;
        pgcb_chk_begin(c, i);
        pgcb_chk_phase(c, "prepare");
        uint64_t t0 = pgcb_now_ns();
        int rc = d->prepare(conn, sname, c->q[i].sql, &st, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                            PGCB_ERRLEN);
        double ms = ms_since(t0);
        if (rc == PGCB_OK)
            pgcb_chk_result(c, i, 1, "statement %s in %.1f ms", sname, ms);
        else {
            const char *bad = pgcb_chk_msg_problem(err, PGCB_ERRLEN, why, sizeof why);
            pgcb_chk_result(c, i, 0, "returned %s: %s%s%s",
                            pgcb_chk_status_name(rc, rcb, sizeof rcb),
                            pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN),
                            bad ? "; and " : "", bad ? bad : "");
        }
    }
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
}

/* The batches of query c->arg_q at every depth, on one connection where
 * every query is prepared. */
void pgcb_chk_task_batches(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], name[CHK_NAME], why[160];
    size_t qi = c->arg_q;
    const struct chk_query *q = &c->q[qi];
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        pgcb_chk_name_batch(name, sizeof name, q, pgcb_chk_depths[di]);
        pgcb_chk_plan(c, name);
    }
    pgcb_chk_name_prepare(name, sizeof name, q);
    if (!pgcb_chk_passed(c, name)) {
        pgcb_chk_fail_rest(c, "%s failed", name);
        return;
    }
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;
    struct pgcb_conn *conn = pgcb_chk_open_setup(c, d);
    if (!conn)
        return;
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    int *ok = pgcb_xcalloc(c->nq, sizeof *ok);
    pgcb_chk_prepare_all(c, d, conn, stmts, ok);
    if (!ok[qi]) {
        pgcb_chk_fail_rest(c, "prepare (setup) of %s failed this time", q->name);
        goto out;
    }
    int64_t per = c->expect[qi];
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        uint32_t depth = pgcb_chk_depths[di];
        int nb = depth <= 10 ? 2 : 1; /* twice: the checksum must not change */
        struct pgcb_sum s[2];
        double ms = 0;
        pgcb_chk_begin(c, di);
        for (int b = 0; b < nb; b++) {
            memset(&s[b], 0, sizeof s[b]);
            pgcb_chk_phase_rows(c, "run_batch", per > 0 ? (uint64_t)per * depth : 0);
            uint64_t t0 = pgcb_now_ns();
            int rc = d->run_batch(conn, stmts[qi], depth, &s[b],
                                  pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
            ms = ms_since(t0);
            if (rc != PGCB_OK) {
                const char *bad = pgcb_chk_msg_problem(err, PGCB_ERRLEN, why, sizeof why);
                pgcb_chk_result(c, di, 0, "run_batch returned %s: %s%s%s",
                                pgcb_chk_status_name(rc, rcb, sizeof rcb),
                                pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN),
                                bad ? "; and " : "", bad ? bad : "");
                pgcb_chk_name_batch(name, sizeof name, q, depth);
                pgcb_chk_fail_rest(c, "%s failed", name);
                goto out;
            }
        }
        pgcb_chk_send(c, 'D', "sum %zu %u %llu %llx", qi, depth, (unsigned long long)s[0].rows,
                      (unsigned long long)s[0].hash);
        if (per < 0 && depth == 1) /* no expected count: the driver's own */
            per = (int64_t)s[0].rows;
        uint64_t want = (uint64_t)per * depth;
        if (s[0].rows != want)
            pgcb_chk_result(c, di, 0, "%llu rows, expected %llu (%u x %lld)",
                            (unsigned long long)s[0].rows, (unsigned long long)want, depth,
                            (long long)per);
        else if (nb == 2 && s[1].rows != s[0].rows)
            pgcb_chk_result(c, di, 0, "%llu rows, then %llu in the same batch again",
                            (unsigned long long)s[0].rows, (unsigned long long)s[1].rows);
        else if (nb == 2 && !q->rows_only && s[1].hash != s[0].hash)
            pgcb_chk_result(c, di, 0, "the checksum changed between two identical batches "
                            "(0x%016llx, then 0x%016llx)", (unsigned long long)s[0].hash,
                            (unsigned long long)s[1].hash);
        else
            pgcb_chk_result(c, di, 1, "%llu row%s (%u x %lld)%s, %.1f ms",
                            (unsigned long long)s[0].rows, s[0].rows == 1 ? "" : "s", depth,
                            (long long)per,
                            nb == 2 ? (q->rows_only ? ", twice" : ", twice with the same checksum")
                                    : "",
                            ms);
    }
out:
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
    free(stmts);
    free(ok);
}

/* The reference driver's rows and checksums of every query and depth. */
void pgcb_chk_task_reference(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    const struct pgcb_driver *d = pgcb_chk_load(c, CHK_REF_NAME, c->ref_path, err, PGCB_ERRLEN);
    if (!d) {
        pgcb_chk_send(c, 'D', "referr %s", err);
        return;
    }
    struct pgcb_conn *conn = NULL;
    pgcb_chk_phase(c, "open");
    int rc = d->open(c->conninfo, NULL, 0, &conn, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                     PGCB_ERRLEN);
    if (rc != PGCB_OK) {
        pgcb_chk_send(c, 'D', "referr reference %s: open returned %s: %s", CHK_REF_NAME,
                      pgcb_chk_status_name(rc, rcb, sizeof rcb),
                      pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        return;
    }
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    for (size_t i = 0; i < c->nq; i++) {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[i].name);
        pgcb_chk_phase(c, "prepare");
        rc = d->prepare(conn, sname, c->q[i].sql, &stmts[i], pgcb_chk_err_reset(err, PGCB_ERRLEN),
                        PGCB_ERRLEN);
        if (rc != PGCB_OK) {
            pgcb_chk_send(c, 'D', "refqerr %zu reference %s: prepare %s returned %s: %s", i,
                          CHK_REF_NAME, c->q[i].name, pgcb_chk_status_name(rc, rcb, sizeof rcb),
                          pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
            continue;
        }
        for (size_t di = 0; di < CHK_NDEPTHS; di++) {
            struct pgcb_sum s = {0, 0};
            pgcb_chk_phase(c, "run_batch");
            rc = d->run_batch(conn, stmts[i], pgcb_chk_depths[di], &s,
                              pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
            if (rc != PGCB_OK) {
                pgcb_chk_send(c, 'D', "refqerr %zu reference %s: batch of %s at depth %u "
                              "returned %s: %s", i, CHK_REF_NAME, c->q[i].name, pgcb_chk_depths[di],
                              pgcb_chk_status_name(rc, rcb, sizeof rcb),
                              pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
                break;
            }
            pgcb_chk_send(c, 'D', "ref %zu %u %llu %llx", i, pgcb_chk_depths[di],
                          (unsigned long long)s.rows, (unsigned long long)s.hash);
        }
    }
    pgcb_chk_phase(c, "close");
    d->close(conn);
    free(stmts);
}
