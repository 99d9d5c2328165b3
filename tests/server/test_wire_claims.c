/*
 * test_wire_claims.c -- what every shipped driver's protocol() (ABI 1.3)
 * says its connections send, checked against what they send: each driver
 * connects through the recording proxy tests/lib/wirespy, prepares the
 * benchmark query, primes it with one batch, then runs one batch of depth 3,
 * and the frontend messages of that batch must be what protocol() claimed:
 *
 *   describe per_execution: 3 Describe (portal); once: none;
 *   sync per_query: 3 Sync; per_batch: 1;
 *   statements named: no Parse (the statement was parsed before); unnamed: 3;
 *   result_format text: every Bind asks for text (no codes, or all 0);
 *     binary: every Bind asks for binary for some column;
 *   always 3 Bind and 3 Execute, and the rows' checksum as folded from the
 *   expected values (consumption right in both formats).
 *
 * For result_format text and binary: passed as the option `result_format`
 * to a driver whose options declare it (as the runner does), and the claim
 * is checked whatever it is -- a driver that cannot give binary must say
 * text, and then send text. The bridge's clients' claims are also compared
 * with what their sources say they can do (the table `bridge_cases`), so
 * that a change of client behaviour is seen.
 *
 * Every field of a shipped driver's claim must be known (non-zero): a driver
 * without protocol(), or one that leaves a field unknown, FAILS here.
 *
 * Environment: PGHOST (required: without it the test FAILS, it does not
 * skip) and PGPORT of a throw-away server (unix socket directory or TCP
 * address), whose benchmark_rows this test drops and re-creates; PGCB_BUILD
 * (drivers/, adapters/). A missing driver or adapter FAILS, saying which.
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
#include "../lib/wirespy.h"

#define DEPTH 3
#define LIMIT 10

static struct wirespy *spy;
static char conninfo[128];

/* One driver as the runner would load it: its .so and options (without
 * result_format, which the test adds when the driver declares it). For a
 * bridge client, what its source says it can send in each format: the
 * format it must claim when asked for text, and when asked for binary. */
struct wcase {
    const char *so;
    const char *adapter, *client; /* bridge only */
    int text_gives, binary_gives; /* bridge only: PGCB_FORMAT_* */
    const char *k1, *v1, *k2, *v2; /* more options (a protocol variant), or NULL */
    int simple; /* the simple query protocol: one Query per execution, nothing else */
};

static const struct wcase c_cases[] = {
    {"libpq_sync", NULL, NULL, 0, 0},
    {"libpq_pipeline", NULL, NULL, 0, 0},
    {"rawwire", NULL, NULL, 0, 0},
    {"floor", NULL, NULL, 0, 0},
    {"libpq_pipeline", NULL, NULL, 0, 0, "sync", "per_batch"},
    {"rawwire", NULL, NULL, 0, 0, "describe", "once", "sync", "per_batch"},
    {"floor", NULL, NULL, 0, 0, "describe", "once", "sync", "per_batch"},
};

static const struct wcase bridge_cases[] = {
    {"bridge", "node", "pg", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    {"bridge", "node", "pg-native", PGCB_FORMAT_TEXT, PGCB_FORMAT_TEXT},
    {"bridge", "node", "postgres", PGCB_FORMAT_TEXT, PGCB_FORMAT_TEXT},
    {"bridge", "python", "psycopg", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    {"bridge", "python", "asyncpg", PGCB_FORMAT_BINARY, PGCB_FORMAT_BINARY},
    {"bridge", "python", "psycopg_python", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    /* psycopg2: PQexec of the text with the parameters quoted in (a Query
     * per execution: parsed and described every time, a ReadyForQuery after
     * each, text); it claims the extended protocol's equivalents */
    {"bridge", "python", "psycopg2", PGCB_FORMAT_TEXT, PGCB_FORMAT_TEXT, NULL, NULL, NULL, NULL, 1},
    {"bridge", "go", "pgx", PGCB_FORMAT_BINARY, PGCB_FORMAT_BINARY}, /* SendBatch cannot ask for text (v5 neither) */
    /* tokio-postgres's Bind asks for binary, always (its Row::get reads binary) */
    {"bridge", "rust", "tokio-postgres", PGCB_FORMAT_BINARY, PGCB_FORMAT_BINARY},
    {"bridge", "ruby", "pg", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    /* pgjdbc: binaryTransfer=false asks for text, true for binary (for the
     * types pgjdbc decodes, once the statement is named and described);
     * prepareThreshold=1: named from the first execution, the prime;
     * 0: never named (Parse and a Describe with every execution, and text:
     * pgjdbc asks for binary only for a statement described before) */
    {"bridge", "java", "pgjdbc", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    {"bridge", "java", "pgjdbc", PGCB_FORMAT_TEXT, PGCB_FORMAT_TEXT, "options",
     "prepare_threshold=0"},
    /* lib/pq: binary for the types it decodes so (int2/4/8, bytea, uuid),
     * text for all with disable_prepared_binary_result */
    {"bridge", "go", "pq", PGCB_FORMAT_TEXT, PGCB_FORMAT_BINARY},
    /* sqlx's Bind asks for binary, always (one format code, 1) */
    {"bridge", "rust", "sqlx", PGCB_FORMAT_BINARY, PGCB_FORMAT_BINARY},
    /* vertx-pg-client asks for binary, always, for the types it knows;
     * setCachePreparedStatements: named, described once */
    {"bridge", "java", "vertx", PGCB_FORMAT_BINARY, PGCB_FORMAT_BINARY},
};

static const char *format_name(uint32_t f)
{
    return f == PGCB_FORMAT_TEXT ? "text" : f == PGCB_FORMAT_BINARY ? "binary" : "unknown";
}

static int group_setup(void **state)
{
    (void)state;
    if (drvtest_require_server("test_wire_claims") || drvtest_create_table(NULL))
        return -1;
    spy = wirespy_start(getenv("PGHOST"), getenv("PGPORT"));
    if (!spy)
        return -1;
    snprintf(conninfo, sizeof conninfo,
             "host=127.0.0.1 port=%d sslmode=disable gssencmode=disable", wirespy_port(spy));
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    wirespy_stop(spy);
    spy = NULL;
    return 0;
}

/* Does the driver declare option `key`? */
static int declares(const struct pgcb_driver *d, const char *key)
{
    for (const struct pgcb_option_spec *o = d->options; o && o->key; o++)
        if (strcmp(o->key, key) == 0)
            return 1;
    return 0;
}

/* The one connection accepted since `first` whose counts changed between
 * `before` (snapshots of connections first..) and now; its diff in *d.
 * Fails the test unless exactly one did. */
static void changed_conn(size_t first, const struct wirespy_counts *before, size_t nbefore,
                         struct wirespy_counts *d, const char *what)
{
    size_t n = wirespy_nconns(spy), found = 0;
    for (size_t i = first; i < n; i++) {
        struct wirespy_counts now, zero, diff;
        memset(&zero, 0, sizeof zero);
        wirespy_settle(spy, i, 2000);
        wirespy_snapshot(spy, i, &now);
        diff = wirespy_diff(i - first < nbefore ? &before[i - first] : &zero, &now);
        if (diff.parse + diff.bind + diff.execute + diff.sync + diff.query + diff.describe_portal +
                diff.describe_stmt + diff.flush + diff.other == 0)
            continue;
        found++;
        *d = diff;
    }
    if (found != 1)
        fail_msg("%s: %zu connections through the proxy sent messages during the batch, "
                 "expected exactly 1", what, found);
}

/* Every Bind of d asks for format f: text is no codes or all 0; binary is
 * at least one code 1 (the types the driver converts; text for the rest). */
static void assert_binds(const struct wirespy_counts *d, uint32_t f, const char *what)
{
    assert_true(d->nbinds > 0);
    for (uint32_t b = 0; b < d->nbinds; b++) {
        const struct wirespy_bind *bd = &d->binds[b];
        int ones = 0, others = 0;
        for (uint16_t k = 0; k < bd->nformats && k < WIRESPY_MAX_FORMATS; k++) {
            ones += bd->formats[k] == 1;
            others += bd->formats[k] != 0 && bd->formats[k] != 1;
        }
        if (others || (f == PGCB_FORMAT_TEXT && ones) || (f == PGCB_FORMAT_BINARY && !ones))
            fail_msg("%s: claims result_format %s, but Bind %u asks for %u format codes, %d of "
                     "them binary", what, format_name(f), b + 1, bd->nformats, ones);
    }
}

/* One driver, one requested format: protocol(), then the wire. */
static void check_case(const struct wcase *wc, const char *format)
{
    char what[160], err[PGCB_ERRLEN] = "";
    struct drvtest_drv t = {0};
    if (wc->adapter)
        snprintf(what, sizeof what, "bridge (adapter %s, client %s%s%s), result_format %s",
                 wc->adapter, wc->client, wc->k1 ? ", options " : "", wc->k1 ? wc->v1 : "",
                 format);
    else
        snprintf(what, sizeof what, "%s%s%s%s%s%s%s%s%s, result_format %s", wc->so,
                 wc->k1 ? " " : "", wc->k1 ? wc->k1 : "", wc->k1 ? "=" : "", wc->k1 ? wc->v1 : "",
                 wc->k2 ? " " : "", wc->k2 ? wc->k2 : "", wc->k2 ? "=" : "", wc->k2 ? wc->v2 : "",
                 format);
    if (drvtest_load(&t, wc->so) != 0)
        fail_msg("%s: cannot load build/drivers/%s.so (make builds it)", what, wc->so);
    struct pgcb_option o[6];
    size_t n = 0;
    if (wc->k1)
        o[n++] = (struct pgcb_option){wc->k1, wc->v1};
    if (wc->k2)
        o[n++] = (struct pgcb_option){wc->k2, wc->v2};
    if (wc->adapter) {
        o[n++] = (struct pgcb_option){"adapter", wc->adapter};
        o[n++] = (struct pgcb_option){"client", wc->client};
    }
    int asked = declares(t.d, "result_format");
    if (asked)
        o[n++] = (struct pgcb_option){"result_format", format};
    if (!PGCB_DRIVER_HAS(t.d, 3, protocol)) {
        unsigned minor = t.d->abi_minor;
        drvtest_unload(&t);
        fail_msg("%s: no protocol() slot (the driver is ABI 1.%u; the slot is ABI 1.3's): it "
                 "cannot say what it sends", what, minor);
    }
    struct pgcb_protocol p;
    memset(&p, 0, sizeof p);
    int rc = t.d->protocol(o, n, &p, err, sizeof err);
    if (rc != PGCB_OK) {
        drvtest_unload(&t);
        fail_msg("%s: protocol() returned %d: %s", what, rc, err);
    }
    print_message("%s: claims result_format %s, describe %s, sync %s, statements %s\n", what,
                  format_name(p.result_format),
                  p.describe == PGCB_DESCRIBE_PER_EXECUTION ? "per_execution"
                  : p.describe == PGCB_DESCRIBE_ONCE        ? "once" : "unknown",
                  p.sync == PGCB_SYNC_PER_QUERY ? "per_query"
                  : p.sync == PGCB_SYNC_PER_BATCH ? "per_batch" : "unknown",
                  p.statements == PGCB_STMT_NAMED ? "named"
                  : p.statements == PGCB_STMT_UNNAMED ? "unnamed" : "unknown");
    if (!p.result_format || !p.describe || !p.sync || !p.statements)
        fail_msg("%s: protocol() leaves a choice unknown (0): a shipped driver must say what it "
                 "sends", what);
    if (wc->adapter) {
        int want = strcmp(format, "binary") == 0 ? wc->binary_gives : wc->text_gives;
        if ((int)p.result_format != want)
            fail_msg("%s: claims result_format %s; its client gives %s", what,
                     format_name(p.result_format), format_name((uint32_t)want));
    }

    size_t first = wirespy_nconns(spy);
    struct pgcb_conn *c = drvtest_open_ok(&t, conninfo, o, n);
    struct pgcb_stmt *st = drvtest_prepare_limit(&t, c, LIMIT);
    struct pgcb_sum s = drvtest_run_ok(&t, c, st, 1); /* the prime */
    assert_int_equal(s.rows, LIMIT);

    size_t nb = wirespy_nconns(spy) - first;
    struct wirespy_counts *before = calloc(nb ? nb : 1, sizeof *before);
    assert_non_null(before);
    for (size_t i = 0; i < nb; i++) {
        wirespy_settle(spy, first + i, 2000);
        wirespy_snapshot(spy, first + i, &before[i]);
    }
    s = drvtest_run_ok(&t, c, st, DEPTH);
    struct pgcb_sum want = drvtest_expect_rows(LIMIT, DEPTH);
    assert_int_equal(s.rows, want.rows);
    if (s.hash != want.hash && !(t.d->caps & PGCB_CAP_REFERENCE)) /* the floor folds nothing */
        fail_msg("%s: the batch's checksum is not the benchmark rows'", what);
    struct wirespy_counts d;
    memset(&d, 0, sizeof d);
    changed_conn(first, before, nb, &d, what);
    free(before);
    t.d->close(c);

    print_message("%s: on the wire, batch of %d: Parse %u Bind %u Describe(P) %u Describe(S) %u "
                  "Execute %u Sync %u Flush %u; Bind 1 result format codes %u [%d]\n",
                  what, DEPTH, d.parse, d.bind, d.describe_portal, d.describe_stmt, d.execute,
                  d.sync, d.flush, d.nbinds ? d.binds[0].nformats : 0,
                  d.nbinds && d.binds[0].nformats ? d.binds[0].formats[0] : -1);
    if (wc->simple) {
        if (d.query != DEPTH || d.parse || d.bind || d.describe_portal || d.describe_stmt ||
            d.execute || d.sync)
            fail_msg("%s: the simple query protocol: expected %d Query and nothing else, got "
                     "Query %u Parse %u Bind %u Describe %u Execute %u Sync %u", what, DEPTH,
                     d.query, d.parse, d.bind, d.describe_portal + d.describe_stmt, d.execute,
                     d.sync);
        if (p.result_format != PGCB_FORMAT_TEXT || p.describe != PGCB_DESCRIBE_PER_EXECUTION ||
            p.sync != PGCB_SYNC_PER_QUERY || p.statements != PGCB_STMT_UNNAMED)
            fail_msg("%s: a Query per execution is text results, a description per execution, "
                     "a ReadyForQuery per query, unnamed statements: not what it claims", what);
        drvtest_unload(&t);
        return;
    }
    if (d.bind != DEPTH || d.execute != DEPTH)
        fail_msg("%s: %u Bind and %u Execute for %d executions", what, d.bind, d.execute, DEPTH);
    uint32_t describes = p.describe == PGCB_DESCRIBE_PER_EXECUTION ? DEPTH : 0;
    if (d.describe_portal != describes || d.describe_stmt != 0)
        fail_msg("%s: claims describe %s, but sent %u Describe (portal) and %u Describe "
                 "(statement) for %d executions", what,
                 p.describe == PGCB_DESCRIBE_ONCE ? "once" : "per_execution", d.describe_portal,
                 d.describe_stmt, DEPTH);
    uint32_t syncs = p.sync == PGCB_SYNC_PER_QUERY ? DEPTH : 1;
    if (d.sync != syncs)
        fail_msg("%s: claims sync %s, but sent %u Sync for a batch of %d", what,
                 p.sync == PGCB_SYNC_PER_QUERY ? "per_query" : "per_batch", d.sync, DEPTH);
    uint32_t parses = p.statements == PGCB_STMT_NAMED ? 0 : DEPTH;
    if (d.parse != parses)
        fail_msg("%s: claims %s statements, but sent %u Parse for %d executions after the prime",
                 what, p.statements == PGCB_STMT_NAMED ? "named" : "unnamed", d.parse, DEPTH);
    assert_binds(&d, p.result_format, what);
    if (!asked && strcmp(format, "binary") == 0)
        print_message("%s: declares no result_format option: asked nothing, claims %s\n", what,
                      format_name(p.result_format));
    drvtest_unload(&t);
}

static void test_text(void **state)
{
    check_case(*state, "text");
}

static void test_binary(void **state)
{
    check_case(*state, "binary");
}

#define CASES(label, arr, i)                                                        \
    {label ", text", test_text, NULL, NULL, (void *)&arr[i]},                       \
    {label ", binary", test_binary, NULL, NULL, (void *)&arr[i]}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CASES("bridge node pg", bridge_cases, 0),
        CASES("bridge node pg-native", bridge_cases, 1),
        CASES("bridge node postgres", bridge_cases, 2),
        CASES("bridge python psycopg", bridge_cases, 3),
        CASES("bridge python asyncpg", bridge_cases, 4),
        CASES("bridge python psycopg_python", bridge_cases, 5),
        CASES("bridge python psycopg2", bridge_cases, 6),
        CASES("bridge go pgx", bridge_cases, 7),
        CASES("bridge rust tokio-postgres", bridge_cases, 8),
        CASES("bridge ruby pg", bridge_cases, 9),
        CASES("bridge java pgjdbc", bridge_cases, 10),
        /* one format: binary is the one it cannot give */
        {"bridge java pgjdbc prepare_threshold=0, binary", test_binary, NULL, NULL,
         (void *)&bridge_cases[11]},
        CASES("bridge go pq", bridge_cases, 12),
        CASES("bridge rust sqlx", bridge_cases, 13),
        CASES("bridge java vertx", bridge_cases, 14),
        CASES("libpq_sync", c_cases, 0),
        CASES("libpq_pipeline", c_cases, 1),
        CASES("rawwire", c_cases, 2),
        CASES("floor", c_cases, 3),
        CASES("libpq_pipeline sync=per_batch", c_cases, 4),
        CASES("rawwire describe=once sync=per_batch", c_cases, 5),
        CASES("floor describe=once sync=per_batch", c_cases, 6),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
