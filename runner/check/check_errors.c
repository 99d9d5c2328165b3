/*
 * check_errors.c -- the driver conformance suite (check.h): the tasks errors
 * (a statement the server refuses: the status, the message with its
 * SQLSTATE, the connection usable after it, a short error buffer) and
 * close_clean (a connection's whole life leaves no file descriptor open).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "check_int.h"
#include "util.h"

#define CHK_BAD_SQL "SELECT * FROM pgcb_no_such_table"
#define CHK_BAD_SQLSTATE "42P01"
/* The depth of the batches around the bad statement and in close_clean: not
 * one of pgcb_chk_depths, so that a driver failing at one of those fails
 * only its own batch checks. */
#define CHK_SIDE_DEPTH 3

/* Check that a failing call left a proper message with SQLSTATE 42P01:
 * NULL if so, else why not. */
static const char *bad_sql_problem(int rc, const char *err, size_t errlen, char *why, size_t n)
{
    char rcb[48];
    if (rc == PGCB_OK) {
        snprintf(why, n, "the statement succeeded");
        return why;
    }
    if (rc != PGCB_ERR_QUERY) {
        snprintf(why, n, "returned %s, expected PGCB_ERR_QUERY (the server said no; the "
                 "connection stays usable)", pgcb_chk_status_name(rc, rcb, sizeof rcb));
        return why;
    }
    if (pgcb_chk_msg_problem(err, errlen, why, n))
        return why;
    return NULL;
}

/* Prepare the bad statement and, if the driver prepares lazily, run it.
 * Returns the status; *where says which call failed. */
static int run_bad(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                   const char *sname, char *err, size_t errlen, const char **where)
{
    struct pgcb_stmt *st = NULL;
    *where = "prepare";
    pgcb_chk_phase(c, "prepare");
    int rc = d->prepare(conn, sname, CHK_BAD_SQL, &st, pgcb_chk_err_reset(err, errlen), errlen);
    if (rc != PGCB_OK)
        return rc;
    struct pgcb_sum s = {0, 0};
    *where = "run_batch";
    pgcb_chk_phase(c, "run_batch");
    return d->run_batch(conn, st, 1, &s, pgcb_chk_err_reset(err, errlen), errlen);
}

void pgcb_chk_task_errors(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[200];
    size_t i_bad = pgcb_chk_plan(c, "bad_statement"), i_after = pgcb_chk_plan(c, "after_error"),
           i_short = pgcb_chk_plan(c, "errlen16_query");
    if (c->caps & PGCB_CAP_NO_IO) {
        for (size_t i = 0; i < c->nplan; i++) {
            pgcb_chk_begin(c, i);
            pgcb_chk_result(c, i, 1, "not applicable: a no-I/O driver (caps no-io) has no "
                            "server to refuse a statement");
        }
        return;
    }
    /* A query to run before and after the error: the first that prepared. */
    size_t good = SIZE_MAX;
    char name[CHK_NAME];
    for (size_t i = 0; i < c->nq && good == SIZE_MAX; i++) {
        pgcb_chk_name_prepare(name, sizeof name, &c->q[i]);
        if (pgcb_chk_passed(c, name))
            good = i;
    }
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = pgcb_chk_setup(c, &d);
    if (!conn)
        return;

    struct pgcb_stmt *st = NULL;
    struct pgcb_sum before = {0, 0};
    char before_err[CHK_DETAIL] = "";
    if (good == SIZE_MAX)
        snprintf(before_err, sizeof before_err, "no query could be prepared");
    else {
        char sname[96];
        snprintf(sname, sizeof sname, "pgcb_%s", c->q[good].name);
        pgcb_chk_phase(c, "prepare (setup)");
        int rc = d->prepare(conn, sname, c->q[good].sql, &st, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                            PGCB_ERRLEN);
        if (rc == PGCB_OK) {
            pgcb_chk_phase(c, "run_batch (setup)");
            rc = d->run_batch(conn, st, CHK_SIDE_DEPTH, &before,
                              pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
        }
        if (rc != PGCB_OK)
            snprintf(before_err, sizeof before_err, "%s at depth %d before the error returned "
                     "%s: %s", c->q[good].name, CHK_SIDE_DEPTH,
                     pgcb_chk_status_name(rc, rcb, sizeof rcb),
                     pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    }

    pgcb_chk_begin(c, i_bad);
    const char *where;
    int rc = run_bad(c, d, conn, "pgcb_check_bad", err, PGCB_ERRLEN, &where);
    int broken = rc != PGCB_OK && rc != PGCB_ERR_QUERY;
    if (bad_sql_problem(rc, err, PGCB_ERRLEN, why, sizeof why))
        pgcb_chk_result(c, i_bad, 0, "%s of %s: %s%s%s", where, CHK_BAD_SQL, why,
                        rc != PGCB_OK ? ": " : "",
                        rc != PGCB_OK ? pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN) : "");
    else if (strncmp(err, CHK_BAD_SQLSTATE, 5) != 0)
        pgcb_chk_result(c, i_bad, 0, "%s: PGCB_ERR_QUERY, but the message does not start with "
                        "the SQLSTATE " CHK_BAD_SQLSTATE ": %s", where,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        pgcb_chk_result(c, i_bad, 1, "%s: PGCB_ERR_QUERY %s", where,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));

    pgcb_chk_begin(c, i_after);
    if (broken)
        pgcb_chk_result(c, i_after, 0, "not run: the bad statement returned %s, which leaves the "
                        "connection unusable", pgcb_chk_status_name(rc, rcb, sizeof rcb));
    else if (before_err[0])
        pgcb_chk_result(c, i_after, 0, "not run: %s", before_err);
    else {
        struct pgcb_sum after = {0, 0};
        pgcb_chk_phase(c, "run_batch");
        rc = d->run_batch(conn, st, CHK_SIDE_DEPTH, &after, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                          PGCB_ERRLEN);
        if (rc != PGCB_OK)
            pgcb_chk_result(c, i_after, 0, "a batch of %s at depth %d after the error returned "
                            "%s: %s", c->q[good].name, CHK_SIDE_DEPTH,
                            pgcb_chk_status_name(rc, rcb, sizeof rcb),
                            pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        else if (after.rows != before.rows)
            pgcb_chk_result(c, i_after, 0, "a batch of %s at depth %d after the error: %llu "
                            "rows, %llu before it", c->q[good].name, CHK_SIDE_DEPTH,
                            (unsigned long long)after.rows, (unsigned long long)before.rows);
        else if (!c->q[good].rows_only && after.hash != before.hash)
            pgcb_chk_result(c, i_after, 0, "a batch of %s at depth %d after the error: checksum "
                            "0x%016llx, 0x%016llx before it", c->q[good].name, CHK_SIDE_DEPTH,
                            (unsigned long long)after.hash, (unsigned long long)before.hash);
        else
            pgcb_chk_result(c, i_after, 1, "a batch of %s at depth %d on the same connection: "
                            "%llu rows%s", c->q[good].name, CHK_SIDE_DEPTH,
                            (unsigned long long)after.rows,
                            c->q[good].rows_only ? "" : ", checksum as before the error");
    }
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);

    /* The same error with a 16-byte buffer, on a fresh connection. */
    pgcb_chk_begin(c, i_short);
    conn = NULL;
    pgcb_chk_phase(c, "open (setup)");
    rc = d->open(c->conninfo, c->opts, c->nopts, &conn, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                 PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        pgcb_chk_result(c, i_short, 0, "not run: open (setup) returned %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb));
        return;
    }
    rc = run_bad(c, d, conn, "pgcb_check_bad16", err, CHK_SHORT_ERRLEN, &where);
    if (rc == PGCB_OK)
        pgcb_chk_result(c, i_short, 0, "%s: the bad statement succeeded: no message to check",
                        where);
    else if (pgcb_chk_msg_problem(err, CHK_SHORT_ERRLEN, why, sizeof why))
        pgcb_chk_result(c, i_short, 0, "%s returned %s: %s", where,
                        pgcb_chk_status_name(rc, rcb, sizeof rcb), why);
    else
        pgcb_chk_result(c, i_short, 1, "%s: %s (%zu bytes + NUL within errlen %d, nothing "
                        "written past it)", where,
                        pgcb_chk_quote_msg(qm, sizeof qm, err, CHK_SHORT_ERRLEN), strlen(err),
                        CHK_SHORT_ERRLEN);
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
}

/* The file descriptors open in this process, sorted by the kernel. */
static size_t list_fds(int *fds, size_t max)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return SIZE_MAX;
    int self = dirfd(dir);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int fd = atoi(e->d_name);
        if (fd != self && n < max)
            fds[n++] = fd;
    }
    closedir(dir);
    return n;
}

/* One whole life of a connection: open, prepare every query, a batch of
 * each at CHK_SIDE_DEPTH, the bad statement, close. */
static int life_cycle(struct chk *c, const struct pgcb_driver *d, char *why, size_t n)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48];
    struct pgcb_conn *conn = NULL;
    pgcb_chk_phase(c, "open (setup)");
    int rc = d->open(c->conninfo, c->opts, c->nopts, &conn, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                     PGCB_ERRLEN);
    if (rc != PGCB_OK || !conn) {
        snprintf(why, n, "open (setup) returned %s", pgcb_chk_status_name(rc, rcb, sizeof rcb));
        return -1;
    }
    struct pgcb_stmt **stmts = pgcb_xcalloc(c->nq, sizeof *stmts);
    int *ok = pgcb_xcalloc(c->nq, sizeof *ok);
    pgcb_chk_prepare_all(c, d, conn, stmts, ok);
    for (size_t i = 0; i < c->nq; i++)
        if (ok[i]) {
            struct pgcb_sum s = {0, 0};
            pgcb_chk_phase(c, "run_batch (setup)");
            d->run_batch(conn, stmts[i], CHK_SIDE_DEPTH, &s, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                         PGCB_ERRLEN);
        }
    if (!(c->caps & PGCB_CAP_NO_IO)) {
        const char *where;
        run_bad(c, d, conn, "pgcb_check_bad", err, PGCB_ERRLEN, &where);
    }
    pgcb_chk_phase(c, "close");
    d->close(conn);
    free(stmts);
    free(ok);
    return 0;
}

void pgcb_chk_task_close_clean(struct chk *c)
{
    char why[CHK_DETAIL];
    size_t i = pgcb_chk_plan(c, "close_clean");
    if (!pgcb_chk_passed(c, "open")) {
        pgcb_chk_fail_rest(c, "open failed");
        return;
    }
    const struct pgcb_driver *d = pgcb_chk_load_checked(c);
    if (!d)
        return;
    pgcb_chk_begin(c, i);
    /* The first life may leave what a library keeps for good (caches,
     * lazily opened files); the second must leave nothing. */
    if (life_cycle(c, d, why, sizeof why) != 0) {
        pgcb_chk_result(c, i, 0, "not run: %s", why);
        return;
    }
    int before[1024], after[1024];
    size_t nb = list_fds(before, 1024);
    if (life_cycle(c, d, why, sizeof why) != 0) {
        pgcb_chk_result(c, i, 0, "not run: %s", why);
        return;
    }
    size_t na = list_fds(after, 1024);
    if (nb == SIZE_MAX || na == SIZE_MAX) {
        pgcb_chk_result(c, i, 1, "close returned (file descriptors not counted: no /proc/self/fd)");
        return;
    }
    char leaked[CHK_DETAIL] = "";
    size_t nleaked = 0;
    for (size_t a = 0; a < na; a++) {
        int found = 0;
        for (size_t b = 0; b < nb && !found; b++)
            found = after[a] == before[b];
        if (found)
            continue;
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", after[a]);
        ssize_t tl = readlink(link, target, sizeof target - 1);
        target[tl > 0 ? tl : 0] = '\0';
        if (nleaked++ < 4)
            snprintf(leaked + strlen(leaked), sizeof leaked - strlen(leaked), "%sfd %d -> %s",
                     nleaked > 1 ? ", " : "", after[a], tl > 0 ? target : "?");
    }
    if (nleaked)
        pgcb_chk_result(c, i, 0, "close left %zu file descriptor%s open (%s)", nleaked,
                        nleaked == 1 ? "" : "s", leaked);
    else
        pgcb_chk_result(c, i, 1, "close returned after %s; no file descriptor left open",
                        (c->caps & PGCB_CAP_NO_IO) ? "open, prepare and batches"
                                            : "open, prepare, batches and an error");
}
