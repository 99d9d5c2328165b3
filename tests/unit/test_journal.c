/*
 * test_journal.c -- the run's journal (runner/out/journal.c) on hand-written
 * files: a last line cut by a kill (no newline, or not JSON) is dropped
 * with a warning naming file:line and the valid length stops before it; a
 * corrupt line elsewhere is refused with file:line; a file that is not a
 * journal, an empty one, a group out of range or twice, a line after the end
 * are refused; the checks against runner version, config hash and an end
 * line; the config hash follows the overrides (not a conninfo's password);
 * a group written and read back is the same JSON, and restores bit for bit.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "out/journal.h"
#include "result.h"
#include "util.h"

static char dir[] = "/tmp/pgcb_test_journal_XXXXXX";

#define HEAD "{\"journal\":1,\"runner_version\":\"v1\",\"config_file\":\"x.ini\"," \
             "\"config_sha256\":\"abc\",\"result\":\"r.json\",\"started_at\":\"T0\"," \
             "\"ngroups\":3,\"norders\":2}\n"
#define G0 "{\"group\":0,\"data\":{\"suite\":\"s\"}}\n"
#define G1 "{\"group\":1,\"data\":{\"suite\":\"s\"}}\n"

static const char *write_text(const char *name, const char *text)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

struct read_out {
    int rc;
    char warn[512], err[512];
    struct pgcb_journal_state st;
};

static void read_journal(const char *path, struct read_out *o)
{
    o->rc = pgcb_journal_read(path, &o->st, o->warn, sizeof o->warn, o->err, sizeof o->err);
}

static void test_good(void **state)
{
    (void)state;
    const char *p = write_text("good", HEAD G0 G1);
    struct read_out o;
    read_journal(p, &o);
    assert_int_equal(o.rc, 0);
    assert_string_equal(o.warn, "");
    assert_int_equal(o.st.ngroups, 3);
    assert_int_equal(o.st.norders, 2);
    assert_int_equal(o.st.nkept, 2);
    assert_non_null(o.st.groups[0]);
    assert_non_null(o.st.groups[1]);
    assert_null(o.st.groups[2]);
    assert_int_equal(o.st.group_line[1], 3);
    assert_int_equal(o.st.valid_len, (off_t)strlen(HEAD G0 G1));
    assert_int_equal(o.st.ended, 0);
    assert_int_equal(o.st.dropped_line, 0);
    assert_string_equal(o.st.result, "r.json");
    assert_string_equal(o.st.started_at, "T0");
    assert_int_equal(pgcb_journal_check(&o.st, p, "v1", "abc", o.err, sizeof o.err), 0);
    pgcb_journal_state_free(&o.st);
}

/* The kill cut the last line: no newline (the write was cut), or a line
 * that is not JSON. Dropped, said with file:line, not counted. */
static void test_cut_last_line_dropped(void **state)
{
    (void)state;
    static const char *const cuts[] = {HEAD G0 "{\"group\":1,\"da", HEAD G0 "{\"group\":1,\"da\n",
                                       HEAD G0 G1 "{\"end\":tr"};
    static const size_t kept[] = {1, 1, 2}, line[] = {3, 3, 4};
    static const size_t valid[] = {sizeof HEAD G0 - 1, sizeof HEAD G0 - 1, sizeof HEAD G0 G1 - 1};
    for (size_t i = 0; i < 3; i++) {
        const char *p = write_text("cut", cuts[i]);
        struct read_out o;
        read_journal(p, &o);
        assert_int_equal(o.rc, 0);
        char want[600];
        snprintf(want, sizeof want, "%s:%zu: dropping the last line, cut by the interruption",
                 p, line[i]);
        assert_string_equal(o.warn, want);
        assert_int_equal(o.st.dropped_line, line[i]);
        assert_int_equal(o.st.nkept, kept[i]);
        assert_int_equal(o.st.valid_len, (off_t)valid[i]);
        assert_int_equal(o.st.ended, 0);
        pgcb_journal_state_free(&o.st);
    }
}

static void expect_refused(const char *name, const char *text, const char *want_fmt)
{
    const char *p = write_text(name, text);
    char path[256];
    snprintf(path, sizeof path, "%s", p);
    struct read_out o;
    read_journal(path, &o);
    char want[700];
    snprintf(want, sizeof want, want_fmt, path);
    if (o.rc == 0 || strncmp(o.err, want, strlen(want)) != 0)
        fail_msg("%s: rc %d, err \"%s\", wanted \"%s...\"", name, o.rc, o.err, want);
    assert_null(strchr(o.err, '\n'));
    pgcb_journal_state_free(&o.st);
}

static void test_refused(void **state)
{
    (void)state;
    expect_refused("mid", HEAD "{\"group\":0,\"da\n" G1, "%s:2: corrupt line: ");
    expect_refused("mid2", HEAD G0 "garbage\n" G1, "%s:3: corrupt line: ");
    expect_refused("empty_mid", HEAD "\n" G1, "%s:2: corrupt line: ");
    expect_refused("range", HEAD "{\"group\":3,\"data\":{}}\n" G1,
                   "%s:2: corrupt line: group 3: the run has 3 groups");
    expect_refused("twice", HEAD G0 G0 G1, "%s:3: corrupt line: group 0 is already on line 2");
    expect_refused("after_end", HEAD G0 "{\"end\":true,\"complete\":false}\n" G1,
                   "%s:4: corrupt line: a line after the end line");
    expect_refused("kind", HEAD "{\"what\":1}\n" G1, "%s:2: corrupt line: neither a group line");
    expect_refused("not", "hello\nworld\n", "%s: not a pgclientbench journal");
    expect_refused("result", "{\n  \"schema_version\": 2\n}\n", "%s: not a pgclientbench journal");
    expect_refused("format2", "{\"journal\":2,\"config_sha256\":\"a\",\"result\":\"r\","
                              "\"ngroups\":1,\"norders\":1}\n",
                   "%s: not a pgclientbench journal");
    expect_refused("empty", "", "%s: not a pgclientbench journal (it is empty)");
    expect_refused("head_cut", "{\"journal\":1,\"runner", "%s: not a pgclientbench journal");
}

static void test_checks(void **state)
{
    (void)state;
    const char *p = write_text("ended", HEAD G0 "{\"end\":true,\"complete\":true}\n");
    char path[256], err[512], want[700];
    snprintf(path, sizeof path, "%s", p);
    struct read_out o;
    read_journal(path, &o);
    assert_int_equal(o.rc, 0);
    assert_int_equal(o.st.ended, 1);
    assert_int_equal(o.st.complete, 1);
    assert_int_equal(pgcb_journal_check(&o.st, path, "v2", "abc", err, sizeof err), -1);
    snprintf(want, sizeof want, "%s was written by runner v1; this is runner v2", path);
    assert_memory_equal(err, want, strlen(want));
    assert_int_equal(pgcb_journal_check(&o.st, path, "v1", "abd", err, sizeof err), -1);
    snprintf(want, sizeof want, "%s was written for a different config (or "
             "BENCH_*/PGCB_CONNINFO overrides, or command-line drivers, selection or budget: "
             "resume with the same -c, --driver, --only, --suite, --query, -T/--time-ms and "
             "--queries, and the same driver_dir)", path);
    assert_string_equal(err, want);
    assert_int_equal(pgcb_journal_check(&o.st, path, "v1", "abc", err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: this run finished; its result is r.json", path);
    assert_string_equal(err, want);
    pgcb_journal_state_free(&o.st);
}

static void test_config_hash(void **state)
{
    (void)state;
    const char *p = write_text("c.ini", "[bench]\ntime_ms = 100\n");
    char path[256], a[65], b[65], c[65], d[65], err[256];
    snprintf(path, sizeof path, "%s", p);
    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    setenv("PGCB_CONNINFO", "host=x password=one", 1);
    assert_int_equal(pgcb_journal_config_hash(path, a, err, sizeof err), 0);
    assert_int_equal(strlen(a), 64);
    setenv("PGCB_CONNINFO", "host=x password=two", 1); /* the password is not hashed */
    assert_int_equal(pgcb_journal_config_hash(path, b, err, sizeof err), 0);
    assert_string_equal(a, b);
    setenv("PGCB_CONNINFO", "host=y", 1);
    assert_int_equal(pgcb_journal_config_hash(path, c, err, sizeof err), 0);
    assert_string_not_equal(a, c);
    unsetenv("PGCB_CONNINFO");
    setenv("BENCH_TIME_MS", "", 1); /* set (empty) is not unset */
    assert_int_equal(pgcb_journal_config_hash(path, c, err, sizeof err), 0);
    unsetenv("BENCH_TIME_MS");
    assert_int_equal(pgcb_journal_config_hash(path, d, err, sizeof err), 0);
    assert_string_not_equal(c, d);
    write_text("c.ini", "[bench]\ntime_ms = 101\n");
    assert_int_equal(pgcb_journal_config_hash(path, c, err, sizeof err), 0);
    assert_string_not_equal(c, d);
    /* The command line's digest: none (NULL or "") hashes as before; any
     * other changes the hash, and two digests differ from each other. */
    char e[65], f[65];
    assert_int_equal(pgcb_journal_config_hash_with(path, NULL, e, err, sizeof err), 0);
    assert_string_equal(e, c);
    assert_int_equal(pgcb_journal_config_hash_with(path, "", e, err, sizeof err), 0);
    assert_string_equal(e, c);
    assert_int_equal(pgcb_journal_config_hash_with(path, "measured=a\n", e, err, sizeof err), 0);
    assert_string_not_equal(e, c);
    assert_int_equal(pgcb_journal_config_hash_with(path, "measured=b\n", f, err, sizeof err), 0);
    assert_string_not_equal(e, f);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.ini", dir);
    assert_int_equal(pgcb_journal_config_hash(missing, c, err, sizeof err), -1);
    assert_non_null(strstr(err, "none.ini: cannot read it"));
}

/* A result of one driver and two groups, figures that need all 17 digits. */
static void make_result(struct pgcb_result *r)
{
    *r = (struct pgcb_result){0};
    r->ndrivers = 1;
    r->drivers = pgcb_xcalloc(1, sizeof *r->drivers);
    r->drivers[0].label = pgcb_xstrdup("d");
    r->norders = 1;
    r->orders = pgcb_xcalloc(1, sizeof *r->orders);
    r->orders[0] = pgcb_xcalloc(1, sizeof **r->orders);
    r->ngroups = 2;
    r->groups = pgcb_xcalloc(2, sizeof *r->groups);
    r->started_at = pgcb_xstrdup("now");
    for (size_t g = 0; g < 2; g++) {
        struct pgcb_res_group *gr = &r->groups[g];
        gr->suite = pgcb_xstrdup("s");
        gr->query = pgcb_xstrdup(g ? "q1" : "q0");
        gr->depth = 1;
        gr->threads = 1;
        gr->thread_cpus = pgcb_xcalloc(1, sizeof *gr->thread_cpus);
        gr->rows = 1;
        gr->cells = pgcb_xcalloc(1, sizeof *gr->cells);
        struct pgcb_res_cell *c = &gr->cells[0];
        c->status = PGCB_CELL_OK;
        c->samples = 1000 + g;
        c->queries = c->samples;
        c->mean_ns = c->median_ns = c->p99_ns = 1.0 / 3.0 * 1e5 + (double)g;
        c->sd_ns = c->rme_pct = c->ops_per_s = c->queries_per_s = 0.1;
        c->cpu_ns_per_query = c->server_cpu_ns_per_query = c->server_busy = NAN;
        c->min_ns = 7;
        c->max_ns = 9;
        c->norders = 1;
        c->order_medians_ns = pgcb_xcalloc(1, sizeof(double));
        c->order_medians_ns[0] = 2.0 / 3.0 * 1e5;
        c->checksum = 0xfedcba9876543210ull;
        for (size_t k = 0; k < PGCB_PCT_N; k++)
            c->pct_ns[k] = NAN;
        pgcb_result_cell_spread(c);
    }
}

static void test_write_read_restore(void **state)
{
    (void)state;
    struct pgcb_result r, back;
    make_result(&r);
    make_result(&back);
    char path[300], err[512], warn[512];
    snprintf(path, sizeof path, "%s/sub/r.json.journal", dir); /* its directory is made */
    struct pgcb_journal j;
    struct pgcb_journal_head h = {"v1", "x.ini", "abc", "r.json", "T0", 2, 1};
    assert_int_equal(pgcb_journal_create(&j, path, &h, err, sizeof err), 0);
    pgcb_journal_group(&j, &r, 1);
    pgcb_journal_close(&j);

    struct pgcb_journal_state st;
    assert_int_equal(pgcb_journal_read(path, &st, warn, sizeof warn, err, sizeof err), 0);
    assert_int_equal(st.nkept, 1);
    assert_null(st.groups[0]);
    json_t *want = pgcb_result_group_json(&r, 1);
    assert_true(json_equal(want, st.groups[1]));
    json_decref(want);
    assert_int_equal(pgcb_journal_restore(&st, path, &back, err, sizeof err), 0);
    assert_string_equal(back.started_at, "T0");
    const struct pgcb_res_cell *a = &r.groups[1].cells[0], *b = &back.groups[1].cells[0];
    assert_true(a->mean_ns == b->mean_ns && a->median_ns == b->median_ns);
    assert_true(a->order_medians_ns[0] == b->order_medians_ns[0]);
    assert_int_equal(a->samples, b->samples);
    assert_int_equal(a->checksum, b->checksum);
    /* the group that was not journaled is untouched */
    assert_int_equal(back.groups[0].cells[0].samples, 1000);

    /* appending after a cut line: reopen cuts it first */
    FILE *f = fopen(path, "a");
    fputs("{\"group\":0,\"da", f);
    fclose(f);
    pgcb_journal_state_free(&st);
    assert_int_equal(pgcb_journal_read(path, &st, warn, sizeof warn, err, sizeof err), 0);
    assert_int_equal(st.dropped_line, 3);
    assert_int_equal(pgcb_journal_reopen(&j, path, st.valid_len, err, sizeof err), 0);
    pgcb_journal_group(&j, &r, 0);
    pgcb_journal_end(&j, 1);
    pgcb_journal_close(&j);
    pgcb_journal_state_free(&st);
    assert_int_equal(pgcb_journal_read(path, &st, warn, sizeof warn, err, sizeof err), 0);
    assert_string_equal(warn, "");
    assert_int_equal(st.nkept, 2);
    assert_int_equal(st.ended, 1);

    /* a journaled group that is not the config's: refused with its line */
    free(back.groups[0].query);
    back.groups[0].query = pgcb_xstrdup("other");
    assert_int_equal(pgcb_journal_restore(&st, path, &back, err, sizeof err), -1);
    char w[400];
    snprintf(w, sizeof w, "%s:3: corrupt line: group 0 is s / q0 depth 1, the config's is s / "
             "other depth 1", path);
    assert_string_equal(err, w);
    pgcb_journal_state_free(&st);
    pgcb_result_free(&r);
    pgcb_result_free(&back);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_cut_last_line_dropped),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_config_hash),
        cmocka_unit_test(test_write_read_restore),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
