/*
 * test_params.c -- run_batch_params (ABI 1.1) of every shipped driver that
 * talks to a server, against the real PostgreSQL tests/run.sh started:
 * libpq_sync (text and binary results), libpq_pipeline (sync per query and
 * per batch, a small max_in_flight window, binary), rawwire (text and
 * binary) and floor (rows only: it folds nothing).
 *
 * For the same parameters every driver folds the same checksum, and that
 * checksum is the one computed here from the values with the pgcb_sum_*
 * helpers (what the server must return for them): NULLs, empty strings,
 * texts of 10 kB and 300 kB, values with spaces, quotes and backslashes;
 * depth 1000 with distinct values per query and megabytes each way (no
 * deadlock in pipeline mode); a value the server refuses in the middle of a
 * batch (the SQLSTATE, the rows of the other queries, the connection usable
 * afterwards); a wrong count of parameters; run_batch and run_batch_params
 * alternating on one connection.
 *
 * Every value is its own allocation of exactly its length, not
 * NUL-terminated: a driver that reads past a value's length reads past an
 * allocation, which AddressSanitizer (make SAN=1) and valgrind report.
 *
 * Environment: PGHOST (required: without it the test FAILS), PGPORT, PGUSER,
 * PGDATABASE of a throw-away server whose benchmark_rows table this test
 * drops and re-creates; PGCB_BUILD, the build directory (default "build").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

/* The statement of most tests: five parameters of five types, and one
 * column computed from $2, so that a value bound to the wrong place or cut
 * shows in the checksum. */
#define P_SQL "SELECT $1::int4, $2::text, $3::int8 * 2, $4::float8, $5::bool, length($2)"
#define P_N 5

static struct drvtest_drv pq_drv, pp_drv, rw_drv, floor_drv;

/* ---- the drivers, as configured ---------------------------------------- */

static const struct pgcb_option o_binary[] = {{"result_format", "binary"}};
static const struct pgcb_option o_text[] = {{"result_format", "text"}};
static const struct pgcb_option o_per_query[] = {{"sync", "per_query"}};
static const struct pgcb_option o_per_batch[] = {{"sync", "per_batch"}};
static const struct pgcb_option o_window_q[] = {
    {"sync", "per_query"}, {"max_in_flight", "7"}, {"result_format", "binary"}};
static const struct pgcb_option o_window_b[] = {{"sync", "per_batch"}, {"max_in_flight", "7"}};

struct cfg {
    const char *label;
    struct drvtest_drv *drv;
    const struct pgcb_option *opts;
    size_t nopts;
    int reference;    /* floor: rows only */
    int pipelined;    /* its messages name the failing query: "query K of N" */
    int stops;        /* a failing query ends the batch (nothing after it is folded) */
};

#define OPTS(a) a, sizeof a / sizeof a[0]
static const struct cfg cfgs[] = {
    {"libpq_sync", &pq_drv, NULL, 0, 0, 0, 1},
    {"libpq_sync binary", &pq_drv, OPTS(o_binary), 0, 0, 1},
    {"libpq_pipeline per_query", &pp_drv, OPTS(o_per_query), 0, 1, 0},
    {"libpq_pipeline per_batch", &pp_drv, OPTS(o_per_batch), 0, 1, 1},
    {"libpq_pipeline per_query window 7 binary", &pp_drv, OPTS(o_window_q), 0, 1, 0},
    {"libpq_pipeline per_batch window 7", &pp_drv, OPTS(o_window_b), 0, 1, 1},
    {"rawwire text", &rw_drv, OPTS(o_text), 0, 1, 0},
    {"rawwire binary", &rw_drv, OPTS(o_binary), 0, 1, 0},
    {"floor", &floor_drv, NULL, 0, 1, 0, 0},
};
#define NCFG (sizeof cfgs / sizeof cfgs[0])

/* ---- a batch's parameters and what the server returns for them --------- */

struct pset {
    struct pgcb_params p;
    const char **values; /* depth x P_N; each its own allocation of its length */
    int *lengths;
    uint32_t depth, cap;
    struct pgcb_sum want; /* the rows of P_SQL for these values, folded */
};

static void pset_init(struct pset *s, uint32_t cap)
{
    memset(s, 0, sizeof *s);
    s->cap = cap;
    s->values = calloc((size_t)cap * P_N, sizeof *s->values);
    s->lengths = calloc((size_t)cap * P_N, sizeof *s->lengths);
    assert_non_null(s->values);
    assert_non_null(s->lengths);
    s->p.nparams = P_N;
    s->p.values = s->values;
    s->p.lengths = s->lengths;
}

static void pset_free(struct pset *s)
{
    for (size_t k = 0; k < (size_t)s->depth * P_N; k++)
        free((void *)s->values[k]);
    free(s->values);
    free(s->lengths);
    memset(s, 0, sizeof *s);
}

/* Store value k: exactly len bytes, no NUL (NULL: SQL NULL). */
static void pset_value(struct pset *s, size_t k, const char *v, size_t len)
{
    s->values[k] = NULL;
    s->lengths[k] = 0;
    if (!v)
        return;
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, v, len);
    s->values[k] = copy;
    s->lengths[k] = (int)len;
}

/* Append a query binding $1 int4, $2 text (tlen bytes, ASCII), $3 int8,
 * $4 float8, $5 bool, each as text (NULL: SQL NULL), and fold the row the
 * server returns: $1, $2, $3 * 2, $4, $5, length($2). The int and float
 * texts may carry spaces around the number, as the server allows. */
static void pset_add(struct pset *s, const char *i4, const char *t, size_t tlen, const char *i8,
                     const char *f8, const char *b)
{
    assert_true(s->depth < s->cap);
    size_t k = (size_t)s->depth * P_N;
    pset_value(s, k, i4, i4 ? strlen(i4) : 0);
    pset_value(s, k + 1, t, tlen);
    pset_value(s, k + 2, i8, i8 ? strlen(i8) : 0);
    pset_value(s, k + 3, f8, f8 ? strlen(f8) : 0);
    pset_value(s, k + 4, b, b ? strlen(b) : 0);
    s->depth++;

    struct pgcb_sum *w = &s->want;
    if (i4)
        pgcb_sum_int(w, strtoll(i4, NULL, 10));
    else
        pgcb_sum_null(w);
    if (t)
        pgcb_sum_text(w, t, tlen);
    else
        pgcb_sum_null(w);
    if (i8)
        pgcb_sum_int(w, strtoll(i8, NULL, 10) * 2);
    else
        pgcb_sum_null(w);
    if (f8)
        pgcb_sum_float8(w, strtod(f8, NULL));
    else
        pgcb_sum_null(w);
    if (b)
        pgcb_sum_bool(w, b[0] == 't');
    else
        pgcb_sum_null(w);
    if (t)
        pgcb_sum_int(w, (int64_t)tlen);
    else
        pgcb_sum_null(w);
    pgcb_sum_row(w);
}

/* n bytes of printable ASCII, different for every seed. */
static char *make_text(size_t n, unsigned seed)
{
    char *t = malloc(n + 1);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        t[i] = (char)(' ' + (i * 7 + seed * 13) % 95);
    t[n] = '\0';
    return t;
}

/* NULLs, empty text, long texts, edges of each type, spaces and quotes. */
static void pset_mixed(struct pset *s)
{
    static const char odd[] = "with 'quotes', \"double\", a \\ backslash and a $1";
    char *t10k = make_text(10 * 1024, 1), *t300k = make_text(300 * 1024, 2);

    pset_init(s, 8);
    pset_add(s, "1", "a", 1, "10", "2.5", "t");
    pset_add(s, "-2147483648", "", 0, "4611686018427387903", "-0.125", "f");
    pset_add(s, NULL, NULL, 0, NULL, NULL, NULL);
    pset_add(s, "0", t10k, 10 * 1024, "0", "1e300", "true");
    pset_add(s, "2147483647", odd, sizeof odd - 1, "-1", "NaN", "false");
    pset_add(s, "42", t300k, 300 * 1024, "7", "-Infinity", NULL);
    pset_add(s, " 17 ", "  spaced  ", 10, " -3", " 0.5 ", "t");
    pset_add(s, "-1", "", 0, NULL, "Infinity", "f");
    free(t10k);
    free(t300k);
}

/* depth queries with distinct values: texts of 0 to 3000 bytes (about 1.5 MB
 * each way at depth 1000), a NULL now and then. */
static void pset_distinct(struct pset *s, uint32_t depth, unsigned seed)
{
    pset_init(s, depth);
    for (uint32_t i = 0; i < depth; i++) {
        char i4[24], i8[32], f8[32];
        size_t tlen = (size_t)(i * 37 + seed) % 3001;
        char *t = make_text(tlen, i + seed);
        snprintf(i4, sizeof i4, "%ld", (long)i * 2147 - 1000000 + (long)seed);
        snprintf(i8, sizeof i8, "%lld", (long long)i * 1000000007LL - (long long)seed);
        snprintf(f8, sizeof f8, "%u.5", i);
        pset_add(s, i % 11 == 5 ? NULL : i4, i % 97 == 3 ? NULL : t, tlen, i8,
                 i % 13 == 1 ? NULL : f8, i % 3 == 0 ? NULL : i % 2 ? "t" : "f");
        free(t);
    }
}

/* Assert the sum of batch ps on configuration cf. */
static void assert_sum(const struct cfg *cf, const struct pset *ps, struct pgcb_sum s)
{
    if (s.rows != ps->want.rows || (!cf->reference && s.hash != ps->want.hash))
        fail_msg("%s, depth %u: %llu rows, checksum 0x%016llx; expected %llu rows, 0x%016llx",
                 cf->label, ps->depth, (unsigned long long)s.rows, (unsigned long long)s.hash,
                 (unsigned long long)ps->want.rows, (unsigned long long)ps->want.hash);
}

/* Open configuration cf and prepare P_SQL on it as "p". */
static struct pgcb_conn *cfg_open(const struct cfg *cf, struct pgcb_stmt **st)
{
    struct pgcb_conn *c = drvtest_open_ok(cf->drv, "", cf->opts, cf->nopts);
    *st = drvtest_prepare_ok(cf->drv, c, "p", P_SQL);
    return c;
}

/* ---- setup -------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_params") || drvtest_load(&pq_drv, "libpq_sync") ||
        drvtest_load(&pp_drv, "libpq_pipeline") || drvtest_load(&rw_drv, "rawwire") ||
        drvtest_load(&floor_drv, "floor"))
        return -1;
    return drvtest_create_table(NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    drvtest_unload(&pq_drv);
    drvtest_unload(&pp_drv);
    drvtest_unload(&rw_drv);
    drvtest_unload(&floor_drv);
    return 0;
}

/* ---- tests -------------------------------------------------------------- */

/* Every shipped driver is built against this header (ABI 1.2) and has the
 * ABI 1.1 slot. */
static void test_descriptors(void **state)
{
    struct drvtest_drv null_drv = {0};
    const struct drvtest_drv *all[] = {&pq_drv, &pp_drv, &rw_drv, &floor_drv, &null_drv};

    (void)state;
    assert_int_equal(drvtest_load(&null_drv, "null"), 0);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        assert_int_equal(all[i]->d->abi_minor, PGCB_ABI_MINOR);
        assert_int_equal(all[i]->d->struct_size, sizeof(struct pgcb_driver));
        assert_true(PGCB_DRIVER_HAS(all[i]->d, 1, run_batch_params));
    }
    drvtest_unload(&null_drv);
}

/* NULLs, empty and long texts, edges: the computed checksum, twice per
 * connection (the second call reuses the buffers the first grew). */
static void test_mixed_values(void **state)
{
    struct pset ps;
    char err[PGCB_ERRLEN];

    (void)state;
    pset_mixed(&ps);
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_stmt *st;
        struct pgcb_conn *c = cfg_open(cf, &st);
        for (int k = 0; k < 2; k++)
            assert_sum(cf, &ps, drvtest_run_params(cf->drv, c, st, ps.depth, &ps.p, PGCB_OK,
                                                   err, sizeof err));
        cf->drv->d->close(c);
    }
    pset_free(&ps);
}

/* Depth 1000, distinct values, megabytes each way: no deadlock (the test's
 * alarm), the computed checksum; then other values at the same depth. */
static void test_depth_1000(void **state)
{
    struct pset a, b;
    char err[PGCB_ERRLEN];

    (void)state;
    pset_distinct(&a, 1000, 0);
    pset_distinct(&b, 1000, 5);
    assert_true(a.want.hash != b.want.hash);
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_stmt *st;
        struct pgcb_conn *c = cfg_open(cf, &st);
        assert_sum(cf, &a, drvtest_run_params(cf->drv, c, st, 1000, &a.p, PGCB_OK, err,
                                              sizeof err));
        assert_sum(cf, &b, drvtest_run_params(cf->drv, c, st, 1000, &b.p, PGCB_OK, err,
                                              sizeof err));
        cf->drv->d->close(c);
    }
    pset_free(&a);
    pset_free(&b);
}

/* Query 10 of 20 binds 'abc' as int4: PGCB_ERR_QUERY "22P02: ...", the
 * other queries folded as the driver's sync mode says, then the same
 * connection runs the batch without the bad value. */
static void test_error_mid_batch(void **state)
{
    struct pset bad, good;
    char err[PGCB_ERRLEN];

    (void)state;
    pset_init(&bad, 20);
    pset_init(&good, 20);
    for (unsigned i = 0; i < 20; i++) {
        char n[16], t[16];
        snprintf(n, sizeof n, "%u", i);
        snprintf(t, sizeof t, "t%u", i);
        pset_add(&bad, i == 9 ? "abc" : n, t, strlen(t), n, "1.5", "t");
        pset_add(&good, n, t, strlen(t), n, "1.5", "t");
    }
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_stmt *st;
        struct pgcb_conn *c = cfg_open(cf, &st);
        struct pgcb_sum s =
            drvtest_run_params(cf->drv, c, st, 20, &bad.p, PGCB_ERR_QUERY, err, sizeof err);
        drvtest_assert_one_line(err);
        if (strncmp(err, "22P02: ", 7) != 0 || !strstr(err, "\"abc\""))
            fail_msg("%s: \"%s\"", cf->label, err);
        if (cf->pipelined && !strstr(err, "query 10 of 20"))
            fail_msg("%s: the message does not name query 10 of 20: \"%s\"", cf->label, err);
        /* per query sync: the 19 others ran; otherwise the 9 before it */
        if (s.rows != (cf->stops ? 9u : 19u))
            fail_msg("%s: %llu rows folded before the error was reported, expected %u",
                     cf->label, (unsigned long long)s.rows, cf->stops ? 9u : 19u);
        assert_sum(cf, &good, drvtest_run_params(cf->drv, c, st, 20, &good.p, PGCB_OK, err,
                                                 sizeof err));
        cf->drv->d->close(c);
    }
    pset_free(&bad);
    pset_free(&good);
}

/* A wrong count of parameters, and run_batch (no values) on a statement
 * with parameters: PGCB_ERR_QUERY 08P01 from the server, then a batch works. */
static void test_wrong_count(void **state)
{
    struct pset ps;
    char err[PGCB_ERRLEN];

    (void)state;
    pset_init(&ps, 3);
    pset_add(&ps, "1", "x", 1, "2", "3", "t");
    pset_add(&ps, "4", "y", 1, "5", "6", "f");
    pset_add(&ps, "7", "z", 1, "8", "9", NULL);
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_stmt *st;
        struct pgcb_conn *c = cfg_open(cf, &st);
        struct pgcb_params fewer = ps.p;
        struct pgcb_sum s;

        fewer.nparams = P_N - 1; /* 4 values per query, query after query */
        s = drvtest_run_params(cf->drv, c, st, 2, &fewer, PGCB_ERR_QUERY, err, sizeof err);
        drvtest_assert_one_line(err);
        if (strncmp(err, "08P01: ", 7) != 0)
            fail_msg("%s: \"%s\"", cf->label, err);
        assert_true(s.rows == 0);
        assert_sum(cf, &ps, drvtest_run_params(cf->drv, c, st, 3, &ps.p, PGCB_OK, err,
                                               sizeof err));

        s = drvtest_run_fail(cf->drv, c, st, 2, PGCB_ERR_QUERY, err, sizeof err);
        drvtest_assert_one_line(err);
        if (strncmp(err, "08P01: ", 7) != 0)
            fail_msg("%s: run_batch: \"%s\"", cf->label, err);
        assert_sum(cf, &ps, drvtest_run_params(cf->drv, c, st, 3, &ps.p, PGCB_OK, err,
                                               sizeof err));
        cf->drv->d->close(c);
    }
    pset_free(&ps);
}

/* run_batch and run_batch_params in turn on one connection, at one depth
 * (rawwire keeps the encoded batch of run_batch between calls): each gives
 * its own rows. run_batch_params without parameters is run_batch. */
static void test_alternating(void **state)
{
    struct pset ps;
    struct pgcb_params none = {0, NULL, NULL};
    struct pgcb_sum bench = drvtest_expect_rows(10, 10);
    char err[PGCB_ERRLEN];

    (void)state;
    pset_distinct(&ps, 10, 3);
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_conn *c = drvtest_open_ok(cf->drv, "", cf->opts, cf->nopts);
        struct pgcb_stmt *plain = drvtest_prepare_limit(cf->drv, c, 10);
        struct pgcb_stmt *st = drvtest_prepare_ok(cf->drv, c, "p", P_SQL);
        struct pgcb_sum s;

        for (int k = 0; k < 2; k++) {
            s = drvtest_run_ok(cf->drv, c, plain, 10);
            assert_true(s.rows == 100 && (cf->reference || s.hash == bench.hash));
            assert_sum(cf, &ps, drvtest_run_params(cf->drv, c, st, 10, &ps.p, PGCB_OK, err,
                                                   sizeof err));
        }
        s = drvtest_run_params(cf->drv, c, plain, 10, &none, PGCB_OK, err, sizeof err);
        assert_true(s.rows == 100 && (cf->reference || s.hash == bench.hash));
        s = drvtest_run_params(cf->drv, c, plain, 10, NULL, PGCB_OK, err, sizeof err);
        assert_true(s.rows == 100 && (cf->reference || s.hash == bench.hash));
        cf->drv->d->close(c);
    }
    pset_free(&ps);
}

/* What a driver refuses before sending anything, the connection still
 * usable: more parameters than a Bind can count, a negative length. */
static void test_refused_locally(void **state)
{
    struct pset ps;
    char err[PGCB_ERRLEN];

    (void)state;
    pset_init(&ps, 1);
    pset_add(&ps, "1", "x", 1, "2", "3", "t");
    for (size_t i = 0; i < NCFG; i++) {
        const struct cfg *cf = &cfgs[i];
        struct pgcb_stmt *st;
        struct pgcb_conn *c = cfg_open(cf, &st);
        struct pgcb_params many = {65536, ps.values, ps.lengths};
        struct pgcb_params negative = ps.p;
        int lengths[P_N];

        /* 65536 per query: refused before a value is read */
        drvtest_run_params(cf->drv, c, st, 1, &many, PGCB_ERR_UNSUPPORTED, err, sizeof err);
        drvtest_assert_one_line(err);
        memcpy(lengths, ps.lengths, sizeof lengths);
        lengths[1] = -1;
        negative.lengths = lengths;
        drvtest_run_params(cf->drv, c, st, 1, &negative, PGCB_ERR_UNSUPPORTED, err, sizeof err);
        drvtest_assert_one_line(err);
        assert_non_null(strstr(err, "negative length"));
        assert_sum(cf, &ps, drvtest_run_params(cf->drv, c, st, 1, &ps.p, PGCB_OK, err,
                                               sizeof err));
        cf->drv->d->close(c);
    }
    pset_free(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors),
        cmocka_unit_test(test_mixed_values),
        cmocka_unit_test(test_depth_1000),
        cmocka_unit_test(test_error_mid_batch),
        cmocka_unit_test(test_wrong_count),
        cmocka_unit_test(test_alternating),
        cmocka_unit_test(test_refused_locally),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
