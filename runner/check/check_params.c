/*
 * check_params.c -- the driver conformance suite (check.h): the task params,
 * the checks of run_batch_params (ABI 1.1) on a statement of two parameters.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "util.h"

/* The statement of the parameter checks: an int4 computed from $1 and $2
 * returned as text, so that a value bound wrongly shows in the checksum. */
#define CHK_P_SQL "SELECT $1::int4 + 1, $2::text"
#define CHK_P_STMT "pgcb_check_params"
#define CHK_P_MAX 10       /* queries in one batch of the checks */
#define CHK_P_TEXT 16384   /* bytes of every value of one batch */
#define CHK_P_BAD_SQLSTATE "22P02" /* invalid_text_representation: 'abc'::int4 */

/* One batch of the checks on CHK_P_SQL: query i binds values[2i] and
 * values[2i + 1], stored back to back in text[] with a '#' after each and no
 * NUL (the ABI's values are not NUL-terminated: a driver that reads past a
 * length binds "41#", which the server refuses), and `want` is what the
 * server returns for them, folded with the pgcb_sum_* helpers. */
struct chk_pbatch {
    struct pgcb_params p;
    const char *values[2 * CHK_P_MAX];
    int lengths[2 * CHK_P_MAX];
    char text[CHK_P_TEXT];
    size_t used;
    uint32_t depth;
    struct pgcb_sum want;
};

static void pb_init(struct chk_pbatch *b)
{
    memset(b, 0, sizeof *b);
    b->p.nparams = 2;
    b->p.values = b->values;
    b->p.lengths = b->lengths;
}

/* Store value k (NULL: SQL NULL) of len bytes. */
static void pb_store(struct chk_pbatch *b, size_t k, const char *v, size_t len)
{
    b->values[k] = NULL;
    b->lengths[k] = 0;
    if (!v || b->used + len + 1 > CHK_P_TEXT)
        return;
    memcpy(b->text + b->used, v, len);
    b->values[k] = b->text + b->used;
    b->lengths[k] = (int)len;
    b->used += len;
    b->text[b->used++] = '#';
}

/* Append a query binding $1 = `i1` (decimal text; NULL: SQL NULL) and $2 =
 * `t` of tlen bytes (NULL: SQL NULL). */
static void pb_add(struct chk_pbatch *b, const char *i1, const char *t, size_t tlen)
{
    if (b->depth == CHK_P_MAX)
        return;
    pb_store(b, 2 * (size_t)b->depth, i1, i1 ? strlen(i1) : 0);
    pb_store(b, 2 * (size_t)b->depth + 1, t, tlen);
    b->depth++;
    if (i1)
        pgcb_sum_int(&b->want, strtoll(i1, NULL, 10) + 1);
    else
        pgcb_sum_null(&b->want);
    if (t)
        pgcb_sum_text(&b->want, t, tlen);
    else
        pgcb_sum_null(&b->want);
    pgcb_sum_row(&b->want);
}

/* CHK_P_MAX queries with distinct values, every `seed` a different set:
 * negative and large ints, texts of 0 to 9 * step bytes, a NULL of each. */
static void pb_distinct(struct chk_pbatch *b, int seed, size_t step)
{
    char big[CHK_P_TEXT / CHK_P_MAX];
    pb_init(b);
    for (int i = 0; i < CHK_P_MAX; i++) {
        char num[24];
        size_t len = (size_t)i * step < sizeof big ? (size_t)i * step : sizeof big;
        for (size_t k = 0; k < len; k++)
            big[k] = (char)('a' + (k + (size_t)i + (size_t)seed) % 26);
        snprintf(num, sizeof num, "%d", (i - 5) * 1000003 + seed);
        pb_add(b, i == 6 ? NULL : num, i == 8 ? NULL : big, len);
    }
}

/* Run batch b of the statement; *s is what it folded. */
static int pb_run(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                  struct pgcb_stmt *st, const struct chk_pbatch *b, struct pgcb_sum *s,
                  char *err)
{
    memset(s, 0, sizeof *s);
    pgcb_chk_phase(c, "run_batch_params");
    return d->run_batch_params(conn, st, b->depth, &b->p, s, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                               PGCB_ERRLEN);
}

/* What is wrong with the result of batch b (status rc, sum s, message err),
 * or NULL. A reference driver's checksum is not compared (floor folds
 * nothing); a no-I/O driver's rows neither (no server computes them). */
static const char *pb_problem(const struct chk *c, const struct chk_pbatch *b, int rc,
                              const struct pgcb_sum *s, const char *err, char *why, size_t n)
{
    char rcb[48], qm[300], bad[160];
    if (rc != PGCB_OK) {
        const char *mp = pgcb_chk_msg_problem(err, PGCB_ERRLEN, bad, sizeof bad);
        snprintf(why, n, "run_batch_params at depth %u returned %s: %s%s%s", b->depth,
                 pgcb_chk_status_name(rc, rcb, sizeof rcb),
                 pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN), mp ? "; and " : "",
                 mp ? mp : "");
        return why;
    }
    if (c->caps & PGCB_CAP_NO_IO)
        return NULL;
    if (s->rows != b->want.rows) {
        snprintf(why, n, "%llu rows at depth %u, expected %llu", (unsigned long long)s->rows,
                 b->depth, (unsigned long long)b->want.rows);
        return why;
    }
    if (!(c->caps & PGCB_CAP_REFERENCE) && s->hash != b->want.hash) {
        snprintf(why, n, "checksum 0x%016llx at depth %u, expected 0x%016llx: a value is bound "
                 "to the wrong query or parameter, or read past its length",
                 (unsigned long long)s->hash, b->depth, (unsigned long long)b->want.hash);
        return why;
    }
    return NULL;
}

/* The end of a passing detail: how the result was compared. */
static const char *pb_how(const struct chk *c)
{
    if (c->caps & PGCB_CAP_NO_IO)
        return "no-I/O driver: the values are not evaluated";
    if (c->caps & PGCB_CAP_REFERENCE)
        return "rows as expected (reference driver: checksum not compared)";
    return "rows and checksum as computed from the values";
}

/* Run batch b, which the server must refuse: NULL if run_batch_params
 * returned PGCB_ERR_QUERY with a proper message starting with `sqlstate`
 * (NULL: any), else why not. The message is left in err. */
static const char *pb_refusal_problem(struct chk *c, const struct pgcb_driver *d,
                                      struct pgcb_conn *conn, struct pgcb_stmt *st,
                                      const struct chk_pbatch *b, const char *sqlstate,
                                      char *err, char *why, size_t n)
{
    char rcb[48], qm[300], bad[160];
    struct pgcb_sum s;
    int rc = pb_run(c, d, conn, st, b, &s, err);
    if (rc == PGCB_OK)
        snprintf(why, n, "run_batch_params returned PGCB_OK (%llu rows), expected "
                 "PGCB_ERR_QUERY", (unsigned long long)s.rows);
    else if (rc != PGCB_ERR_QUERY)
        snprintf(why, n, "returned %s, expected PGCB_ERR_QUERY (the server said no; the "
                 "connection stays usable): %s", pgcb_chk_status_name(rc, rcb, sizeof rcb),
                 pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else if (pgcb_chk_msg_problem(err, PGCB_ERRLEN, bad, sizeof bad))
        snprintf(why, n, "PGCB_ERR_QUERY, but %s", bad);
    else if (sqlstate && strncmp(err, sqlstate, 5) != 0)
        snprintf(why, n, "PGCB_ERR_QUERY, but the message does not start with the SQLSTATE "
                 "%s: %s", sqlstate, pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
    else
        return NULL;
    return why;
}

/* The parameter checks, on one connection with CHK_P_SQL prepared: values,
 * NULLs and empty text, distinct values per query in two calls at the same
 * depth, a value the server refuses (then a batch that works), a wrong
 * count of parameters. A no-I/O driver runs the first three (they must
 * return PGCB_OK, and not crash); the server's refusals do not apply. */
void pgcb_chk_task_params(struct chk *c)
{
    char err[PGCB_ERRLEN + CHK_CANARY], rcb[48], qm[300], why[CHK_DETAIL];
    size_t i_values = pgcb_chk_plan(c, "params_values"),
           i_null = pgcb_chk_plan(c, "params_null"),
           i_depth = pgcb_chk_plan(c, "params_depth"),
           i_bad = pgcb_chk_plan(c, "params_bad_value"),
           i_after = pgcb_chk_plan(c, "params_after_error"),
           i_count = pgcb_chk_plan(c, "params_count");
    int no_io = (c->caps & PGCB_CAP_NO_IO) != 0;
    const struct pgcb_driver *d;
    struct pgcb_conn *conn = pgcb_chk_setup(c, &d);
    if (!conn)
        return;
    struct pgcb_stmt *st = NULL;
    pgcb_chk_phase(c, "prepare (setup)");
    int rc = d->prepare(conn, CHK_P_STMT, CHK_P_SQL, &st, pgcb_chk_err_reset(err, PGCB_ERRLEN),
                        PGCB_ERRLEN);
    if (rc != PGCB_OK) {
        pgcb_chk_fail_rest(c, "prepare of %s returned %s: %s", CHK_P_SQL,
                           pgcb_chk_status_name(rc, rcb, sizeof rcb),
                           pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));
        goto out;
    }
    struct chk_pbatch *b = pgcb_xcalloc(1, sizeof *b), *b2 = pgcb_xcalloc(1, sizeof *b2);
    struct pgcb_sum s;

    pgcb_chk_begin(c, i_values);
    pb_init(b);
    pb_add(b, "41", "hello, world", 12);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        pgcb_chk_result(c, i_values, 0, "$1 = '41', $2 = 'hello, world': %s", why);
    else
        pgcb_chk_result(c, i_values, 1, "$1 = '41', $2 = 'hello, world' (not NUL-terminated): %s",
                        pb_how(c));

    pgcb_chk_begin(c, i_null);
    pb_init(b);
    pb_add(b, "7", NULL, 0);
    pb_add(b, NULL, "", 0);
    pb_add(b, NULL, NULL, 0);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        pgcb_chk_result(c, i_null, 0, "('7', NULL), (NULL, ''), (NULL, NULL): %s", why);
    else
        pgcb_chk_result(c, i_null, 1, "('7', NULL), (NULL, ''), (NULL, NULL): %s", pb_how(c));

    pgcb_chk_begin(c, i_depth);
    pb_distinct(b, 1, 7);
    pb_distinct(b2, 2, 150); /* other values, longer texts: nothing reused from the first */
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (!pb_problem(c, b, rc, &s, err, why, sizeof why)) {
        rc = pb_run(c, d, conn, st, b2, &s, err);
        if (pb_problem(c, b2, rc, &s, err, why, sizeof why))
            pgcb_chk_result(c, i_depth, 0, "the second batch (other values, %zu bytes): %s",
                            b2->used, why);
        else
            pgcb_chk_result(c, i_depth, 1, "depth %u twice, other values each time (%zu and %zu "
                            "bytes, NULLs and empty text): %s", b->depth, b->used, b2->used,
                            pb_how(c));
    } else {
        pgcb_chk_result(c, i_depth, 0, "%s", why);
    }

    if (no_io) {
        const size_t na[] = {i_bad, i_after, i_count};
        for (size_t k = 0; k < sizeof na / sizeof na[0]; k++) {
            pgcb_chk_begin(c, na[k]);
            pgcb_chk_result(c, na[k], 1, "not applicable: a no-I/O driver (caps no-io) has no "
                            "server to refuse a parameter");
        }
        goto done;
    }

    pgcb_chk_begin(c, i_bad);
    pb_init(b2);
    pb_add(b2, "1", "a", 1);
    pb_add(b2, "abc", "b", 1);
    pb_add(b2, "3", "c", 1);
    if (pb_refusal_problem(c, d, conn, st, b2, CHK_P_BAD_SQLSTATE, err, why, sizeof why))
        pgcb_chk_result(c, i_bad, 0, "$1 = 'abc' in query 2 of 3: %s", why);
    else
        pgcb_chk_result(c, i_bad, 1, "$1 = 'abc' in query 2 of 3: PGCB_ERR_QUERY %s",
                        pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN));

    pgcb_chk_begin(c, i_after);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        pgcb_chk_result(c, i_after, 0, "after the refused value: %s", why);
    else
        pgcb_chk_result(c, i_after, 1, "a batch at depth %u on the same connection: %s", b->depth,
                        pb_how(c));

    pgcb_chk_begin(c, i_count);
    pb_init(b2);
    pb_add(b2, "1", NULL, 0);
    b2->p.nparams = 1; /* the statement has 2 */
    if (pb_refusal_problem(c, d, conn, st, b2, NULL, err, why, sizeof why)) {
        pgcb_chk_result(c, i_count, 0, "1 parameter for 2: %s", why);
        goto done;
    }
    pgcb_chk_quote_msg(qm, sizeof qm, err, PGCB_ERRLEN);
    rc = pb_run(c, d, conn, st, b, &s, err);
    if (pb_problem(c, b, rc, &s, err, why, sizeof why))
        pgcb_chk_result(c, i_count, 0, "1 parameter for 2: PGCB_ERR_QUERY %s, but then %s", qm,
                        why);
    else
        pgcb_chk_result(c, i_count, 1, "1 parameter for 2: PGCB_ERR_QUERY %s; the next batch "
                        "works", qm);
done:
    free(b);
    free(b2);
out:
    pgcb_chk_phase(c, "close (setup)");
    d->close(conn);
}
