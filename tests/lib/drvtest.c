/*
 * drvtest.c -- the drivers' tests' shared helpers (drvtest.h says what each
 * one promises).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drvtest.h"

int drvtest_require_server(const char *test)
{
    const char *host = getenv("PGHOST");

    if (host && *host)
        return 0;
    print_error("PGHOST is not set: %s needs a throw-away PostgreSQL server "
                "(PGHOST, PGPORT, PGUSER, PGDATABASE); it fails rather than skip\n", test);
    return -1;
}

int drvtest_adapter_skipped(const char *adapter)
{
    static char said[256];
    const char *list = getenv("PGCB_TEST_SKIP_ADAPTERS");
    size_t n = strlen(adapter);
    if (!list || n == 0)
        return 0;
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        if (strcspn(p, ",") != n || strncmp(p, adapter, n) != 0)
            continue;
        char tag[64];
        snprintf(tag, sizeof tag, ",%s,", adapter);
        if (!strstr(said, tag) && strlen(said) + strlen(tag) < sizeof said) {
            strcat(said, tag);
            print_message("SKIP adapter = %s: not built by make check (PGCB_TEST_SKIP_ADAPTERS=%s); "
                          "make test builds and tests it\n", adapter, list);
        }
        return 1;
    }
    return 0;
}

int drvtest_load(struct drvtest_drv *t, const char *name)
{
    const char *b = getenv("PGCB_BUILD");
    char path[4096];
    pgcb_driver_entry_fn entry;

    t->d = NULL;
    snprintf(path, sizeof path, "%s/drivers/%s.so", b && *b ? b : "build", name);
    t->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!t->dl) {
        print_error("dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    *(void **)&entry = dlsym(t->dl, PGCB_DRIVER_ENTRY_SYMBOL);
    if (!entry || !(t->d = entry()) || t->d->magic != PGCB_DRIVER_MAGIC ||
        t->d->abi_major != PGCB_ABI_MAJOR || t->d->struct_size < PGCB_DRIVER_SIZE_1_0) {
        print_error("%s: no valid %s\n", path, PGCB_DRIVER_ENTRY_SYMBOL);
        return -1;
    }
    return 0;
}

void drvtest_unload(struct drvtest_drv *t)
{
    if (t->dl)
        dlclose(t->dl);
    t->dl = NULL;
    t->d = NULL;
}

PGconn *drvtest_admin_connect(void)
{
    PGconn *pg = PQconnectdb("");

    if (PQstatus(pg) != CONNECTION_OK) {
        print_error("connect: %s", PQerrorMessage(pg));
        PQfinish(pg);
        return NULL;
    }
    return pg;
}

int drvtest_admin_exec(PGconn *pg, const char *sql)
{
    PGresult *r = PQexec(pg, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;

    if (!ok)
        print_error("%s: %s", sql, PQerrorMessage(pg));
    PQclear(r);
    return ok ? 0 : -1;
}

int drvtest_create_table(const char *extra_sql)
{
    PGconn *pg = drvtest_admin_connect();
    int rc;

    if (!pg)
        return -1;
    rc = drvtest_admin_exec(pg, "SET client_min_messages = warning") ||
         drvtest_admin_exec(pg, "DROP TABLE IF EXISTS benchmark_rows") ||
         drvtest_admin_exec(pg, "CREATE TABLE benchmark_rows (id int PRIMARY KEY, int_value int, "
                                "string_value text, null_value text, bool_value boolean)") ||
         drvtest_admin_exec(pg, "INSERT INTO benchmark_rows SELECT i, 1337, 'wat', NULL, false "
                                "FROM generate_series(1, 500) AS i") ||
         (extra_sql && drvtest_admin_exec(pg, extra_sql));
    PQfinish(pg);
    return rc ? -1 : 0;
}

struct pgcb_conn *drvtest_open_ok(const struct drvtest_drv *t, const char *conninfo,
                                  const struct pgcb_option *opts, size_t nopts)
{
    struct pgcb_conn *c = NULL;
    char err[PGCB_ERRLEN] = "";
    int rc = t->d->open(conninfo, opts, nopts, &c, err, sizeof err);

    if (rc != PGCB_OK)
        print_error("open %s: %d %s\n", t->d->name, rc, err);
    assert_int_equal(rc, PGCB_OK);
    assert_non_null(c);
    return c;
}

struct pgcb_stmt *drvtest_prepare_ok(const struct drvtest_drv *t, struct pgcb_conn *c,
                                     const char *name, const char *sql)
{
    struct pgcb_stmt *st = NULL;
    char err[PGCB_ERRLEN] = "";
    int rc = t->d->prepare(c, name, sql, &st, err, sizeof err);

    if (rc != PGCB_OK)
        print_error("prepare %s (%s): %d %s\n", sql, t->d->name, rc, err);
    assert_int_equal(rc, PGCB_OK);
    assert_non_null(st);
    return st;
}

struct pgcb_stmt *drvtest_prepare_limit(const struct drvtest_drv *t, struct pgcb_conn *c,
                                        uint32_t limit)
{
    char name[32], sql[256];

    snprintf(name, sizeof name, "bench_%u", limit);
    snprintf(sql, sizeof sql, DRVTEST_BENCH_SQL "%u", limit);
    return drvtest_prepare_ok(t, c, name, sql);
}

struct pgcb_sum drvtest_run_ok(const struct drvtest_drv *t, struct pgcb_conn *c,
                               struct pgcb_stmt *st, uint32_t depth)
{
    struct pgcb_sum s = {0, 0};
    char err[PGCB_ERRLEN] = "";
    int rc;

    alarm(DRVTEST_HANG_LIMIT_S);
    rc = t->d->run_batch(c, st, depth, &s, err, sizeof err);
    alarm(0);
    if (rc != PGCB_OK)
        print_error("run_batch %s depth %u: %d %s\n", t->d->name, depth, rc, err);
    assert_int_equal(rc, PGCB_OK);
    return s;
}

struct pgcb_sum drvtest_run_fail(const struct drvtest_drv *t, struct pgcb_conn *c,
                                 struct pgcb_stmt *st, uint32_t depth, int want, char *err,
                                 size_t errlen)
{
    struct pgcb_sum s = {0, 0};
    int rc;

    err[0] = '\0';
    alarm(DRVTEST_HANG_LIMIT_S);
    rc = t->d->run_batch(c, st, depth, &s, err, errlen);
    alarm(0);
    if (rc != want)
        print_error("run_batch %s depth %u: got %d (%s), want %d\n", t->d->name, depth, rc, err,
                    want);
    assert_int_equal(rc, want);
    return s;
}

struct pgcb_sum drvtest_run_params(const struct drvtest_drv *t, struct pgcb_conn *c,
                                   struct pgcb_stmt *st, uint32_t depth,
                                   const struct pgcb_params *p, int want, char *err,
                                   size_t errlen)
{
    struct pgcb_sum s = {0, 0};
    int rc;

    assert_true(PGCB_DRIVER_HAS(t->d, 1, run_batch_params));
    err[0] = '\0';
    alarm(DRVTEST_HANG_LIMIT_S);
    rc = t->d->run_batch_params(c, st, depth, p, &s, err, errlen);
    alarm(0);
    if (rc != want)
        print_error("run_batch_params %s depth %u: got %d (%s), want %d\n", t->d->name, depth,
                    rc, err, want);
    assert_int_equal(rc, want);
    return s;
}

void drvtest_assert_one_line(const char *err)
{
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    assert_null(strchr(err, '\r'));
}

struct pgcb_sum drvtest_expect_rows(uint32_t n, uint32_t depth)
{
    struct pgcb_sum s = {0, 0};

    for (uint32_t d = 0; d < depth; d++)
        for (uint32_t i = 1; i <= n; i++) {
            pgcb_sum_int(&s, i);
            pgcb_sum_int(&s, 1337);
            pgcb_sum_text(&s, "wat", 3);
            pgcb_sum_null(&s);
            pgcb_sum_bool(&s, 0);
            pgcb_sum_row(&s);
        }
    return s;
}

/* The two rows of DRVTEST_TYPES_SQL, as every driver must fold them. */
static void fold_types(struct pgcb_sum *s)
{
    pgcb_sum_int(s, INT64_MIN);
    pgcb_sum_int(s, INT32_MIN);
    pgcb_sum_int(s, -1);
    pgcb_sum_int(s, 0);
    pgcb_sum_float4(s, -INFINITY);
    pgcb_sum_float8(s, INFINITY);
    pgcb_sum_float8(s, -0.0);
    pgcb_sum_float8(s, 0.1);
    pgcb_sum_float4(s, 0.1f);
    pgcb_sum_float4(s, 3.4028235e38f);
    pgcb_sum_text(s, "ab  ", 4); /* bpchar keeps its padding */
    pgcb_sum_text(s, "wat", 3);
    pgcb_sum_text(s, "nm", 2);
    pgcb_sum_text(s, "", 0);
    pgcb_sum_null(s);
    pgcb_sum_bool(s, 0);
    pgcb_sum_null(s);
    pgcb_sum_row(s);

    pgcb_sum_int(s, 1);
    pgcb_sum_int(s, 2);
    pgcb_sum_int(s, 3);
    pgcb_sum_int(s, -4);
    pgcb_sum_float4(s, NAN);
    pgcb_sum_float8(s, -1e-300);
    pgcb_sum_float8(s, 1e300);
    pgcb_sum_float8(s, -2.5);
    pgcb_sum_float4(s, 1e-30f);
    pgcb_sum_float4(s, 1.0f);
    pgcb_sum_text(s, "x   ", 4);
    pgcb_sum_text(s, "y", 1);
    pgcb_sum_text(s, "z", 1);
    pgcb_sum_text(s, "w", 1);
    pgcb_sum_text(s, "v", 1);
    pgcb_sum_bool(s, 1);
    pgcb_sum_bool(s, 1);
    pgcb_sum_row(s);
}

struct pgcb_sum drvtest_expect_types(uint32_t depth)
{
    struct pgcb_sum s = {0, 0};

    for (uint32_t d = 0; d < depth; d++)
        fold_types(&s);
    return s;
}

locale_t drvtest_c_locale;

int drvtest_c_locale_setup(void **state)
{
    (void)state;
    drvtest_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return drvtest_c_locale ? 0 : -1;
}

int drvtest_c_locale_teardown(void **state)
{
    (void)state;
    if (drvtest_c_locale)
        freelocale(drvtest_c_locale);
    drvtest_c_locale = (locale_t)0;
    return 0;
}
