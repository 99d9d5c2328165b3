/*
 * test_rawwire_conninfo.c -- rawwire's own conninfo parser (key=value and
 * URIs), PG* variables, defaults, host lists, refusals, and the password
 * file. The driver's .c files are compiled in by #including them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgwire/rw_conninfo.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_passfile.h"

static void clear_env(void)
{
    for (int i = 0; i < RW_P_COUNT; i++)
        if (rw_param_env((enum rw_param)i))
            unsetenv(rw_param_env((enum rw_param)i));
}

static int setup(void **state)
{
    (void)state;
    clear_env();
    return 0;
}

static void parse_ok(const char *ci, struct rw_params *p)
{
    char err[256] = "";
    int rc = rw_conninfo_parse(ci, p, err, sizeof err);
    if (rc)
        print_error("parse(%s): %s\n", ci, err);
    assert_int_equal(rc, 0);
}

static void parse_bad(const char *ci, const char *part)
{
    struct rw_params p;
    char err[256] = "";

    assert_int_equal(rw_conninfo_parse(ci, &p, err, sizeof err), -1);
    if (!strstr(err, part))
        print_error("parse(%s): \"%s\" lacks \"%s\"\n", ci, err, part);
    assert_non_null(strstr(err, part));
    assert_null(strstr(err, "hunter2"));
}

#define V(p, k) ((p).v[RW_P_##k])

static void test_kv(void **state)
{
    struct rw_params p;

    (void)state;
    parse_ok("host=/tmp port = 5433  dbname='my db' user=bob password='it\\'s \\\\ x' "
             "application_name=a\\ b sslcert=/x keepalives=1",
             &p);
    assert_string_equal(V(p, HOST), "/tmp");
    assert_string_equal(V(p, PORT), "5433");
    assert_string_equal(V(p, DBNAME), "my db");
    assert_string_equal(V(p, USER), "bob");
    assert_string_equal(V(p, PASSWORD), "it's \\ x");
    assert_string_equal(V(p, APPLICATION_NAME), "a b");
    assert_null(V(p, OPTIONS));
    rw_params_free(&p);
    parse_ok("", &p);
    assert_null(V(p, HOST));
    rw_params_free(&p);
    parse_ok("host=a host=b password=''", &p); /* the last one wins; '' is given */
    assert_string_equal(V(p, HOST), "b");
    assert_string_equal(V(p, PASSWORD), "");
    rw_params_free(&p);

    parse_ok("host=x\\", &p); /* libpq drops a '\' at the very end */
    assert_string_equal(V(p, HOST), "x");
    rw_params_free(&p);
    parse_bad("postgresql://h?application_name=a=b", "extra key/value separator");
    parse_bad("host", "missing \"=\" after \"host\"");
    parse_bad("password='hunter2", "unterminated quoted string");
    parse_bad("bogus=1", "invalid connection option \"bogus\"");
    /* with a password in the string, no piece of it is quoted */
    parse_bad("password=hunter2 secretpart", "missing \"=\" after the keyword at offset 17");
    parse_bad("password=hunter2 hunter2x=1", "invalid connection option (not quoted");
    parse_bad("postgresql://u:pw@h/db?hunter2=1", "invalid connection option (not quoted");
}

static void test_uri(void **state)
{
    struct rw_params p;
    char err[256] = "";

    (void)state;
    parse_ok("postgresql://bob:hunter2@%2Ftmp%2Fsock:5433/my%20db?application_name=x&connect_timeout=3", &p);
    assert_string_equal(V(p, USER), "bob");
    assert_string_equal(V(p, PASSWORD), "hunter2");
    assert_string_equal(V(p, HOST), "/tmp/sock");
    assert_string_equal(V(p, PORT), "5433");
    assert_string_equal(V(p, DBNAME), "my db");
    assert_string_equal(V(p, APPLICATION_NAME), "x");
    assert_string_equal(V(p, CONNECT_TIMEOUT), "3");
    rw_params_free(&p);

    parse_ok("postgres://[::1]:5432,db2,db3:6000/", &p);
    assert_string_equal(V(p, HOST), "::1,db2,db3");
    assert_string_equal(V(p, PORT), "5432,,6000");
    assert_null(V(p, DBNAME));
    rw_params_free(&p);

    parse_ok("postgresql://", &p);
    assert_null(V(p, HOST));
    assert_null(V(p, PORT));
    rw_params_free(&p);

    parse_ok("postgresql:///db?host=/run/pg&ssl=true", &p);
    assert_string_equal(V(p, HOST), "/run/pg");
    assert_string_equal(V(p, DBNAME), "db");
    assert_string_equal(V(p, SSLMODE), "require");
    rw_params_free(&p);

    parse_ok("postgresql://user@host", &p);
    assert_string_equal(V(p, USER), "user");
    assert_string_equal(V(p, HOST), "host");
    rw_params_free(&p);

    /* libpq's conninfo_uri_parse_options: the user info ends at the first
     * '@' before any '/' ('?' does not end it); the host list ends at '/' or
     * '?'; so an unencoded '/' in a password makes it a host:port/dbname */
    parse_ok("postgresql://bob:abc/def@db.example/app", &p);
    assert_null(V(p, USER));
    assert_null(V(p, PASSWORD));
    assert_string_equal(V(p, HOST), "bob");
    assert_string_equal(V(p, PORT), "abc");
    assert_string_equal(V(p, DBNAME), "def@db.example/app");
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    {
        struct rw_target *t;
        size_t n;
        assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), -1);
        assert_non_null(strstr(err, "invalid port number"));
        assert_null(strstr(err, "abc")); /* may be a piece of a password */
    }
    rw_params_free(&p);
    parse_ok("postgresql://bob:se?cret@db", &p);
    assert_string_equal(V(p, USER), "bob");
    assert_string_equal(V(p, PASSWORD), "se?cret");
    assert_string_equal(V(p, HOST), "db");
    rw_params_free(&p);
    parse_ok("postgresql://u@v:pw@host", &p); /* libpq: port "pw@host", refused at connect */
    assert_string_equal(V(p, USER), "u");
    assert_string_equal(V(p, HOST), "v");
    assert_string_equal(V(p, PORT), "pw@host");
    rw_params_free(&p);
    parse_ok("postgresql://h,/d", &p); /* libpq keeps the lone commas */
    assert_string_equal(V(p, HOST), "h,");
    assert_string_equal(V(p, PORT), ",");
    rw_params_free(&p);
    parse_bad("postgresql://u:p@[::1]x/", "unexpected character");
    parse_bad("postgresql://[]/", "IPv6 host address may not be empty");

    parse_bad("postgresql://[::1/db", "missing \"]\"");
    parse_bad("postgresql://h/db?bogus=1", "invalid connection option \"bogus\"");
    parse_bad("postgresql://h/db?x", "missing key/value separator");
    parse_bad("postgresql://u:hunter2%zz@h/db", "invalid percent-encoded token in the URI's password");
    parse_bad("postgresql://h/d%00b", "invalid percent-encoded token");
    parse_bad("postgresql://h/d%", "invalid percent-encoded token");
}

static void test_env_defaults(void **state)
{
    struct rw_params p;
    char err[256] = "";

    (void)state;
    setenv("PGHOST", "/from/env", 1);
    setenv("PGPORT", "6543", 1);
    setenv("PGAPPNAME", "envapp", 1);
    parse_ok("host=/given dbname=", &p);
    assert_int_equal(rw_params_from_env(&p), 0);
    assert_string_equal(V(p, HOST), "/given");   /* the string wins */
    assert_string_equal(V(p, PORT), "6543");     /* else the environment */
    assert_string_equal(V(p, APPLICATION_NAME), "envapp");
    assert_string_equal(V(p, DBNAME), "");       /* given empty: not looked up */
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_non_null(V(p, USER));
    assert_true(*V(p, USER));                    /* the OS user */
    assert_string_equal(V(p, DBNAME), V(p, USER)); /* defaults to the user */
    rw_params_free(&p);
    clear_env();

    parse_ok("", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_string_equal(V(p, PORT), "5432");
    rw_params_free(&p);
}

static void finish_bad(const char *ci, const char *part)
{
    struct rw_params p;
    char err[256] = "";

    parse_ok(ci, &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), -1);
    if (!strstr(err, part))
        print_error("finish(%s): \"%s\" lacks \"%s\"\n", ci, err, part);
    assert_non_null(strstr(err, part));
    rw_params_free(&p);
}

static void test_refusals(void **state)
{
    struct rw_params p;
    char err[256] = "";

    (void)state;
    finish_bad("sslmode=bogus", "invalid sslmode value");
    finish_bad("gssencmode=require", "not supported");
    finish_bad("service=x", "service is not supported");
    finish_bad("connect_timeout=abc", "connect_timeout");
    finish_bad("target_session_attrs=read-write", "not supported");
    /* values libpq refuses when connecting ("" included: libpq 15 refuses
     * sslmode='', connect_timeout='' ...), seen with PQconnectdb */
    finish_bad("sslmode=''", "invalid sslmode value");
    finish_bad("channel_binding=''", "invalid channel_binding value");
    finish_bad("gssencmode=bogus", "invalid gssencmode value");
    finish_bad("target_session_attrs=bogus", "invalid target_session_attrs value");
    finish_bad("ssl_min_protocol_version=TLSv9", "invalid ssl_min_protocol_version value");
    finish_bad("ssl_max_protocol_version=TLSv1.1", "invalid SSL protocol version range"); /* min TLSv1.2 */
    finish_bad("connect_timeout=''", "connect_timeout");
    finish_bad("connect_timeout=5x", "connect_timeout");
    finish_bad("connect_timeout=99999999999", "connect_timeout");
    for (const char *const *m = (const char *const[]){"connect_timeout=' 5 '", "connect_timeout=-1",
                                                      "connect_timeout=+3", "ssl_min_protocol_version=tlsv1 "
                                                      "ssl_max_protocol_version=TLSv1",
                                                      "gssencmode=prefer", NULL};
         *m; m++) {
        parse_ok(*m, &p);
        if (rw_params_finish(&p, err, sizeof err))
            print_error("finish(%s): %s\n", *m, err);
        assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
        rw_params_free(&p);
    }
    setenv("PGSSLMODE", "verify-full", 1);
    setenv("PGSSLROOTCERT", "/ca.crt", 1);
    setenv("PGSSLSNI", "0", 1);
    parse_ok("", &p);
    assert_int_equal(rw_params_from_env(&p), 0); /* the TLS keys from the environment too */
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_string_equal(V(p, SSLMODE), "verify-full");
    assert_string_equal(V(p, SSLROOTCERT), "/ca.crt");
    assert_string_equal(V(p, SSLSNI), "0");
    rw_params_free(&p);
    clear_env();
    /* libpq: requiressl starting with '1' is sslmode=require, anything else
     * sslmode=prefer (replacing an earlier sslmode); PGREQUIRESSL=1... is
     * sslmode=require unless sslmode/PGSSLMODE says otherwise */
    for (const char *const *m = (const char *const[]){"requiressl=1", "requiressl=10", "requiressl=1x",
                                                      "sslmode=disable requiressl=1",
                                                      "requiressl=0 sslmode=require", NULL};
         *m; m++) {
        parse_ok(*m, &p);
        assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
        assert_string_equal(V(p, SSLMODE), "require");
        rw_params_free(&p);
    }
    parse_ok("sslmode=require requiressl=0x", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_string_equal(V(p, SSLMODE), "prefer");
    rw_params_free(&p);
    setenv("PGREQUIRESSL", "1x", 1);
    parse_ok("", &p);
    assert_int_equal(rw_params_from_env(&p), 0);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_string_equal(V(p, SSLMODE), "require");
    rw_params_free(&p);
    parse_ok("sslmode=disable", &p); /* sslmode given: PGREQUIRESSL is not read */
    assert_int_equal(rw_params_from_env(&p), 0);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_string_equal(V(p, SSLMODE), "disable");
    rw_params_free(&p);
    setenv("PGREQUIRESSL", "0", 1);
    parse_ok("", &p);
    assert_int_equal(rw_params_from_env(&p), 0);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_null(p.v[RW_P_SSLMODE]);
    rw_params_free(&p);
    clear_env();
    for (const char *const *m = (const char *const[]){"disable", "allow", "prefer", "require",
                                                      "verify-ca", "verify-full", NULL};
         *m; m++) {
        char ci[64];
        snprintf(ci, sizeof ci, "sslmode=%s", *m);
        parse_ok(ci, &p);
        assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
        rw_params_free(&p);
    }
}

static void test_targets(void **state)
{
    struct rw_params p;
    struct rw_target *t;
    size_t n;
    char err[256] = "";

    (void)state;
    parse_ok("host=/a,b,c port=1,,3", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(t[0].host, "/a");
    assert_string_equal(t[0].port, "1");
    assert_string_equal(t[1].host, "b");
    assert_string_equal(t[1].port, "5432");
    assert_string_equal(t[2].port, "3");
    rw_targets_free(t, n);
    rw_params_free(&p);

    parse_ok("hostaddr=127.0.0.1 port=5", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(t[0].host, "");
    assert_string_equal(t[0].hostaddr, "127.0.0.1");
    rw_targets_free(t, n);
    rw_params_free(&p);

    parse_ok("host=a,b port=1,2,3", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "3 port numbers to 2 hosts"));
    rw_params_free(&p);

    parse_ok("port=' 5 '", &p); /* libpq's parse_int_param: port 5 */
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), 0);
    assert_string_equal(t[0].port, "5");
    rw_targets_free(t, n);
    rw_params_free(&p);

    parse_ok("port=99999", &p);
    assert_int_equal(rw_params_finish(&p, err, sizeof err), 0);
    assert_int_equal(rw_params_targets(&p, &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid port number"));
    rw_params_free(&p);
}

static void test_passfile(void **state)
{
    char dir[] = "/tmp/rw-pgpass.XXXXXX", path[64];
    const char *why;
    char *pw;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/pgpass", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("# a comment:*:*:*:no\n"
          "short:line\n"
          "localhost:5432:db:bob:local\\:pw\n"
          "/tmp/s:5433:*:bob:socketpw\n"
          "h\\:x:*:*:*:escaped\n"
          "*:*:other:*:star\\\\\n",
          f);
    fclose(f);
    chmod(path, 0600);

    pw = rw_passfile_lookup(path, "", "5432", "db", "bob", &why); /* default socket: localhost */
    assert_string_equal(pw, "local:pw");
    free(pw);
    pw = rw_passfile_lookup(path, RW_DEFAULT_SOCKET_DIR, "5432", "db", "bob", &why);
    assert_string_equal(pw, "local:pw");
    free(pw);
    pw = rw_passfile_lookup(path, "/tmp/s", "5433", "any", "bob", &why);
    assert_string_equal(pw, "socketpw");
    free(pw);
    pw = rw_passfile_lookup(path, "h:x", "1", "d", "u", &why);
    assert_string_equal(pw, "escaped");
    free(pw);
    pw = rw_passfile_lookup(path, "zzz", "1", "other", "u", &why);
    assert_string_equal(pw, "star\\");
    free(pw);
    assert_null(rw_passfile_lookup(path, "zzz", "1", "db", "u", &why));
    assert_null(why);
    assert_null(rw_passfile_lookup(path, "localhost", "5432", "db", "bo", &why)); /* no prefix match */

    chmod(path, 0644);
    assert_null(rw_passfile_lookup(path, "", "5432", "db", "bob", &why));
    assert_non_null(why);
    assert_non_null(strstr(why, "group or world access"));
    assert_null(rw_passfile_lookup(dir, "", "5432", "db", "bob", &why)); /* a directory */
    assert_non_null(why);
    assert_null(rw_passfile_lookup("/nonexistent/pgpass", "", "5432", "db", "bob", &why));
    assert_null(why);
    unlink(path);

    /* libpq's passwordFromFile: the password ends at the next unescaped ':';
     * a line of 4 fields (no ':' after the user) matches nothing, even the
     * last line without a newline; "*" is a wildcard only before a ':' */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("host:5432:db:bob:pass:extra\n"
          "e:1:*:*:a\\:b\\\\c:d\r\n"
          "*x:1:*:*:starx\n"
          "empty:1:*:*:\n"
          "*:*:*:*",
          f);
    fclose(f);
    chmod(path, 0600);
    pw = rw_passfile_lookup(path, "host", "5432", "db", "bob", &why);
    assert_string_equal(pw, "pass");
    free(pw);
    pw = rw_passfile_lookup(path, "e", "1", "d", "u", &why);
    assert_string_equal(pw, "a:b\\c");
    free(pw);
    assert_null(rw_passfile_lookup(path, "zz", "1", "d", "u", &why)); /* "*x" is literal; 4 fields */
    pw = rw_passfile_lookup(path, "*x", "1", "d", "u", &why);
    assert_string_equal(pw, "starx");
    free(pw);
    pw = rw_passfile_lookup(path, "empty", "1", "d", "u", &why);
    assert_string_equal(pw, "");
    free(pw);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv),
        cmocka_unit_test(test_uri),
        cmocka_unit_test(test_env_defaults),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_passfile),
    };
    return cmocka_run_group_tests_name("rawwire_conninfo", tests, setup, NULL);
}
