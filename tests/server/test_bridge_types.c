/*
 * test_bridge_types.c -- the types the C drivers convert (ABI 1.4: dates and
 * times, uuid, numeric, json/jsonb, bytea, 1-D arrays), through the bridge
 * and every shipped client, in text and binary where the client chooses:
 * each case's outcome is the one docs/clients.md's fidelity table states.
 *   '=' the bridge's checksum of the client's values equals libpq_sync's
 *       (the client kept the value exactly);
 *   '~' it differs (the client changed the value: a Date's milliseconds, a
 *       timedelta without months, JSON re-serialised ...);
 *   'F' the batch fails (the client refuses the value), its message one
 *       line; 'U' PGCB_ERR_UNSUPPORTED (a 2-D array, as libpq_sync);
 *   '?' the reference refuses the value, the client delivered it (pgx v5's
 *       rows.Values() flattens a 2-D array into one []any).
 * PGCB_BRTYPES_PRINT=1 prints the matrix instead of asserting it.
 *
 * Environment: PGHOST (required), PGPORT, PGUSER, PGDATABASE of a throw-away
 * server; PGCB_BUILD, the build directory.
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

static struct drvtest_drv br, pq;

static const struct client {
    const char *adapter, *client, *format;
    /* A json parameter reaches the server re-serialised, not as given:
     * vertx-pg-client encodes a json parameter from a Java value
     * (JsonObject, String: a JSON string) and takes no raw JSON text. */
    int json_param_reencoded;
} clients[] = {
    {"node", "pg", "text"},          {"node", "pg", "binary"},
    {"node", "pg-native", "text"},   {"node", "postgres", "text"},
    {"python", "psycopg", "text"},   {"python", "psycopg", "binary"},
    {"python", "asyncpg", "binary"}, {"go", "pgx", "binary"},
    {"rust", "tokio-postgres", "binary"},
    {"ruby", "pg", "text"},
    {"java", "pgjdbc", "text"},      {"java", "pgjdbc", "binary"},
    {"go", "pq", "text"},            {"go", "pq", "binary"},
    {"python", "psycopg_python", "text"}, {"python", "psycopg_python", "binary"},
    {"python", "psycopg2", "text"},
    {"rust", "sqlx", "binary"},
    {"java", "vertx", "binary", 1},
};
#define NCLIENTS (sizeof clients / sizeof clients[0])

/* Each case: a SELECT of one column, and the outcome per client (in the
 * order of clients[]). */
static const struct tcase {
    const char *name, *sql, *want;
} cases[] = {
    {"timestamp us", "SELECT '2024-01-02 03:04:05.123456'::timestamp AS v", "~~~~==============="},
    {"timestamp ms", "SELECT '2024-01-02 03:04:05.123'::timestamp AS v", "=~================="},
    {"timestamptz us", "SELECT '2024-01-02 03:04:05.123456+02'::timestamptz AS v", "~~~~==============="},
    {"timestamptz ms", "SELECT '2024-01-02 03:04:05.123+02'::timestamptz AS v", "=~================="},
    {"timestamptz infinity", "SELECT 'infinity'::timestamptz AS v", "=~==FF~=F=~~FFFF~F~"},
    {"date", "SELECT '2024-01-02'::date AS v", "=~================="},
    {"date BC", "SELECT '0044-03-15 BC'::date AS v", "=~==FFF=======FFF=="},
    {"time", "SELECT '03:04:05.123456'::time AS v", "=~================="},
    {"time 24:00", "SELECT '24:00:00'::time AS v", "=~==FFF=~=~~~~FF~FF"},
    {"interval", "SELECT '1 year 2 mons 3 days 04:05:06.789'::interval AS v", "=~==~~~=F=====~~~=="},
    {"interval days", "SELECT '3 days 04:05:06'::interval AS v", "=~======F=========="},
    {"interval -25h", "SELECT '-25:00:00'::interval AS v", "=~==~~~=F=====~~~=~"},
    {"uuid", "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS v", "=~================="},
    {"numeric", "SELECT 1.50::numeric AS v", "=F=======~========="},
    {"numeric NaN", "SELECT 'NaN'::numeric AS v", "=F======F=FF=====F="},
    {"numeric Infinity", "SELECT 'Infinity'::numeric AS v", "=F======F=FF=====FF"},
    {"json", "SELECT '{\"b\": 1, \"a\": [1, 2]}'::json AS v", "~~~~===~~~=======~~"},
    {"jsonb", "SELECT '{\"b\": 1, \"a\": [1, 2]}'::jsonb AS v", "~~~~===~~~=======~~"},
    {"jsonb 2.50", "SELECT '{\"a\": 2.50}'::jsonb AS v", "~~~~~~=~~~====~~~~~"},
    {"bytea", "SELECT '\\x00ff'::bytea AS v", "=~================="},
    {"int4[] NULL", "SELECT '{1,NULL,3}'::int4[] AS v", "=F================="},
    {"int8[] 2^53+1", "SELECT '{9007199254740993,-1}'::int8[] AS v", "=~================="},
    {"text[]", "SELECT '{\"a b\",NULL,\"\",\"é\"}'::text[] AS v", "=F================="},
    {"float8[]", "SELECT '{1.5,NaN,-Infinity}'::float8[] AS v", "=~================="},
    {"int4[] empty", "SELECT '{}'::int4[] AS v", "==================="},
    {"int4[] [0:1]", "SELECT '[0:1]={1,2}'::int4[] AS v", "~~~~~~~~~~~~FF~~~F~"},
    {"int4[][]", "SELECT '{{1,2},{3,4}}'::int4[] AS v", "UUUUUUU?UUUUFFUUUU?"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The outcome of one case through driver t with options o: '=' / '~'
 * against ref (libpq_sync's sum; NULL: this is the reference), 'F', 'U'. */
static char outcome(const struct drvtest_drv *t, struct pgcb_conn *c, const struct tcase *tc,
                    size_t k, const struct pgcb_sum *ref, struct pgcb_sum *out, char *err,
                    size_t errlen)
{
    char name[32];
    snprintf(name, sizeof name, "t%zu", k);
    struct pgcb_stmt *st = drvtest_prepare_ok(t, c, name, tc->sql);
    struct pgcb_sum s = {0, 0};
    err[0] = '\0';
    int rc = t->d->run_batch(c, st, 1, &s, err, errlen);
    *out = s;
    if (rc == PGCB_ERR_UNSUPPORTED)
        return 'U';
    if (rc != PGCB_OK)
        return 'F';
    return !ref || (s.hash == ref->hash && s.rows == ref->rows) ? '=' : '~';
}

static void test_types(void **state)
{
    (void)state;
    const int print = getenv("PGCB_BRTYPES_PRINT") != NULL;
    struct pgcb_sum refs[NCASES];
    char refo[NCASES], err[PGCB_ERRLEN];
    struct pgcb_conn *pc = drvtest_open_ok(&pq, "", NULL, 0);
    for (size_t k = 0; k < NCASES; k++) {
        refo[k] = outcome(&pq, pc, &cases[k], k, NULL, &refs[k], err, sizeof err);
        /* The reference must fold every case (else a client that succeeds
         * would score '=' with no checksum compared), but a 2-D array, which
         * pgcb/value.h refuses (every client's expected outcome is 'U', or
         * 'F' for one that refuses it itself: lib/pq's pq.Array, or '?' for
         * one that delivers it changed: pgx v5 flattens it to one []any). */
        char want_ref = strspn(cases[k].want, "UF?") == strlen(cases[k].want) ? 'U' : '=';
        if (refo[k] != want_ref)
            fail_msg("libpq_sync (the reference) %s: outcome %c, expected %c%s%s", cases[k].name,
                     refo[k], want_ref, err[0] ? ": " : "", err);
    }
    pq.d->close(pc);
    int bad = 0;
    for (size_t i = 0; i < NCLIENTS; i++) {
        const struct client *cl = &clients[i];
        const struct pgcb_option o[] = {{"adapter", cl->adapter}, {"client", cl->client},
                                        {"result_format", cl->format}};
        struct pgcb_conn *c = drvtest_open_ok(&br, "", o, 3);
        for (size_t k = 0; k < NCASES; k++) {
            /* Libpq_sync's own outcome: '=' (folded) or 'U' (2-D). */
            char want = cases[k].want[i];
            struct pgcb_sum mine;
            char got = outcome(&br, c, &cases[k], k, refo[k] == '=' ? &refs[k] : NULL, &mine,
                               err, sizeof err);
            if (refo[k] == 'U' && got == '=')
                got = '?'; /* the reference refused it, the client did not */
            if (got == 'F' || got == 'U')
                drvtest_assert_one_line(err);
            if (print)
                printf("%-8s %-10s %-7s %-22s %c %s\n", cl->adapter, cl->client, cl->format,
                       cases[k].name, got, got == 'F' || got == 'U' ? err : "");
            else if (got != want) {
                fprintf(stderr, "%s/%s (%s) %s: outcome %c, expected %c%s%s\n", cl->adapter,
                        cl->client, cl->format, cases[k].name, got, want, err[0] ? ": " : "",
                        err);
                bad++;
            }
            if (got == 'F') {
                br.d->close(c); /* the adapter may be gone: a new connection */
                c = drvtest_open_ok(&br, "", o, 3);
            }
        }
        br.d->close(c);
    }
    assert_int_equal(bad, 0);
}

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_bridge_types") || drvtest_load(&br, "bridge") ||
        drvtest_load(&pq, "libpq_sync"))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    drvtest_unload(&br);
    drvtest_unload(&pq);
    return 0;
}

/* Parameters are bound as the bridge's text, whatever type the server
 * describes for them: a bool's 'true' and 'false' and a json's text reach
 * the server as given, for every client, as for libpq (postgres.js's own
 * serializers once made any string bool 'f' and quoted a json string
 * again: MagicStack's pg_type matched no row). */
static void test_text_params(void **state)
{
    (void)state;
    static const char sql[] = "SELECT count(*)::int AS n, $3::json::text AS j FROM pg_type "
                              "WHERE typtypmod = $1 AND typisdefined = $2";
    static const char *const sets[][3] = {{"-1", "true", "{\"a\": [1, \"x\"]}"},
                                          {"-1", "false", "\"text\""}};
    char err[PGCB_ERRLEN];
    struct pgcb_sum want[2];
    struct pgcb_conn *pc = drvtest_open_ok(&pq, "", NULL, 0);
    struct pgcb_stmt *ps = drvtest_prepare_ok(&pq, pc, "pgcb_tp", sql);
    for (int k = 0; k < 2; k++) {
        int len[3] = {(int)strlen(sets[k][0]), (int)strlen(sets[k][1]), (int)strlen(sets[k][2])};
        struct pgcb_params p = {3, sets[k], len};
        want[k] = drvtest_run_params(&pq, pc, ps, 1, &p, PGCB_OK, err, sizeof err);
    }
    pq.d->close(pc);
    assert_true(want[0].hash != want[1].hash);
    int bad = 0;
    for (size_t i = 0; i < NCLIENTS; i++) {
        const struct client *cl = &clients[i];
        const struct pgcb_option o[] = {{"adapter", cl->adapter}, {"client", cl->client},
                                        {"result_format", cl->format}};
        struct pgcb_conn *c = drvtest_open_ok(&br, "", o, 3);
        struct pgcb_stmt *st = drvtest_prepare_ok(&br, c, "pgcb_tp", sql);
        for (int k = 0; k < 2; k++) {
            int len[3] = {(int)strlen(sets[k][0]), (int)strlen(sets[k][1]),
                          (int)strlen(sets[k][2])};
            struct pgcb_params p = {3, sets[k], len};
            struct pgcb_sum got = drvtest_run_params(&br, c, st, 1, &p, PGCB_OK, err, sizeof err);
            /* Both columns are int4 and text in every format. The JSON
             * object of the first set, re-serialised, loses its spaces. */
            if (cl->json_param_reencoded && k == 0) {
                if (got.rows != want[k].rows || got.hash == want[k].hash) {
                    fprintf(stderr, "%s/%s: the json object came back as given: rows %llu\n",
                            cl->adapter, cl->client, (unsigned long long)got.rows);
                    bad++;
                }
                continue;
            }
            if (got.rows != want[k].rows || got.hash != want[k].hash) {
                fprintf(stderr, "%s/%s (%s), typisdefined = %s: rows %llu hash %016llx, libpq "
                        "rows %llu hash %016llx\n", cl->adapter, cl->client, cl->format,
                        sets[k][1], (unsigned long long)got.rows, (unsigned long long)got.hash,
                        (unsigned long long)want[k].rows, (unsigned long long)want[k].hash);
                bad++;
            }
        }
        br.d->close(c);
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_types),
                                       cmocka_unit_test(test_text_params)};
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
