/*
 * test_journal_e2e.c -- a run killed hard keeps what it measured (issue 14, item
 * 9), against the real server tests/run.sh started:
 *
 *   kill points   a run of 6 small groups (null + libpq_sync) is SIGKILLed
 *                 with its process group at 5 delays spread over a first,
 *                 timed run, then resumed (runner --resume JOURNAL): status 0
 *                 or 2, every group in the result, and every group the
 *                 journal held before the resume exactly as it was there
 *                 (the group's JSON, derived keys aside, and the figures)
 *   bad input     a journal from another config, with other overrides, of
 *                 another runner version, a corrupt middle line, a finished
 *                 run, a file that is not a journal, --resume without -c, a
 *                 new run onto an unfinished run's journal: one line on
 *                 stderr, exit 1, the journal's bytes unchanged, no result
 *
 * Configs are written at run time, with absolute driver paths under
 * $PGCB_BUILD, so the same test serves the normal and the sanitizer build.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "result.h"
#include "util.h"
#include "../lib/e2e.h"

#define SQL_LIMIT(n)                                                                        \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY " \
    "id LIMIT " #n

#define NGROUPS 6
#define NKILLS 5

/* The budget is the INI's, not the caller's. */
static const char *const env_plain[] = {"BENCH_TIME_MS", "BENCH_QUERIES", "PGCB_CONNINFO",
                                        NULL};

static const char *six_groups_ini(const char *name)
{
    char body[2048];
    snprintf(body, sizeof body,
             "[driver.libpq_sync]\npath = %s/drivers/libpq_sync.so\n"
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_10]\nsql = " SQL_LIMIT(10) "\nrows = 10\n"
             "[query.limit_100]\nsql = " SQL_LIMIT(100) "\nrows = 100\n"
             "[suite.s]\ndepth = 1 2\n",
             e2e_build, e2e_build);
    return e2e_write_ini(name, body);
}

static const char *path_in_tmp(const char *name)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s", e2e_tmp, name);
    return p;
}

static uint64_t now_ms(void)
{
    return pgcb_now_ns() / 1000000;
}

static uint64_t act_at_ms;

static void note_time(pid_t pid, void *arg)
{
    (void)pid;
    (void)arg;
    act_at_ms = now_ms();
}

static void kill_group(pid_t pid, void *arg)
{
    (void)arg;
    act_at_ms = now_ms();
    killpg(pid, SIGKILL);
}

/* The journal's complete group lines: data[g] (new references) or NULL. */
static size_t journal_groups(const char *path, json_t **data, char *started_at, size_t n)
{
    char *text = e2e_slurp(path);
    size_t kept = 0, lineno = 0;
    for (char *line = text, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        json_t *o = json_loadb(line, (size_t)(nl - line), 0, NULL);
        if (!o)
            break; /* only the last line can be cut, and it has no newline or is not JSON */
        if (lineno++ == 0)
            snprintf(started_at, n, "%s", json_string_value(json_object_get(o, "started_at")));
        json_t *g = json_object_get(o, "group");
        if (json_is_integer(g) && json_integer_value(g) < NGROUPS) {
            data[json_integer_value(g)] = json_incref(json_object_get(o, "data"));
            kept++;
        }
        json_decref(o);
    }
    free(text);
    return kept;
}

/* The result file's group g as the journal holds it: without the derived
 * "verdict" and "vs_leader". */
static json_t *result_group_underived(json_t *result, size_t g)
{
    json_t *gr = json_deep_copy(json_array_get(json_object_get(result, "groups"), g));
    json_object_del(gr, "verdict");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(gr, "results"), i, c)
        json_object_del(c, "vs_leader");
    return gr;
}

static void test_kill_points(void **state)
{
    (void)state;
    const char *ini = six_groups_ini("kill");
    /* A first, whole run: how long measuring takes after the header. */
    struct e2e_run full = e2e_run_runner_act(ini, e2e_json_path("kill_full"), env_plain,
                                             "Budget   :", 0, note_time, NULL);
    uint64_t span = now_ms() - act_at_ms;
    if (full.status != 0)
        fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", full.status, full.out,
                full.err);
    assert_int_equal(full.status, 0);
    e2e_run_free(&full);
    print_message("a whole run measures for %llu ms after its header\n",
                  (unsigned long long)span);

    size_t kills = 0, kept_total = 0;
    for (size_t k = 0; k < NKILLS; k++) {
        char name[32];
        snprintf(name, sizeof name, "kill_%zu", k);
        char out[600], journal[640];
        snprintf(out, sizeof out, "%s", e2e_json_path(name));
        snprintf(journal, sizeof journal, "%s.journal", out);
        unsigned delay = (unsigned)(span * (2 * k + 1) / (2 * NKILLS));
        struct e2e_run r =
            e2e_run_runner_act(ini, out, env_plain, "Budget   :", delay, kill_group, NULL);
        if (r.status != 128 + SIGKILL) {
            print_message("kill point %zu (%u ms): the run ended first (status %d)\n", k, delay,
                          r.status);
            e2e_run_free(&r);
            continue;
        }
        e2e_run_free(&r);
        if (e2e_exists(out)) {
            /* Killed after the result was written (the run went faster than
             * the calibrating one, and was still printing or exiting): the
             * result, written by rename, must then be whole. */
            struct pgcb_result whole;
            char werr[512];
            assert_int_equal(pgcb_result_read(out, &whole, werr, sizeof werr), 0);
            assert_true(whole.complete);
            assert_int_equal(whole.ngroups, NGROUPS);
            pgcb_result_free(&whole);
            print_message("kill point %zu (%u ms): after the result was written (whole)\n", k,
                          delay);
            continue;
        }
        kills++; /* killed before the result: nothing but the journal */
        if (!e2e_exists(journal)) {
            print_message("kill point %zu (%u ms): no journal yet\n", k, delay);
            continue;
        }
        json_t *before[NGROUPS] = {0};
        char started_at[64] = "";
        size_t kept = journal_groups(journal, before, started_at, sizeof started_at);

        const char *args[] = {"-c", ini, "--resume", journal, NULL};
        struct e2e_run res = e2e_run_args(args, env_plain);
        if (res.status != 0 && res.status != 2)
            fprintf(stderr, "status %d\nstdout:\n%s\nstderr:\n%s\n", res.status, res.out,
                    res.err);
        assert_true(res.status == 0 || res.status == 2);
        char line[800];
        snprintf(line, sizeof line, "Resumed from %s: %zu of %d groups kept\n", journal, kept,
                 NGROUPS);
        assert_non_null(strstr(res.out, line));
        e2e_run_free(&res);

        struct pgcb_result fin;
        char err[512];
        assert_int_equal(pgcb_result_read(out, &fin, err, sizeof err), 0);
        assert_int_equal(fin.ngroups, NGROUPS);
        assert_true(fin.complete);
        assert_string_equal(fin.resumed_from, journal);
        assert_int_equal(fin.resumed_groups_kept, kept);
        assert_non_null(fin.resumed_at);
        assert_string_equal(fin.started_at, started_at); /* the original run's */
        json_t *fj = json_load_file(out, 0, NULL);
        assert_non_null(fj);
        for (size_t g = 0; g < NGROUPS; g++) {
            for (size_t d = 0; d < fin.ndrivers; d++)
                assert_true(fin.groups[g].cells[d].samples > 0); /* every group measured */
            if (!before[g])
                continue;
            /* Kept: the result holds exactly what the journal held ... */
            json_t *now = result_group_underived(fj, g);
            if (!json_equal(now, before[g]))
                fail_msg("kill point %zu: group %zu changed in the resumed result", k, g);
            json_decref(now);
            /* ... and its figures, read back, are the journal's. */
            struct pgcb_res_group was = {0};
            assert_int_equal(pgcb_result_group_read(before[g], &fin, &was, err, sizeof err), 0);
            for (size_t d = 0; d < fin.ndrivers; d++) {
                const struct pgcb_res_cell *a = &was.cells[d], *b = &fin.groups[g].cells[d];
                assert_int_equal(a->samples, b->samples);
                assert_int_equal(a->checksum, b->checksum);
                assert_true(a->median_ns == b->median_ns && a->mean_ns == b->mean_ns);
                assert_int_equal(a->norders, b->norders);
                for (size_t o = 0; o < a->norders; o++)
                    assert_true(a->order_medians_ns[o] == b->order_medians_ns[o]);
            }
            pgcb_result_group_free(&was, fin.ndrivers);
            json_decref(before[g]);
        }
        json_decref(fj);
        pgcb_result_free(&fin);
        /* The journal is finished: resuming again is refused. */
        struct e2e_run again = e2e_run_args(args, env_plain);
        assert_int_equal(again.status, 1);
        assert_non_null(strstr(again.err, "this run finished; its result is"));
        e2e_run_free(&again);
        print_message("kill point %zu (%u ms): %zu of %d groups kept\n", k, delay, kept,
                      NGROUPS);
        kept_total += kept;
    }
    print_message("%zu kill points, %zu groups kept in all\n", kills, kept_total);
    assert_true(kills >= 3);
    assert_true(kept_total > 0);
}

/* Write TMP/name: text. */
static const char *write_raw(const char *name, const char *text)
{
    const char *p = path_in_tmp(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* `journal` (a journal's text) with its head's key set to a string, the
 * end line dropped and the result pointed at TMP/result_name.json. */
static char *derive(const char *journal, const char *key, const char *value,
                    const char *result_name)
{
    char *nl = strchr(journal, '\n');
    assert_non_null(nl);
    json_t *h = json_loadb(journal, (size_t)(nl - journal), 0, NULL);
    assert_non_null(h);
    if (key)
        json_object_set_new(h, key, json_string(value));
    json_object_set_new(h, "result", json_string(e2e_json_path(result_name)));
    char *head = json_dumps(h, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(h);
    char *rest = pgcb_xstrdup(nl + 1);
    char *end = strstr(rest, "{\"end\"");
    if (end)
        *end = '\0';
    char *text = pgcb_xasprintf("%s\n%s", head, rest);
    free(head);
    free(rest);
    return text;
}

/* --resume refused: exit 1, one line on stderr containing `want`, the
 * journal's bytes unchanged, no result file at `result`. */
static void expect_refusal(const char *const *args, const char *const *env, const char *journal,
                           const char *result, const char *want)
{
    char *before = e2e_slurp(journal);
    struct e2e_run r = e2e_run_args(args, env);
    char *after = e2e_slurp(journal);
    const char *nl = strchr(r.err, '\n');
    if (r.status != 1 || !strstr(r.err, want) || !nl || nl[1])
        fail_msg("%s: status %d, stderr \"%s\", wanted one line with \"%s\"", journal,
                 r.status, r.err, want);
    assert_string_equal(before, after);
    if (result)
        assert_false(e2e_exists(result));
    free(before);
    free(after);
    e2e_run_free(&r);
}

static void test_bad_resume(void **state)
{
    (void)state;
    char body[1024];
    snprintf(body, sizeof body,
             "[driver.null]\npath = %s/drivers/null.so\n"
             "[query.limit_1]\nsql = " SQL_LIMIT(1) "\nrows = 1\n"
             "[query.limit_10]\nsql = " SQL_LIMIT(10) "\nrows = 10\n[suite.s]\n",
             e2e_build);
    const char *p = e2e_write_ini("bad", body);
    char ini[600], other[600];
    snprintf(ini, sizeof ini, "%s", p);
    snprintf(other, sizeof other, "%s", e2e_write_ini("bad_other", "# another file\n"));
    FILE *f = fopen(other, "a");
    fputs(body, f);
    fclose(f);
    char out[600], journal[640];
    snprintf(out, sizeof out, "%s", e2e_json_path("bad"));
    snprintf(journal, sizeof journal, "%s.journal", out);
    struct e2e_run r = e2e_run_runner(ini, out, env_plain, NULL, 0, NULL);
    assert_int_equal(r.status, 0);
    e2e_run_free(&r);
    char *text = e2e_slurp(journal);
    assert_non_null(strstr(text, "{\"end\":true,\"complete\":true}\n"));

    /* A finished run. */
    char *result_before = e2e_slurp(out);
    const char *finished[] = {"-c", ini, "--resume", journal, NULL};
    char want[2000];
    snprintf(want, sizeof want, "runner: %s: this run finished; its result is %s\n", journal, out);
    expect_refusal(finished, env_plain, journal, NULL, want);
    char *result_after = e2e_slurp(out);
    assert_string_equal(result_before, result_after);
    free(result_before);
    free(result_after);

    /* Another config, other overrides, another runner version. */
    char *t = derive(text, NULL, NULL, "res_cfg");
    char jp[700];
    snprintf(jp, sizeof jp, "%s", write_raw("cfg.journal", t));
    free(t);
    const char *cfg_args[] = {"-c", other, "--resume", jp, NULL};
    snprintf(want, sizeof want, "runner: %s was written for a different config (or "
             "BENCH_*/PGCB_CONNINFO overrides, or command-line drivers, selection or budget: "
             "resume with the same -c, --driver, --only, --suite, --query, -T/--time-ms and "
             "--queries, and the same driver_dir)\n", jp);
    expect_refusal(cfg_args, env_plain, jp, e2e_json_path("res_cfg"), want);
    const char *same_args[] = {"-c", ini, "--resume", jp, NULL};
    const char *const env_time[] = {"BENCH_TIME_MS=99", "BENCH_QUERIES", "PGCB_CONNINFO", NULL};
    expect_refusal(same_args, env_time, jp, e2e_json_path("res_cfg"), want);

    t = derive(text, "runner_version", "0.0-other", "res_ver");
    snprintf(jp, sizeof jp, "%s", write_raw("ver.journal", t));
    free(t);
    const char *ver_args[] = {"-c", ini, "--resume", jp, NULL};
    snprintf(want, sizeof want, "runner: %s was written by runner 0.0-other; this is runner ",
             jp);
    expect_refusal(ver_args, env_plain, jp, e2e_json_path("res_ver"), want);

    /* A corrupt line that is not the last. */
    t = derive(text, NULL, NULL, "res_mid");
    char *g2 = strstr(t, "\n{\"group\":0"); /* line 2 of 3 */
    assert_non_null(g2);
    g2[1] = '[';
    snprintf(jp, sizeof jp, "%s", write_raw("mid.journal", t));
    free(t);
    const char *mid_args[] = {"-c", ini, "--resume", jp, NULL};
    snprintf(want, sizeof want, "runner: %s:2: corrupt line: ", jp);
    expect_refusal(mid_args, env_plain, jp, e2e_json_path("res_mid"), want);

    /* Not a journal: the result file itself, and any text. */
    const char *res_args[] = {"-c", ini, "--resume", out, NULL};
    snprintf(want, sizeof want, "runner: %s: not a pgclientbench journal", out);
    expect_refusal(res_args, env_plain, out, NULL, want);
    snprintf(jp, sizeof jp, "%s", write_raw("text.journal", "hello\n"));
    const char *txt_args[] = {"-c", ini, "--resume", jp, NULL};
    snprintf(want, sizeof want, "runner: %s: not a pgclientbench journal", jp);
    expect_refusal(txt_args, env_plain, jp, NULL, want);
    const char *none_args[] = {"-c", ini, "--resume", path_in_tmp("none.journal"), NULL};
    expect_refusal(none_args, env_plain, path_in_tmp("none.journal"), NULL, "cannot read it");

    /* --resume without -c. */
    const char *noc_args[] = {"--resume", journal, NULL};
    expect_refusal(noc_args, env_plain, journal, NULL, "runner: --resume needs the run's config");

    /* A new run onto an unfinished run's journal: refused, the journal kept. */
    t = derive(text, NULL, NULL, "res_new");
    char newj[700];
    snprintf(newj, sizeof newj, "%s.journal", e2e_json_path("res_new"));
    FILE *nf = fopen(newj, "w");
    fputs(t, nf);
    fclose(nf);
    free(t);
    char newout[600];
    snprintf(newout, sizeof newout, "%s", e2e_json_path("res_new"));
    const char *new_args[] = {"-c", ini, "-o", newout, NULL};
    snprintf(want, sizeof want, "runner: %s: an interrupted run's journal is there", newj);
    expect_refusal(new_args, env_plain, newj, newout, want);
    /* ... which resumes: only the group that is not in it runs. */
    const char *ok_args[] = {"-c", ini, "--resume", newj, NULL};
    struct e2e_run ok = e2e_run_args(ok_args, env_plain);
    assert_int_equal(ok.status, 0);
    snprintf(want, sizeof want, "Resumed from %s: 2 of 2 groups kept\n", newj);
    assert_non_null(strstr(ok.out, want));
    assert_true(e2e_exists(newout));
    e2e_run_free(&ok);
    free(text);
}

int main(void)
{
    if (e2e_setup("test_journal_e2e") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_resume),
        cmocka_unit_test(test_kill_points),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (e2e_teardown() != 0)
        rc = 1;
    return rc;
}
