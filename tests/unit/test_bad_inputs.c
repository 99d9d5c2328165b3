/*
 * test_bad_inputs.c -- the corpus of hand-made bad input files in tests/bad/
 * and the exact message each must produce (no server):
 *
 *   tests/bad/ini/NAME.ini   INI files for pgcb_config_load(). The first line
 *       (after a UTF-8 BOM, if the file has one; CR LF or LF) is
 *       "; expect: MESSAGE": the message must be exactly the file's path
 *       followed by MESSAGE (e.g. ":3: unknown section [x] (...)", or ": no
 *       [driver.NAME] section: ..." for the whole file), or MESSAGE is "ok"
 *       and the file must load (BOM, CRLF and other things that must work).
 *       A file that cannot carry the comment (the empty file) has it in
 *       NAME.ini.expect instead, as its first line without "; expect: ".
 *   tests/bad/json/NAME.json result files for pgcb_result_read() and the
 *       aggregate program, with their messages in tests/bad/json/expect
 *       (the format is described at its top). build/aggregate must exit 1
 *       on each, print nothing on stdout and exactly one line on stderr:
 *       "aggregate: PATH" and the message.
 *
 * Every file in the directories must have an expectation and every
 * expectation a file. Also: a path too long for the message buffer, a
 * directory and a missing file given as the INI file, a sparse result (only
 * what the reader requires) written back whole, and strings that are not
 * UTF-8 written rather than lost. Runs from the top of
 * the checkout (tests/run.sh does); the aggregate program is
 * $PGCB_BUILD/aggregate (PGCB_BUILD defaults to "build").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "result.h"

#define INI_DIR "tests/bad/ini"
#define JSON_DIR "tests/bad/json"
#define EXPECT_PREFIX "; expect: "

static char aggregate[4096];
static char tmpdir[] = "/tmp/pgcb_test_bad_XXXXXX";

/* ---- helpers ------------------------------------------------------------------- */

/* The whole file as a NUL-terminated string (NULL if it cannot be read). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[8192];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir ending in suffix, sorted (malloc'd, *n of them). */
static char **list_dir(const char *dir, const char *suffix, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        print_error("%s: %s\n", dir, strerror(errno));
        fail();
    }
    char **names = NULL;
    *n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !has_suffix(e->d_name, suffix))
            continue;
        names = realloc(names, (*n + 1) * sizeof *names);
        assert_non_null(names);
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Cut s at its first line end ("\n" or "\r\n"). */
static void first_line(char *s)
{
    s[strcspn(s, "\r\n")] = '\0';
}

/* ---- INI files ------------------------------------------------------------------------ */

/* The expectation of tests/bad/ini/name: malloc'd, or NULL (and a message)
 * when the file has none. */
static char *ini_expectation(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, INI_DIR "/%s.expect", name);
    char *side = slurp(path);
    if (side) {
        first_line(side);
        return side;
    }
    snprintf(path, sizeof path, INI_DIR "/%s", name);
    char *text = slurp(path);
    assert_non_null(text);
    const char *p = text;
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    if (strncmp(p, EXPECT_PREFIX, strlen(EXPECT_PREFIX)) != 0) {
        print_error("%s: the first line is not \"" EXPECT_PREFIX "...\" and there is no %s.expect\n",
                    path, name);
        free(text);
        return NULL;
    }
    char *want = strdup(p + strlen(EXPECT_PREFIX));
    free(text);
    first_line(want);
    return want;
}

/* Every INI file gives exactly its message (or loads, for "ok"). Every
 * mismatch is printed before the test fails. */
static void test_ini_corpus(void **state)
{
    (void)state;
    size_t n, nexp, bad = 0, ok = 0;
    char **names = list_dir(INI_DIR, ".ini", &n);
    assert_true(n >= 60);
    for (size_t i = 0; i < n; i++) {
        char path[512], err[1024] = "";
        snprintf(path, sizeof path, INI_DIR "/%s", names[i]);
        char *want = ini_expectation(names[i]);
        if (!want) {
            bad++;
            continue;
        }
        struct pgcb_config cfg;
        int rc = pgcb_config_load(path, &cfg, err, sizeof err);
        if (strcmp(want, "ok") == 0) {
            ok++;
            if (rc != 0) {
                print_error("%s: should load, but: %s\n", path, err);
                bad++;
            } else {
                pgcb_config_free(&cfg);
            }
        } else {
            char full[1024];
            snprintf(full, sizeof full, "%s%s", path, want);
            if (rc != -1 || strcmp(err, full) != 0) {
                print_error("%s:\n  want: %s\n  got:  %s\n", path, full,
                            rc == 0 ? "(it loads)" : err);
                bad++;
                if (rc == 0)
                    pgcb_config_free(&cfg);
            }
        }
        free(want);
    }
    /* no expectation without its file */
    char **exps = list_dir(INI_DIR, ".ini.expect", &nexp);
    for (size_t i = 0; i < nexp; i++) {
        char ini[512];
        snprintf(ini, sizeof ini, INI_DIR "/%.*s", (int)(strlen(exps[i]) - strlen(".expect")),
                 exps[i]);
        if (access(ini, F_OK) != 0) {
            print_error("%s/%s: no %s beside it\n", INI_DIR, exps[i], ini);
            bad++;
        }
    }
    print_message("%zu INI files (%zu that must load), %zu wrong\n", n, ok, bad);
    free_names(exps, nexp);
    free_names(names, n);
    assert_int_equal(bad, 0);
}

/* A path that leaves the message no room, or little: the message is cut,
 * never written past its buffer, and is still the path's beginning. Paths
 * from 300 to 4000 characters, so that a write past the loader's buffer
 * lands in a redzone AddressSanitizer sees (build-san/) at some length. */
static void test_ini_long_path(void **state)
{
    (void)state;
    static const char filler[] = "bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad_bad";
    char dir[4096], path[4200], err[2048];
    snprintf(dir, sizeof dir, "%s", tmpdir);
    for (size_t len = 300; len <= 4000; len += 37) {
        /* nested directories of 60 characters, then a name of the rest */
        while (strlen(dir) + 61 + 6 < len) {
            size_t l = strlen(dir);
            snprintf(dir + l, sizeof dir - l, "/%060zu", l);
            assert_int_equal(mkdir(dir, 0700), 0);
        }
        snprintf(path, sizeof path, "%s/%.*s.ini", dir, (int)(len - strlen(dir) - 5), filler);
        assert_int_equal(strlen(path), len);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("[bench]\nbogus = 1\n", f);
        assert_int_equal(fclose(f), 0);
        struct pgcb_config cfg;
        err[0] = '\0';
        assert_int_equal(pgcb_config_load(path, &cfg, err, sizeof err), -1);
        size_t elen = strlen(err);
        assert_true(elen > 0 && elen < 512);
        if (len + 4 < elen) { /* room for the line: "PATH:2: ..." */
            assert_memory_equal(err, path, len);
            assert_memory_equal(err + len, ":2: ", 4);
        } else { /* cut within the path or its line number */
            assert_memory_equal(err, path, elen < len ? elen : len);
        }
        assert_null(strchr(err, '\n'));
        unlink(path);
    }
}

static void test_ini_not_a_file(void **state)
{
    (void)state;
    struct pgcb_config cfg;
    char err[1024];
    assert_int_equal(pgcb_config_load(INI_DIR "/nope.ini", &cfg, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR "/nope.ini: cannot open: No such file or directory");
    assert_int_equal(pgcb_config_load(INI_DIR, &cfg, err, sizeof err), -1);
    assert_string_equal(err, INI_DIR ": cannot read: Is a directory");
}

/* ---- JSON files --------------------------------------------------------------------------- */

struct json_case {
    char *name;
    char *read; /* after the path, or "ok" */
    char *agg;  /* after "aggregate: PATH" */
};

static struct json_case *json_cases(size_t *n)
{
    FILE *f = fopen(JSON_DIR "/expect", "r");
    if (!f) {
        print_error(JSON_DIR "/expect: %s\n", strerror(errno));
        fail();
    }
    struct json_case *cases = NULL;
    char line[4096];
    *n = 0;
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *tab = strchr(line, '\t');
        if (!tab) {
            print_error(JSON_DIR "/expect:%d: no tab after the file name\n", lineno);
            fail();
        }
        *tab = '\0';
        char *read = tab + 1, *tab2 = strchr(read, '\t');
        if (tab2)
            *tab2 = '\0';
        cases = realloc(cases, (*n + 1) * sizeof *cases);
        assert_non_null(cases);
        cases[*n] = (struct json_case){.name = strdup(line), .read = strdup(read),
                                       .agg = strdup(tab2 ? tab2 + 1 : read)};
        (*n)++;
    }
    fclose(f);
    return cases;
}

static void free_json_cases(struct json_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        free(c[i].read);
        free(c[i].agg);
    }
    free(c);
}

/* Run aggregate on path; its stdout and stderr are returned in *out and
 * *err (malloc'd). Returns the exit status, or -1 if it did not exit. */
static int run_aggregate(const char *path, char **out, char **err)
{
    char opath[256], epath[256];
    snprintf(opath, sizeof opath, "%s/stdout", tmpdir);
    snprintf(epath, sizeof epath, "%s/stderr", tmpdir);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        execl(aggregate, aggregate, path, (char *)NULL);
        _exit(126);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *out = slurp(opath);
    *err = slurp(epath);
    assert_non_null(*out);
    assert_non_null(*err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Every result file: pgcb_result_read()'s exact message, and aggregate's
 * exit status 1 with exactly one line on stderr naming the file. */
static void test_json_corpus(void **state)
{
    (void)state;
    size_t n, nfiles, bad = 0;
    struct json_case *cases = json_cases(&n);
    assert_true(n >= 40);
    for (size_t i = 0; i < n; i++) {
        const struct json_case *c = &cases[i];
        char path[512], err[1024] = "";
        snprintf(path, sizeof path, JSON_DIR "/%s", c->name);
        struct pgcb_result r;
        int rc = pgcb_result_read(path, &r, err, sizeof err);
        if (strcmp(c->read, "ok") == 0) {
            if (rc != 0) {
                print_error("%s: should read, but: %s\n", path, err);
                bad++;
            } else {
                pgcb_result_free(&r);
            }
        } else {
            char full[1024];
            snprintf(full, sizeof full, "%s%s", path, c->read);
            if (rc != -1 || strcmp(err, full) != 0) {
                print_error("%s (pgcb_result_read):\n  want: %s\n  got:  %s\n", path, full,
                            rc == 0 ? "(it reads)" : err);
                bad++;
                if (rc == 0)
                    pgcb_result_free(&r);
            }
        }

        char *out, *errout, want[1200];
        int st = run_aggregate(path, &out, &errout);
        snprintf(want, sizeof want, "aggregate: %s%s\n", path, c->agg);
        if (st != 1 || strcmp(errout, want) != 0 || out[0]) {
            print_error("%s (aggregate): exit status %d (want 1)\n  want: %s  got:  %s"
                        "  stdout: %.200s\n", path, st, want, errout, out);
            bad++;
        }
        free(out);
        free(errout);
    }
    /* every file has its line, every line its file */
    char **files = list_dir(JSON_DIR, ".json", &nfiles);
    for (size_t i = 0; i < nfiles; i++) {
        size_t k = 0;
        while (k < n && strcmp(cases[k].name, files[i]) != 0)
            k++;
        if (k == n) {
            print_error("%s/%s: not in %s/expect\n", JSON_DIR, files[i], JSON_DIR);
            bad++;
        }
    }
    if (nfiles != n) {
        print_error("%s/expect: %zu lines for %zu files\n", JSON_DIR, n, nfiles);
        bad++;
    }
    print_message("%zu result files, %zu wrong\n", n, bad);
    free_names(files, nfiles);
    free_json_cases(cases, n);
    assert_int_equal(bad, 0);
}

/* A result with only what the reader requires (drivers with a name only,
 * a group without sql) is written back whole: no driver or group is
 * dropped from the file, which reads back the same. */
static void test_json_sparse_roundtrip(void **state)
{
    (void)state;
    static const char sparse[] =
        "{\"schema_version\": 1, \"environment\": {},\n"
        " \"drivers\": [{\"name\": \"a\"}, {\"name\": \"b\", \"caps\": [\"pipeline\"]}],\n"
        " \"orders\": [[\"a\", \"b\"], [\"b\", \"a\"]],\n"
        " \"groups\": [{\"suite\": \"s\", \"query\": \"q\", \"depth\": 1, \"threads\": 1,\n"
        "   \"results\": [{\"driver\": \"a\", \"status\": \"ok\", \"median_ns\": 100},\n"
        "               {\"driver\": \"b\", \"status\": \"ok\", \"median_ns\": 200}]}],\n"
        " \"complete\": true}\n";
    char in[256], out[256], err[1024];
    snprintf(in, sizeof in, "%s/sparse.json", tmpdir);
    snprintf(out, sizeof out, "%s/sparse_out.json", tmpdir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs(sparse, f);
    assert_int_equal(fclose(f), 0);

    struct pgcb_result r, r2;
    assert_int_equal(pgcb_result_read(in, &r, err, sizeof err), 0);
    if (pgcb_result_write(&r, out, err, sizeof err) != 0) {
        print_error("write: %s\n", err);
        fail();
    }
    if (pgcb_result_read(out, &r2, err, sizeof err) != 0) {
        print_error("reading back: %s\n", err);
        fail();
    }
    assert_int_equal(r2.ndrivers, 2);
    assert_string_equal(r2.drivers[0].label, "a");
    assert_null(r2.drivers[0].path);
    assert_string_equal(r2.drivers[1].label, "b");
    assert_int_equal(r2.norders, 2);
    assert_int_equal(r2.orders[1][0], 1);
    assert_int_equal(r2.ngroups, 1);
    assert_null(r2.groups[0].sql);
    assert_true(r2.groups[0].cells[1].median_ns == 200);
    pgcb_result_free(&r2);
    pgcb_result_free(&r);
}

/* Strings that are not UTF-8 (Latin-1 SQL from an INI file, a server's
 * message in another encoding, a cut sequence) cannot be JSON strings: the
 * writer replaces each invalid byte with U+FFFD instead of losing the group,
 * the message or the file. */
static void test_json_not_utf8_written(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"schema_version\": 1, \"environment\": {}, \"drivers\": [{\"name\": \"a\"}],\n"
        " \"orders\": [[\"a\"]], \"groups\": [{\"suite\": \"s\", \"query\": \"q\",\n"
        "   \"results\": [{\"driver\": \"a\", \"status\": \"failed\"}]}]}\n";
    char in[256], out[256], err[1024];
    snprintf(in, sizeof in, "%s/latin1.json", tmpdir);
    snprintf(out, sizeof out, "%s/latin1_out.json", tmpdir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs(doc, f);
    assert_int_equal(fclose(f), 0);

    struct pgcb_result r, r2;
    assert_int_equal(pgcb_result_read(in, &r, err, sizeof err), 0);
    r.groups[0].sql = strdup("SELECT 'caf\xE9' -- \xC3\xA9 is fine");
    r.groups[0].cells[0].error = strdup("server: \xFF\xFE at the end: \xE2\x82");
    r.drivers[0].links = strdup("libx \xED\xA0\x80 \xF4\x90\x80\x80 \xC0\xAF");
    if (pgcb_result_write(&r, out, err, sizeof err) != 0) {
        print_error("write: %s\n", err);
        fail();
    }
    assert_int_equal(pgcb_result_read(out, &r2, err, sizeof err), 0);
    assert_int_equal(r2.ngroups, 1);
    assert_string_equal(r2.groups[0].sql, "SELECT 'caf\xEF\xBF\xBD' -- \xC3\xA9 is fine");
    assert_string_equal(r2.groups[0].cells[0].error,
                        "server: \xEF\xBF\xBD\xEF\xBF\xBD at the end: \xEF\xBF\xBD\xEF\xBF\xBD");
    /* a surrogate, beyond U+10FFFF, an overlong '/': byte by byte */
    assert_string_equal(r2.drivers[0].links,
                        "libx \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD"
                        "\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD");
    pgcb_result_free(&r2);
    pgcb_result_free(&r);
}

/* ---- main -------------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    unsetenv("PGCB_CONNINFO");
    const char *b = getenv("PGCB_BUILD");
    snprintf(aggregate, sizeof aggregate, "%s/aggregate", b && *b ? b : "build");
    if (access(aggregate, X_OK) != 0) {
        fprintf(stderr, "test_bad_inputs: %s: %s (make %s)\n", aggregate, strerror(errno),
                aggregate);
        return -1;
    }
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

/* rm -r of what the tests made in tmpdir. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    (void)state;
    remove_tree(tmpdir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ini_corpus),
        cmocka_unit_test(test_ini_long_path),
        cmocka_unit_test(test_ini_not_a_file),
        cmocka_unit_test(test_json_corpus),
        cmocka_unit_test(test_json_sparse_roundtrip),
        cmocka_unit_test(test_json_not_utf8_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
