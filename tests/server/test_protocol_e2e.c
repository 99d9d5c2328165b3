/*
 * test_protocol_e2e.c -- like for like, end to end: the run's protocol
 * choices ([bench] result_format, describe, sync) reach every driver that
 * offers them, what each driver's connections ask of the server is recorded
 * (header, tables, JSON) and a driver that asks for other work is marked;
 * a choice a section sets that its driver does not take is refused at load.
 *
 * Each run is tiny (ops = 20 per order, one query): the assertions are on
 * what is recorded and printed, never on speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgcb/driver.h"
#include "proto.h"
#include "result.h"
#include "../lib/e2e.h"

static const char *const no_budget_env[] = {"BENCH_TIME_MS", "BENCH_QUERIES", NULL};

/* Run `drivers` (INI sections) with `bench` extra [bench] keys over one
 * LIMIT 100 query at depth 3; read the result into *res. Returns the run
 * (the caller frees). */
static struct e2e_run run_protocol(const char *name, const char *bench, const char *drivers,
                                   struct pgcb_result *res)
{
    char head[1024], body[8192];
    snprintf(head, sizeof head,
             "[bench]\nwarmup_ms = 0\norders = 2\n%s\n[server]\nsetup = %s/sql/benchmark_rows.sql\n",
             bench, e2e_top);
    snprintf(body, sizeof body,
             "%s\n[query.limit_100]\nsql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 100\n"
             "rows = 100\n[suite.pipelined]\ndepth = 3\nops = 30\nqueries = limit_100\n",
             drivers);
    const char *ini = e2e_write_file(name, head, body);
    const char *path = e2e_json_path(name);
    struct e2e_run r = e2e_run_runner(ini, path, no_budget_env, NULL, 0, NULL);
    if (r.status != 0)
        fprintf(stderr, "stdout:\n%s\nstderr:\n%s\n", r.out, r.err);
    if (res) {
        assert_int_equal(r.status, 0);
        char err[512];
        assert_int_equal(pgcb_result_read(path, res, err, sizeof err), 0);
    }
    return r;
}

static size_t driver_index(const struct pgcb_result *res, const char *label)
{
    for (size_t d = 0; d < res->ndrivers; d++)
        if (strcmp(res->drivers[d].label, label) == 0)
            return d;
    fail_msg("no driver %s in the result", label);
    return 0;
}

static void expect_proto(const struct pgcb_result *res, const char *label, uint32_t fmt,
                         uint32_t desc, uint32_t sync, unsigned set_by_section)
{
    const struct pgcb_res_driver *rd = &res->drivers[driver_index(res, label)];
    print_message("%s: format %u describe %u sync %u statements %u, set %#x\n", label,
                  rd->proto.result_format, rd->proto.describe, rd->proto.sync,
                  rd->proto.statements, rd->proto_explicit);
    assert_int_equal(rd->proto.result_format, fmt);
    assert_int_equal(rd->proto.describe, desc);
    assert_int_equal(rd->proto.sync, sync);
    assert_int_equal(rd->proto.statements, PGCB_STMT_NAMED);
    assert_int_equal(rd->proto_explicit, set_by_section);
}

/* The defaults: text, a Describe per execution, a Sync per query, reaching
 * rawwire and the floor as options; a section's own choice is recorded as
 * set by it and marked in the header and the table. */
static void test_defaults_and_variant(void **state)
{
    (void)state;
    char drivers[4096];
    snprintf(drivers, sizeof drivers,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n"
             "[driver.rawwire_once]\npath = %s/drivers/rawwire.so\ndescribe = once\n"
             "[driver.floor]\npath = %s/drivers/floor.so\n"
             "[driver.floor_bin]\npath = %s/drivers/floor.so\nresult_format = binary\n",
             e2e_build, e2e_build, e2e_build, e2e_build, e2e_build);
    struct pgcb_result res;
    struct e2e_run r = run_protocol("defaults", "", drivers, &res);
    struct pgcb_protocol def = pgcb_proto_default();
    assert_memory_equal(&res.proto, &def, sizeof def);
    expect_proto(&res, "libpq_sync", PGCB_FORMAT_TEXT, PGCB_DESCRIBE_PER_EXECUTION,
                 PGCB_SYNC_PER_QUERY, 0);
    expect_proto(&res, "rawwire", PGCB_FORMAT_TEXT, PGCB_DESCRIBE_PER_EXECUTION,
                 PGCB_SYNC_PER_QUERY, 0);
    expect_proto(&res, "rawwire_once", PGCB_FORMAT_TEXT, PGCB_DESCRIBE_ONCE, PGCB_SYNC_PER_QUERY,
                 1u << PGCB_PROTO_DESCRIBE);
    expect_proto(&res, "floor_bin", PGCB_FORMAT_BINARY, PGCB_DESCRIBE_PER_EXECUTION,
                 PGCB_SYNC_PER_QUERY, 1u << PGCB_PROTO_RESULT_FORMAT);
    assert_non_null(strstr(r.out, "Protocol : every driver is asked for text results, a "
                                  "Describe per execution, a Sync per query, named statements"));
    assert_non_null(strstr(r.out, "not like for like (* in the tables): rawwire_once: Describe "
                                  "once; floor_bin: binary results\n"));
    assert_non_null(strstr(r.out, "│ rawwire_once *  "));
    assert_non_null(strstr(r.out, "│ floor_bin (reference) *"));
    assert_non_null(strstr(r.out, "│ rawwire         "));
    assert_non_null(strstr(r.out, "  * not like for like: rawwire_once: Describe once; floor_bin: "
                                  "binary results (the run: text results, a Describe per "
                                  "execution)\n"));
    /* every client's checksum agreed: the variants fold the same rows */
    for (size_t d = 0; d < res.ndrivers; d++)
        assert_int_equal(res.groups[0].cells[d].status, PGCB_CELL_OK);
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* [bench] result_format = binary, describe = once, sync = per_batch: taken
 * by every driver that offers the key; libpq cannot describe once (nor
 * libpq_sync batch its Syncs), which marks them, and nothing is refused. */
static void test_run_choices(void **state)
{
    (void)state;
    char drivers[4096];
    snprintf(drivers, sizeof drivers,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.libpq_pipeline]\npath = %s/drivers/libpq_pipeline.so\n"
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\n",
             e2e_build, e2e_build, e2e_build);
    struct pgcb_result res;
    struct e2e_run r = run_protocol("choices", "result_format = binary\ndescribe = once\n"
                                    "sync = per_batch\n", drivers, &res);
    assert_int_equal(res.proto.result_format, PGCB_FORMAT_BINARY);
    assert_int_equal(res.proto.describe, PGCB_DESCRIBE_ONCE);
    assert_int_equal(res.proto.sync, PGCB_SYNC_PER_BATCH);
    expect_proto(&res, "libpq_sync", PGCB_FORMAT_BINARY, PGCB_DESCRIBE_PER_EXECUTION,
                 PGCB_SYNC_PER_QUERY, 0);
    expect_proto(&res, "libpq_pipeline", PGCB_FORMAT_BINARY, PGCB_DESCRIBE_PER_EXECUTION,
                 PGCB_SYNC_PER_BATCH, 0);
    expect_proto(&res, "rawwire", PGCB_FORMAT_BINARY, PGCB_DESCRIBE_ONCE, PGCB_SYNC_PER_BATCH, 0);
    assert_non_null(strstr(r.out, "not like for like (* in the tables): libpq_sync: a Describe per "
                                  "execution, a Sync per query; libpq_pipeline: a Describe per "
                                  "execution\n"));
    assert_non_null(strstr(r.out, "│ rawwire          "));
    assert_non_null(strstr(r.out, "│ libpq_sync *     "));
    pgcb_result_free(&res);
    e2e_run_free(&r);
}

/* A protocol key the driver does not take is refused at load, naming the
 * file, line, key and driver; nothing runs. */
static void test_refused(void **state)
{
    (void)state;
    char drivers[2048];
    snprintf(drivers, sizeof drivers,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\ndescribe = once\n", e2e_build);
    struct e2e_run r = run_protocol("refused", "", drivers, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "unknown key 'describe' in [driver.libpq_sync] (libpq_sync "
                                  "accepts: result_format)"));
    assert_null(strstr(r.out, "┌"));
    e2e_run_free(&r);
    snprintf(drivers, sizeof drivers,
             "[driver.rawwire]\npath = %s/drivers/rawwire.so\nsync = sometimes\n", e2e_build);
    r = run_protocol("refused_value", "", drivers, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "[driver.rawwire]: sync = \"sometimes\": expected per_query or "
                                  "per_batch"));
    e2e_run_free(&r);
}

int main(void)
{
    if (e2e_setup("test_protocol_e2e") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_variant),
        cmocka_unit_test(test_run_choices),
        cmocka_unit_test(test_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
