/*
 * test_config_cli.c -- the config's drop-in drivers and the command line's
 * selection (runner/config/config_dir.c, config_cli.c, config_select.c): [bench]
 * driver_dir, --driver NAME=PATH, --only, --suite, --query, the budget flags
 * and their precedence over the environment and the file, what is recorded
 * of it (cfg->sel, the result's record, the journal digest), and every bad
 * value with its one-line message. No server: drivers are empty files named
 * NAME.so (the config loads no .so; the session does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "result.h"

static char dir[] = "/tmp/pgcb_test_config_cli_XXXXXX";
static char path[256];

/* Write `text` to DIR/name and return its path (a static buffer). */
static const char *write_file(const char *name, const char *text)
{
    static char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static const char *write_ini(const char *text)
{
    snprintf(path, sizeof path, "%s", write_file("t.ini", text));
    return path;
}

/* Make DIR/sub (empty). */
static void make_dir(const char *sub)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    assert_int_equal(mkdir(p, 0755), 0);
}

#define QUERIES                                                                         \
    "[query.q1]\nsql = SELECT 1\nrows = 1\n[query.q2]\nsql = SELECT 2\nrows = 1\n"      \
    "[query.q3]\nsql = SELECT 3\nrows = 1\n"
#define SUITES                                                                          \
    "[suite.s1]\ndepth = 1\nqueries = q1 q2\n[suite.s2]\ndepth = 2\nqueries = q2 q3\n"

/* Record each "FLAG VALUE" of args (NULL-terminated pairs) into *cli. */
static void cli_of(struct pgcb_config_cli *cli, const char *const *args)
{
    *cli = (struct pgcb_config_cli){0};
    static const char *const names[] = {"--driver", "--only", "--suite", "--query", "-T",
                                        "--time-ms", "--queries", "--profile"};
    char err[512];
    for (size_t i = 0; args && args[i]; i += 2) {
        int f = -1;
        for (int k = 0; k < PGCB_CLI_NFLAGS; k++)
            if (strcmp(names[k], args[i]) == 0)
                f = k;
        assert_true(f >= 0);
        assert_string_equal(pgcb_config_cli_flag_name((enum pgcb_cli_flag)f), args[i]);
        if (pgcb_config_cli_arg(cli, (enum pgcb_cli_flag)f, args[i + 1], err, sizeof err) != 0)
            fail_msg("%s %s: %s", args[i], args[i + 1], err);
    }
}

/* Load text with args; expect success. */
static void load_ok(const char *text, const char *const *args, struct pgcb_config *cfg)
{
    struct pgcb_config_cli cli;
    cli_of(&cli, args);
    char err[512] = "";
    if (pgcb_config_load_cli(write_ini(text), &cli, cfg, err, sizeof err) != 0)
        fail_msg("load failed: %s", err);
}

/* Load text with args; expect failure with exactly `want` ("%s" in it is
 * replaced by the test directory). */
static void load_error(const char *text, const char *const *args, const char *want_fmt)
{
    struct pgcb_config_cli cli;
    cli_of(&cli, args);
    struct pgcb_config cfg;
    char err[512] = "", want[600];
    snprintf(want, sizeof want, want_fmt, dir, dir, dir);
    assert_int_equal(pgcb_config_load_cli(write_ini(text), &cli, &cfg, err, sizeof err), -1);
    assert_string_equal(err, want);
    assert_null(strchr(err, '\n'));
    assert_null(cfg.drivers); /* freed */
}

/* One flag's value refused by pgcb_config_cli_arg(), with exactly `want`. */
static void arg_error(enum pgcb_cli_flag f, const char *arg, const char *want)
{
    struct pgcb_config_cli cli = {0};
    char err[512] = "";
    assert_int_equal(pgcb_config_cli_arg(&cli, f, arg, err, sizeof err), -1);
    assert_string_equal(err, want);
}

static int setup(void **state)
{
    (void)state;
    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    unsetenv("PGCB_CONNINFO");
    return 0;
}

static const char *driver_name(const struct pgcb_config *cfg, size_t i)
{
    return cfg->drivers[i].name;
}

/* driver_dir: every NAME.so, sorted, after the sections; a section of the
 * same name gives its keys and keeps its place; dotfiles are skipped. */
static void test_driver_dir(void **state)
{
    (void)state;
    make_dir("dd");
    write_file("dd/zeta.so", "");
    write_file("dd/alpha.so", "");
    write_file("dd/mid.so", "");
    write_file("dd/.hidden", "");
    write_file("own.so", "");
    struct pgcb_config cfg;
    load_ok("[bench]\ndriver_dir = dd\n"
            "[driver.own]\npath = own.so\n"
            "[driver.mid]\nspin_us = 5\n" QUERIES SUITES, NULL, &cfg);
    assert_int_equal(cfg.ndrivers, 4);
    const char *order[] = {"own", "mid", "alpha", "zeta"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(driver_name(&cfg, i), order[i]);
    char want[400];
    snprintf(want, sizeof want, "%s/dd", dir);
    assert_string_equal(cfg.driver_dir, want);
    assert_int_equal(cfg.driver_dir_line, 2);
    assert_int_equal(cfg.drivers[0].origin, PGCB_CFG_FROM_SECTION);
    /* mid: the directory's file, the section's keys and line */
    snprintf(want, sizeof want, "%s/dd/mid.so", dir);
    assert_string_equal(cfg.drivers[1].path, want);
    assert_int_equal(cfg.drivers[1].origin, PGCB_CFG_FROM_DIR);
    assert_int_equal(cfg.drivers[1].has_section, 1);
    assert_int_equal(cfg.drivers[1].line, 5);
    assert_int_equal(cfg.drivers[1].path_line, 2);
    assert_int_equal(cfg.drivers[1].nopts, 1);
    assert_string_equal(cfg.drivers[1].opts[0].key, "spin_us");
    /* alpha: default options, named by the driver_dir line */
    snprintf(want, sizeof want, "%s/dd/alpha.so", dir);
    assert_string_equal(cfg.drivers[2].path, want);
    assert_int_equal(cfg.drivers[2].origin, PGCB_CFG_FROM_DIR);
    assert_int_equal(cfg.drivers[2].has_section, 0);
    assert_int_equal(cfg.drivers[2].nopts, 0);
    assert_int_equal(cfg.drivers[2].measure, 1);
    assert_int_equal(cfg.drivers[2].line, 2);
    assert_int_equal(cfg.drivers[2].path_line, 2);
    /* the result's record and the digest name the directory's drivers */
    struct pgcb_res_selection rec;
    pgcb_config_record_selection(&cfg, &rec);
    assert_int_equal(rec.recorded, 1);
    assert_int_equal(rec.nadded, 3);
    assert_string_equal(rec.added[0].name, "mid");
    assert_string_equal(rec.added[0].from, "driver_dir");
    assert_string_equal(rec.driver_dir, cfg.driver_dir);
    assert_int_equal(rec.only_given, 0);
    assert_int_equal(rec.left_out_drivers.n, 0);
    assert_string_equal(rec.time_source, "default");
    pgcb_result_selection_free(&rec);
    char *digest = pgcb_config_cli_digest(&cfg);
    assert_non_null(strstr(digest, "driver=alpha driver_dir "));
    assert_non_null(strstr(digest, "/dd/alpha.so\n"));
    assert_null(strstr(digest, "driver=own"));
    free(digest);
    pgcb_config_free(&cfg);

    /* A section that names the directory's file itself is the same driver. */
    load_ok("[bench]\ndriver_dir = dd\n[driver.alpha]\npath = dd/alpha.so\n" QUERIES SUITES,
            NULL, &cfg);
    assert_int_equal(cfg.ndrivers, 3);
    assert_string_equal(cfg.drivers[0].name, "alpha");
    assert_int_equal(cfg.drivers[0].origin, PGCB_CFG_FROM_SECTION);
    pgcb_config_free(&cfg);

    /* The directory alone is enough: no [driver.NAME] section. */
    load_ok("[bench]\ndriver_dir = dd\n" QUERIES SUITES, NULL, &cfg);
    assert_int_equal(cfg.ndrivers, 3);
    pgcb_config_free(&cfg);
    /* an empty value: no directory */
    load_ok("[bench]\ndriver_dir =\n[driver.own]\npath = own.so\n" QUERIES SUITES, NULL, &cfg);
    assert_int_equal(cfg.ndrivers, 1);
    assert_null(cfg.driver_dir);
    pgcb_config_free(&cfg);
}

/* driver_dir's bad values, one line each, at its line. */
static void test_driver_dir_errors(void **state)
{
    (void)state;
    make_dir("empty");
    load_error("[bench]\ndriver_dir = empty\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] driver_dir: %s/empty has no driver in it (no NAME.so "
               "file)");
    load_error("[bench]\ndriver_dir = none\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] driver_dir: %s/none: cannot read it: No such file or "
               "directory");
    make_dir("notso");
    write_file("notso/good.so", "");
    write_file("notso/README", "");
    load_error("[bench]\ndriver_dir = notso\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] driver_dir: %s/notso/README is not a driver (NAME.so): the "
               "directory must hold drivers only");
    make_dir("badname");
    write_file("badname/Big.so", "");
    load_error("[bench]\ndriver_dir = badname\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] driver_dir: %s/badname/Big.so: the name before .so is not "
               "a driver name: use 1 to 63 of a-z, 0-9 and _");
    make_dir("sub");
    make_dir("sub/inner.so");
    load_error("[bench]\ndriver_dir = sub\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] driver_dir: %s/sub/inner.so: not a regular file (the "
               "directory must hold drivers only)");
    make_dir("one");
    write_file("one/alpha.so", "");
    write_file("other.so", "");
    load_error("[bench]\ndriver_dir = one\n[driver.alpha]\npath = other.so\n" QUERIES SUITES,
               NULL, "%s/t.ini:4: [driver.alpha] path = %s/other.so is not driver_dir's "
               "%s/one/alpha.so: leave out path = (the section then gives the directory's "
               "driver its keys), or rename the section");
    load_error("[bench]\ndriver_dir = one\n[driver.beta]\nx = 1\n" QUERIES SUITES, NULL,
               "%s/t.ini:3: [driver.beta] has no 'path =' and driver_dir %s/one has no "
               "beta.so");
}

/* --driver NAME=PATH: added after the file's and the directory's drivers,
 * default options, the path as given; a name the config has is refused. */
static void test_cli_drivers(void **state)
{
    (void)state;
    char a[300], b[300], arg_a[320], arg_b[320];
    snprintf(a, sizeof a, "%s", write_file("cli_a.so", ""));
    snprintf(b, sizeof b, "%s", write_file("cli_b.so", ""));
    snprintf(arg_a, sizeof arg_a, "extra=%s", a);
    snprintf(arg_b, sizeof arg_b, "more=%s", b);
    struct pgcb_config cfg;
    const char *args[] = {"--driver", arg_a, "--driver", arg_b, NULL};
    load_ok("[driver.own]\npath = own.so\n" QUERIES SUITES, args, &cfg);
    assert_int_equal(cfg.ndrivers, 3);
    assert_string_equal(cfg.drivers[1].name, "extra");
    assert_string_equal(cfg.drivers[1].path, a);
    assert_int_equal(cfg.drivers[1].origin, PGCB_CFG_FROM_CLI);
    assert_int_equal(cfg.drivers[1].nopts, 0);
    assert_int_equal(cfg.drivers[1].measure, 1);
    assert_string_equal(cfg.drivers[2].name, "more");
    pgcb_config_free(&cfg);
    /* --driver alone makes a config without [driver.NAME] runnable */
    const char *one[] = {"--driver", arg_a, NULL};
    load_ok(QUERIES SUITES, one, &cfg);
    assert_int_equal(cfg.ndrivers, 1);
    char *digest = pgcb_config_cli_digest(&cfg);
    char want[700];
    snprintf(want, sizeof want, "driver=extra --driver %s\n", a);
    assert_string_equal(digest, want);
    free(digest);
    pgcb_config_free(&cfg);

    /* conflicting names */
    snprintf(arg_a, sizeof arg_a, "own=%s", a);
    const char *clash[] = {"--driver", arg_a, NULL};
    char fmt[700];
    snprintf(fmt, sizeof fmt, "--driver own=%s: %%s/t.ini:1 has [driver.own] already (--driver "
             "adds a driver, it does not replace one: choose another NAME, and --only to leave "
             "the config's out)", a);
    load_error("[driver.own]\npath = own.so\n" QUERIES SUITES, clash, fmt);
    make_dir("clash");
    write_file("clash/own.so", "");
    snprintf(fmt, sizeof fmt, "--driver own=%s: %%s/t.ini:2: driver_dir has own.so already "
             "(--driver adds a driver, it does not replace one: choose another NAME)", a);
    load_error("[bench]\ndriver_dir = clash\n" QUERIES SUITES, clash, fmt);
    const char *twice[] = {"--driver", arg_a, "--driver", arg_a, NULL};
    snprintf(fmt, sizeof fmt, "--driver own=%s: the name own is given twice", a);
    load_error(QUERIES SUITES, twice, fmt);
    /* a missing .so, a directory */
    const char *missing[] = {"--driver", "gone=/nonexistent/gone.so", NULL};
    load_error(QUERIES SUITES, missing, "--driver gone=/nonexistent/gone.so: "
               "/nonexistent/gone.so: No such file or directory");
    char d[320];
    snprintf(d, sizeof d, "dir=%s", dir);
    const char *isdir[] = {"--driver", d, NULL};
    snprintf(fmt, sizeof fmt, "--driver %s: %s: not a regular file", d, dir);
    load_error(QUERIES SUITES, isdir, fmt);
    /* bad forms, refused before the config is read */
    arg_error(PGCB_CLI_DRIVER, "mine.so", "--driver 'mine.so': expected NAME=PATH (e.g. "
              "--driver mine=./mine.so)");
    arg_error(PGCB_CLI_DRIVER, "=x.so", "--driver '=x.so': expected NAME=PATH (e.g. --driver "
              "mine=./mine.so)");
    arg_error(PGCB_CLI_DRIVER, "mine=", "--driver 'mine=': expected NAME=PATH (e.g. --driver "
              "mine=./mine.so)");
    arg_error(PGCB_CLI_DRIVER, "Mine=x.so", "--driver 'Mine=x.so': bad NAME: use 1 to 63 of "
              "a-z, 0-9 and _");
    arg_error(PGCB_CLI_DRIVER, "my-drv=x.so", "--driver 'my-drv=x.so': bad NAME: use 1 to 63 "
              "of a-z, 0-9 and _");
}

static int has(const struct pgcb_cfg_names *l, size_t i, const char *name)
{
    return i < l->n && strcmp(l->v[i], name) == 0;
}

/* --only: the drivers measured; the others left out, or kept unmeasured
 * for a background load that a remaining suite runs. */
static void test_only(void **state)
{
    (void)state;
    const char *text = "[driver.a]\npath = a.so\n[driver.b]\npath = b.so\n"
                       "[driver.c]\npath = c.so\n[driver.bg]\npath = bg.so\nmeasure = no\n"
                       QUERIES SUITES;
    struct pgcb_config cfg;
    const char *args[] = {"--only", "c", "--only", "a", NULL};
    load_ok(text, args, &cfg);
    assert_int_equal(cfg.ndrivers, 4);
    assert_int_equal(cfg.drivers[0].measure, 1);
    assert_int_equal(cfg.drivers[1].measure, 0);
    assert_int_equal(cfg.drivers[2].measure, 1);
    assert_int_equal(cfg.sel.only_given, 1);
    assert_true(has(&cfg.sel.only, 0, "c") && has(&cfg.sel.only, 1, "a"));
    assert_int_equal(cfg.sel.dropped_drivers.n, 1);
    assert_true(has(&cfg.sel.dropped_drivers, 0, "b"));
    char *digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, "measured=a\nmeasured=c\n"); /* config order, not typed */
    free(digest);
    pgcb_config_free(&cfg);
    const char *same[] = {"--only", "a,c", NULL};
    load_ok(text, same, &cfg);
    digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, "measured=a\nmeasured=c\n");
    free(digest);
    pgcb_config_free(&cfg);

    const char *bad[] = {"--only", "a,zz", NULL};
    load_error(text, bad, "--only: no driver zz (the config's drivers: a, b, c, bg)");
    const char *twice[] = {"--only", "a", "--only", "b,a", NULL};
    load_error(text, twice, "--only: a is given twice");
    const char *bgonly[] = {"--only", "bg", NULL};
    load_error(text, bgonly, "--only: driver bg has measure = no (it only runs background "
               "loads)");
    arg_error(PGCB_CLI_ONLY, "a,,b", "--only 'a,,b': an empty name (give NAME or "
              "NAME,NAME,...)");
    arg_error(PGCB_CLI_ONLY, "", "--only '': an empty name (give NAME or NAME,NAME,...)");
    arg_error(PGCB_CLI_ONLY, "a,", "--only 'a,': an empty name (give NAME or NAME,NAME,...)");
}

/* --suite and --query: the groups that remain; suites left empty go,
 * and the backgrounds only they named. */
static void test_suite_query(void **state)
{
    (void)state;
    const char *text = "[driver.a]\npath = a.so\n[driver.b]\npath = b.so\n" QUERIES
                       "[background.load]\ndriver = b\nquery = q3\nrate = 10\n"
                       "[background.keep]\ndriver = a\nquery = q1\nrate = 10\n" SUITES
                       "[suite.s3]\ndepth = 1\nqueries = q3\nbackground = load\n"
                       "[suite.s4]\ndepth = 1\nqueries = q1\nbackground = keep\n";
    struct pgcb_config cfg;
    const char *suites[] = {"--suite", "s2,s4", NULL};
    load_ok(text, suites, &cfg);
    assert_int_equal(cfg.nsuites, 2);
    assert_string_equal(cfg.suites[0].name, "s2");
    assert_string_equal(cfg.suites[1].name, "s4");
    assert_int_equal(cfg.sel.dropped_suites.n, 2);
    assert_true(has(&cfg.sel.dropped_suites, 0, "s1") && has(&cfg.sel.dropped_suites, 1, "s3"));
    /* load was named by s3 only: gone; keep stays, renumbered */
    assert_int_equal(cfg.nbackgrounds, 1);
    assert_string_equal(cfg.backgrounds[0].name, "keep");
    assert_int_equal(cfg.suites[1].nbackgrounds, 1);
    assert_int_equal(cfg.suites[1].backgrounds[0], 0);
    assert_int_equal(cfg.sel.dropped_queries.n, 0); /* q1, q2, q3 still run */
    pgcb_config_free(&cfg);

    const char *queries[] = {"--query", "q2", NULL};
    load_ok(text, queries, &cfg);
    assert_int_equal(cfg.nsuites, 2); /* s1 and s2 run q2; s3 and s4 have none */
    assert_int_equal(cfg.suites[0].nqueries, 1);
    assert_int_equal(cfg.suites[0].queries[0], 1);
    assert_int_equal(cfg.suites[1].nqueries, 1);
    assert_int_equal(cfg.suites[1].queries[0], 1);
    assert_int_equal(cfg.nqueries, 3); /* the config's queries stay */
    assert_int_equal(cfg.nbackgrounds, 0);
    assert_true(has(&cfg.sel.dropped_queries, 0, "q1") && has(&cfg.sel.dropped_queries, 1, "q3"));
    assert_true(has(&cfg.sel.dropped_suites, 0, "s3") && has(&cfg.sel.dropped_suites, 1, "s4"));
    char *digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, "group=s1/q2\ngroup=s2/q2\n");
    free(digest);
    struct pgcb_res_selection rec;
    pgcb_config_record_selection(&cfg, &rec);
    assert_int_equal(rec.queries_given, 1);
    assert_int_equal(rec.suites_given, 0);
    assert_int_equal(rec.queries.n, 1);
    assert_int_equal(rec.left_out_queries.n, 2);
    assert_int_equal(rec.left_out_suites.n, 2);
    pgcb_result_selection_free(&rec);
    pgcb_config_free(&cfg);

    /* a background's driver left out by --only is still loaded for it */
    const char *both[] = {"--suite", "s3", "--only", "a", NULL};
    load_ok(text, both, &cfg);
    assert_int_equal(cfg.nsuites, 1);
    assert_int_equal(cfg.nbackgrounds, 1);
    assert_string_equal(cfg.drivers[cfg.backgrounds[0].driver].name, "b");
    assert_int_equal(cfg.drivers[1].measure, 0);
    pgcb_config_free(&cfg);

    const char *nosuite[] = {"--suite", "s9", NULL};
    load_error(text, nosuite, "--suite: no suite s9 (the config's suites: s1, s2, s3, s4)");
    const char *noquery[] = {"--query", "q9", NULL};
    load_error(text, noquery, "--query: no query q9 (the config's queries: q1, q2, q3)");
    const char *empty[] = {"--suite", "s1", "--query", "q3", NULL};
    load_error(text, empty, "--suite s1: it runs none of the queries --query names");
    const char *notin[] = {"--suite", "s1", "--query", "q1,q3", NULL};
    load_error(text, notin, "--query: query q3 is in none of the suites --suite names (s1)");
    const char *twice[] = {"--suite", "s1,s1", NULL};
    load_error(text, twice, "--suite: s1 is given twice");
    /* a query only a background runs */
    const char *bgq[] = {"--query", "q3", NULL};
    load_error("[driver.a]\npath = a.so\n" QUERIES
               "[background.l]\ndriver = a\nquery = q3\nrate = 1\n[suite.s1]\nqueries = q1\n",
               bgq, "--query: no suite runs query q3 (the config's suites: s1)");
}

/* The budget: command line > environment > file, and where it came from. */
static void test_budget(void **state)
{
    (void)state;
    const char *text = "[bench]\ntime_ms = 5\nqueries = 6\n[driver.a]\npath = a.so\n" QUERIES
                       SUITES;
    struct pgcb_config cfg;
    setenv("BENCH_TIME_MS", "250", 1);
    setenv("BENCH_QUERIES", "77", 1);
    const char *t[] = {"-T", "1.5", "--queries", "30", NULL};
    load_ok(text, t, &cfg);
    assert_int_equal(cfg.time_ms, 1500);
    assert_string_equal(cfg.time_source, "-T");
    assert_int_equal(cfg.min_queries, 30);
    assert_string_equal(cfg.queries_source, "--queries");
    char *digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, "time_ms=1500\nqueries=30\n");
    free(digest);
    struct pgcb_res_selection rec;
    pgcb_config_record_selection(&cfg, &rec);
    assert_string_equal(rec.time_source, "-T");
    assert_string_equal(rec.queries_source, "--queries");
    pgcb_result_selection_free(&rec);
    pgcb_config_free(&cfg);
    const char *ms[] = {"--time-ms", "42", NULL};
    load_ok(text, ms, &cfg);
    assert_int_equal(cfg.time_ms, 42);
    assert_string_equal(cfg.time_source, "--time-ms");
    assert_int_equal(cfg.min_queries, 77); /* the environment's */
    assert_string_equal(cfg.queries_source, "BENCH_QUERIES");
    pgcb_config_free(&cfg);
    setup(NULL);
    load_ok(text, NULL, &cfg);
    assert_int_equal(cfg.time_ms, 5);
    assert_string_equal(cfg.time_source, "file");
    digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, ""); /* nothing from the command line */
    free(digest);
    pgcb_config_free(&cfg);
    const char *small[] = {"-T", "0.0004", NULL}; /* rounds to 0 ms */
    struct pgcb_config_cli cli = {0};
    char err[256];
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_TIME_S, small[1], err, sizeof err), -1);

    const char *tmsg = "not a number of seconds above 0 and up to 86400 (e.g. -T 10 or -T 0.5; "
                       "the time per group and driver)";
    char want[300];
    const char *bad_t[] = {"0", "-1", "abc", "1s", "", "86401", "nan", "inf"};
    for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++) {
        snprintf(want, sizeof want, "-T '%s': %s", bad_t[i], tmsg);
        arg_error(PGCB_CLI_TIME_S, bad_t[i], want);
    }
    arg_error(PGCB_CLI_TIME_MS, "0", "--time-ms '0': not an integer from 1 to 86400000");
    arg_error(PGCB_CLI_TIME_MS, "-5", "--time-ms '-5': not an integer from 1 to 86400000");
    arg_error(PGCB_CLI_TIME_MS, "1.5", "--time-ms '1.5': not an integer from 1 to 86400000");
    arg_error(PGCB_CLI_QUERIES, "0", "--queries '0': not an integer from 1 to 4294967295");
    arg_error(PGCB_CLI_QUERIES, "many", "--queries 'many': not an integer from 1 to "
              "4294967295");
    /* one time budget, once */
    cli = (struct pgcb_config_cli){0};
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_TIME_S, "2", err, sizeof err), 0);
    assert_int_equal(cli.time_ms, 2000);
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_TIME_MS, "5", err, sizeof err), -1);
    assert_string_equal(err, "--time-ms: the time budget is already given (-T): give one of -T "
                        "and --time-ms, once");
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_QUERIES, "5", err, sizeof err), 0);
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_QUERIES, "6", err, sizeof err), -1);
    assert_string_equal(err, "--queries: given twice");
    assert_int_equal(pgcb_config_cli_given(&cli), 1);
    cli = (struct pgcb_config_cli){0};
    assert_int_equal(pgcb_config_cli_given(&cli), 0);
    assert_int_equal(pgcb_config_cli_given(NULL), 0);
    /* at most PGCB_CLI_MAX of a flag */
    for (int i = 0; i < PGCB_CLI_MAX; i++)
        assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_SUITE, "s1", err, sizeof err), 0);
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_SUITE, "s1", err, sizeof err), -1);
    assert_string_equal(err, "--suite: given more than 64 times");
}

/* [bench] profile and --profile[=MODE] over it (docs/profiling.md). */
static void test_profile(void **state)
{
    (void)state;
    const char *text = "[bench]\nprofile = try\n[driver.a]\npath = a.so\n" QUERIES SUITES;
    struct pgcb_config cfg;
    load_ok(text, NULL, &cfg);
    assert_int_equal(cfg.profile, PGCB_PROFILE_TRY);
    assert_string_equal(cfg.profile_source, "file");
    assert_int_equal(cfg.profile_line, 2);
    pgcb_config_free(&cfg);
    const char *on[] = {"--profile", "on", NULL};
    load_ok(text, on, &cfg);
    assert_int_equal(cfg.profile, PGCB_PROFILE_ON);
    assert_string_equal(cfg.profile_source, "--profile");
    char *digest = pgcb_config_cli_digest(&cfg);
    assert_string_equal(digest, "profile=on\n"); /* a --resume must keep it */
    free(digest);
    pgcb_config_free(&cfg);
    load_ok("[driver.a]\npath = a.so\n" QUERIES SUITES, NULL, &cfg);
    assert_int_equal(cfg.profile, PGCB_PROFILE_OFF);
    assert_string_equal(cfg.profile_source, "default");
    pgcb_config_free(&cfg);
    load_error("[bench]\nprofile = yes\n[driver.a]\npath = a.so\n" QUERIES SUITES, NULL,
               "%s/t.ini:2: [bench] profile: 'yes' is not off, on or try (on: sample every "
               "driver's measured orders with perf, or stop if perf cannot; try: the same, "
               "unprofiled without perf)");
    struct pgcb_config_cli cli = {0};
    char err[256];
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_PROFILE, NULL, err, sizeof err), 0);
    assert_int_equal(cli.profile, PGCB_PROFILE_ON); /* --profile alone */
    assert_int_equal(pgcb_config_cli_given(&cli), 1);
    assert_int_equal(pgcb_config_cli_arg(&cli, PGCB_CLI_PROFILE, "try", err, sizeof err), -1);
    assert_string_equal(err, "--profile: given twice");
    arg_error(PGCB_CLI_PROFILE, "maybe", "--profile=maybe: not on, try or off (--profile alone: "
              "on)");
}

/* The file's own errors come first, and a file without a flag loads as
 * pgcb_config_load() does. */
static void test_file_first(void **state)
{
    (void)state;
    const char *args[] = {"--only", "zz", NULL};
    load_error("[bench]\ntime_ms = x\n[driver.a]\npath = a.so\n" QUERIES SUITES, args,
               "%s/t.ini:2: [bench] time_ms: 'x' is not an integer from 0 to 86400000");
    struct pgcb_config cfg;
    struct pgcb_config_cli none = {0};
    char err[256];
    assert_int_equal(pgcb_config_load_cli(write_ini("[driver.a]\npath = a.so\n" QUERIES SUITES),
                                          &none, &cfg, err, sizeof err), 0);
    assert_int_equal(cfg.nsuites, 2);
    assert_int_equal(cfg.sel.only_given + cfg.sel.suites_given + cfg.sel.queries_given, 0);
    pgcb_config_free(&cfg);
}

static int group_setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_driver_dir, setup),
        cmocka_unit_test_setup(test_driver_dir_errors, setup),
        cmocka_unit_test_setup(test_cli_drivers, setup),
        cmocka_unit_test_setup(test_only, setup),
        cmocka_unit_test_setup(test_suite_query, setup),
        cmocka_unit_test_setup(test_budget, setup),
        cmocka_unit_test_setup(test_file_first, setup),
        cmocka_unit_test_setup(test_profile, setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
