/*
 * check_copy.c -- the driver conformance suite (check.h): the task copy, the
 * checks of run_copy (ABI 1.4) on a temporary table of the driver's own
 * connection: a text COPY of three rows (a NULL, a tab and a backslash
 * escaped) counted and read back, a COPY into a missing table refused with
 * 42P01, and a query on the connection after it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_int.h"

#define CHK_C_TABLE "CREATE TEMP TABLE pgcb_check_copy (a int4, b text)"
#define CHK_C_COPY "COPY pgcb_check_copy (a, b) FROM STDIN (FORMAT text)"
#define CHK_C_BACK "SELECT a, b FROM pgcb_check_copy ORDER BY a"
#define CHK_C_MISSING "COPY pgcb_check_copy_missing FROM STDIN (FORMAT text)"
static const char chk_c_data[] = "1\tone\n2\t\\N\n3\ttab\\there \\\\ back\n";

/* Prepare and run `sql` once into *s; PGCB_OK or the status, with err. */
static int run_sql(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                   const char *name, const char *sql, struct pgcb_sum *s, char *err)
{
    struct pgcb_stmt *st = NULL;
    memset(s, 0, sizeof *s);
    pgcb_chk_phase(c, "prepare");
    int rc = d->prepare(conn, name, sql, &st, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK)
        return rc;
    pgcb_chk_phase(c, "run_batch");
    return d->run_batch(conn, st, 1, s, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
}

void pgcb_chk_task_copy(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300];
    size_t i_rows = pgcb_chk_plan(c, "copy_rows"), i_bad = pgcb_chk_plan(c, "copy_missing_table"),
           i_after = pgcb_chk_plan(c, "copy_after_error");
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = pgcb_chk_setup(c, &d);
    if (!conn)
        return;
    struct pgcb_sum s, want = {0, 0};
    int rc = run_sql(c, d, conn, "pgcb_check_copy_table", CHK_C_TABLE, &s, err);
    if (rc != PGCB_OK) {
        pgcb_chk_fail_rest(c, "%s returned %s: %s", CHK_C_TABLE,
                           pgcb_chk_status_name(rc, rcb, sizeof rcb),
                           pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        goto out;
    }
    pgcb_sum_int(&want, 1), pgcb_sum_text(&want, "one", 3), pgcb_sum_row(&want);
    pgcb_sum_int(&want, 2), pgcb_sum_null(&want), pgcb_sum_row(&want);
    pgcb_sum_int(&want, 3), pgcb_sum_text(&want, "tab\there \\ back", 15), pgcb_sum_row(&want);

    pgcb_chk_begin(c, i_rows);
    struct pgcb_copy cp = {CHK_C_COPY, chk_c_data, sizeof chk_c_data - 1, 3};
    uint64_t rows = 0;
    pgcb_chk_phase(c, "run_copy");
    rc = d->run_copy(conn, &cp, &rows, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_OK)
        pgcb_chk_result(c, i_rows, 0, "run_copy of 3 rows returned %s: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (rows != 3)
        pgcb_chk_result(c, i_rows, 0, "run_copy of 3 rows stored a count of %llu",
                        (unsigned long long)rows);
    else if ((rc = run_sql(c, d, conn, "pgcb_check_copy_back", CHK_C_BACK, &s, err)) != PGCB_OK)
        pgcb_chk_result(c, i_rows, 0, "reading back returned %s: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (s.rows != 3 || s.hash != want.hash)
        pgcb_chk_result(c, i_rows, 0, "read back %llu rows, checksum %016llx; expected 3 rows, "
                        "%016llx", (unsigned long long)s.rows, (unsigned long long)s.hash,
                        (unsigned long long)want.hash);
    else
        pgcb_chk_result(c, i_rows, 1, "3 rows (a NULL, escapes) counted and read back alike");

    pgcb_chk_begin(c, i_bad);
    cp.sql = CHK_C_MISSING;
    pgcb_chk_phase(c, "run_copy");
    rc = d->run_copy(conn, &cp, &rows, pgcb_chk_err_reset(err, PGCB_ERRLEN), PGCB_ERRLEN);
    if (rc != PGCB_ERR_QUERY || strncmp(err, "42P01", 5) != 0)
        pgcb_chk_result(c, i_bad, 0, "a COPY into a missing table returned %s: %s (want "
                        "PGCB_ERR_QUERY, 42P01 first)", pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        pgcb_chk_result(c, i_bad, 1, "PGCB_ERR_QUERY %s",
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));

    pgcb_chk_begin(c, i_after);
    rc = run_sql(c, d, conn, "pgcb_check_copy_after", "SELECT 1::int4", &s, err);
    if (rc != PGCB_OK || s.rows != 1)
        pgcb_chk_result(c, i_after, 0, "a query after the refused COPY returned %s: %s",
                        pgcb_chk_status_name(rc, rcb, sizeof rcb),
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        pgcb_chk_result(c, i_after, 1, "the connection runs a query after it");
out:
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
}
