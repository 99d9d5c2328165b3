/*
 * test_rawwire_connect.c -- connect with rawwire, run queries, or expect a
 * connection error. Used two ways:
 *
 *   test_rawwire_connect                       (as tests/run.sh runs it)
 *       against the PG* server: connect with "" and run the queries below.
 *   test_rawwire_connect CONNINFO [ERROR_PART] (tests/server/rawwire_auth.sh)
 *       connect with CONNINFO; without ERROR_PART, run the queries; with it,
 *       expect open() to fail with PGCB_ERR_CONNECT and a one-line message
 *       containing ERROR_PART.
 *
 * In the first form, also the target list and requirepeer (libpq's rules):
 * a host that does not listen is skipped, a missing database on the first
 * host stops the search (the second is not tried), requirepeer naming the
 * socket's owner connects and naming another user is refused.
 *
 * The queries need no table: generate_series rows of int, text, NULL and
 * bool, LIMIT-like sizes 1, 100 and 500, depths 1 and 10, text and binary.
 * Exit 0 when everything is as expected; else 1 with one line on stderr.
 * The driver is $PGCB_BUILD/drivers/rawwire.so (default build/), loaded and
 * checked by drvtest_load (tests/lib/drvtest.h).
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pgcb/driver.h>

#include "../lib/drvtest.h"

static int fail(const char *what, const char *err)
{
    fprintf(stderr, "test_rawwire_connect: %s%s%s\n", what, err ? ": " : "", err ? err : "");
    return 1;
}

static int run_queries(const struct pgcb_driver *d, const char *conninfo)
{
    static const char *const formats[] = {"text", "binary"};
    static const unsigned sizes[] = {1, 100, 500};
    char err[PGCB_ERRLEN] = "";

    for (int f = 0; f < 2; f++) {
        struct pgcb_option opt = {"result_format", formats[f]};
        struct pgcb_conn *c = NULL;
        if (d->open(conninfo, &opt, 1, &c, err, sizeof err) != PGCB_OK)
            return fail("open failed", err);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char name[32], sql[160];
            struct pgcb_stmt *st = NULL;
            snprintf(name, sizeof name, "q%u", sizes[i]);
            snprintf(sql, sizeof sql,
                     "SELECT i, 1337, 'wat', NULL::text, false FROM generate_series(1, %u) AS i",
                     sizes[i]);
            if (d->prepare(c, name, sql, &st, err, sizeof err) != PGCB_OK) {
                d->close(c);
                return fail("prepare failed", err);
            }
            for (uint32_t depth = 1; depth <= 10; depth += 9) {
                struct pgcb_sum s = {0, 0};
                if (d->run_batch(c, st, depth, &s, err, sizeof err) != PGCB_OK) {
                    d->close(c);
                    return fail("run_batch failed", err);
                }
                if (s.rows != (uint64_t)sizes[i] * depth) {
                    d->close(c);
                    return fail("wrong row count", NULL);
                }
            }
        }
        d->close(c);
    }
    return 0;
}

static int expect_error(const struct pgcb_driver *d, const char *conninfo, const char *part)
{
    struct pgcb_conn *c = NULL;
    char err[PGCB_ERRLEN] = "";
    int rc = d->open(conninfo, NULL, 0, &c, err, sizeof err);

    if (rc == PGCB_OK) {
        d->close(c);
        return fail("open succeeded; expected an error containing", part);
    }
    if (rc != PGCB_ERR_CONNECT || c || strchr(err, '\n') || !strstr(err, part)) {
        fprintf(stderr, "test_rawwire_connect: open returned %d \"%s\"; expected %d and \"%s\"\n", rc,
                err, PGCB_ERR_CONNECT, part);
        return 1;
    }
    printf("expected error: %s\n", err);
    return 0;
}

/* The user owning the server's socket (the server's OS user), or NULL. */
static const char *socket_owner(const char *host, const char *port)
{
    char path[512];
    struct stat st;
    struct passwd *pw;

    snprintf(path, sizeof path, "%s/.s.PGSQL.%s", host, port);
    if (stat(path, &st) != 0 || !(pw = getpwuid(st.st_uid)))
        return NULL;
    return pw->pw_name;
}

/* Multiple hosts and requirepeer against the PG* server (a socket dir). */
static int run_target_cases(const struct pgcb_driver *d)
{
    const char *host = getenv("PGHOST"), *port = getenv("PGPORT"), *owner;
    char ci[1024], part[256];
    int bad = 0;

    if (!host || host[0] != '/' || !port)
        return fail("PGHOST must be a socket directory and PGPORT set", NULL);
    /* not listening, then the server: connects */
    snprintf(ci, sizeof ci, "host=/nonexistent-rw-dir,%s", host);
    bad |= run_queries(d, ci);
    /* a missing database on the first host: reported, the second not tried */
    snprintf(ci, sizeof ci, "host=%s,/nonexistent-rw-dir dbname=rw_no_such_db", host);
    bad |= expect_error(d, ci, "3D000");
    snprintf(ci, sizeof ci, "host=%s,%s dbname=rw_no_such_db", host, host);
    bad |= expect_error(d, ci, "3D000");
    if (!(owner = socket_owner(host, port)))
        return fail("cannot find the owner of the server's socket", host) | bad;
    snprintf(ci, sizeof ci, "requirepeer=%s", owner);
    bad |= run_queries(d, ci);
    snprintf(part, sizeof part, "requirepeer specifies \"rw_nobody\", but actual peer user name is \"%s\"",
             owner);
    bad |= expect_error(d, "requirepeer=rw_nobody", part);
    /* and from PGREQUIREPEER; a failed peer check does not try the next host */
    setenv("PGREQUIREPEER", "rw_nobody", 1);
    snprintf(ci, sizeof ci, "host=%s,%s", host, host);
    bad |= expect_error(d, ci, part);
    unsetenv("PGREQUIREPEER");
    return bad;
}

int main(int argc, char **argv)
{
    struct drvtest_drv rw = {0};
    int rc;

    if (argc > 3)
        return fail("usage: test_rawwire_connect [CONNINFO [ERROR_PART]]", NULL);
    if (argc == 1 && drvtest_require_server("test_rawwire_connect"))
        return 1;
    if (drvtest_load(&rw, "rawwire")) {
        drvtest_unload(&rw);
        return 1;
    }
    rc = argc == 3 ? expect_error(rw.d, argv[1], argv[2])
                   : run_queries(rw.d, argc >= 2 ? argv[1] : "");
    if (argc == 1 && rc == 0)
        rc = run_target_cases(rw.d);
    drvtest_unload(&rw);
    return rc;
}
