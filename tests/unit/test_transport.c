/*
 * test_transport.c -- the transports without a server: the words, the part
 * each derives from the server's settings (and why it cannot), what the
 * server's view of a host's connections classifies as, and each group's
 * connection string (connplan.h): [server] conninfo, the transport's part
 * with [server] KEY over it, the suite's conninfo, and the error that names
 * the suite and its transport line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "server/connplan.h"
#include "server/server.h"
#include "server/transport.h"

static struct pgcb_transport_facts facts(const char *listen, const char *sockets, int ssl)
{
    struct pgcb_transport_facts f = {.known = 1, .port = 5433, .ssl = ssl};
    snprintf(f.listen_addresses, sizeof f.listen_addresses, "%s", listen);
    snprintf(f.unix_socket_directories, sizeof f.unix_socket_directories, "%s", sockets);
    return f;
}

static void derived(enum pgcb_transport t, struct pgcb_transport_facts f, const char *want)
{
    char buf[512], why[400] = "";
    assert_int_equal(pgcb_transport_derive(t, &f, buf, sizeof buf, why, sizeof why), 0);
    assert_string_equal(buf, want);
}

static void refused(enum pgcb_transport t, struct pgcb_transport_facts f, const char *want,
                    const char *buf_want)
{
    char buf[512], why[400] = "";
    assert_int_equal(pgcb_transport_derive(t, &f, buf, sizeof buf, why, sizeof why), -1);
    assert_string_equal(why, want);
    assert_string_equal(buf, buf_want);
}

static void test_words(void **state)
{
    (void)state;
    enum pgcb_transport t;
    assert_int_equal(pgcb_transport_parse("tls", &t), 0);
    assert_int_equal(t, PGCB_TRANSPORT_TLS);
    assert_string_equal(pgcb_transport_name(PGCB_TRANSPORT_UNIX), "unix");
    assert_int_equal(pgcb_transport_parse("TCP", &t), -1);
    assert_int_equal(pgcb_transport_parse("", &t), -1);
    assert_int_equal(pgcb_transport_parse("carrier_pigeon", &t), -1);
}

static void test_derive(void **state)
{
    (void)state;
    derived(PGCB_TRANSPORT_UNIX, facts("", " /tmp/s , /var/run/postgresql", 0),
            "host=/tmp/s port=5433");
    derived(PGCB_TRANSPORT_TCP, facts("*", "/tmp", 0),
            "host=127.0.0.1 port=5433 sslmode=disable");
    derived(PGCB_TRANSPORT_TCP, facts("0.0.0.0, ::", "/tmp", 0),
            "host=127.0.0.1 port=5433 sslmode=disable");
    derived(PGCB_TRANSPORT_TLS, facts("::", "/tmp", 1), "host=::1 port=5433 sslmode=require");
    derived(PGCB_TRANSPORT_TLS, facts("localhost,10.0.0.1", "", 1),
            "host=localhost port=5433 sslmode=require");
    refused(PGCB_TRANSPORT_TCP, facts("", "/tmp", 1),
            "the server does not listen on TCP (listen_addresses is empty): start it with "
            "scripts/pgserver.sh --tcp, or set [server] tcp", "");
    refused(PGCB_TRANSPORT_TLS, facts("127.0.0.1", "/tmp", 0),
            "the server has ssl = off: start it with scripts/pgserver.sh --ssl, or set "
            "[server] tls", "host=127.0.0.1 port=5433 sslmode=require");
    refused(PGCB_TRANSPORT_UNIX, facts("*", "", 0),
            "the server has no unix socket (unix_socket_directories is empty): set [server] "
            "unix", "");
    refused(PGCB_TRANSPORT_UNIX, facts("*", "/tmp/a b", 0),
            "the server's unix_socket_directories entry '/tmp/a b' cannot be used as a host "
            "here: set [server] unix", "");
    struct pgcb_transport_facts unknown = {0};
    refused(PGCB_TRANSPORT_TCP, unknown,
            "the server's settings (port, listen_addresses, unix_socket_directories, ssl) could "
            "not be read: set [server] tcp", "");
}

static void test_classify(void **state)
{
    (void)state;
    struct pgcb_transport_seen s;
    struct pgcb_transport_conn c[3] = {
        {.pid = 11, .ssl = 1, .client_port = 40000, .bits = 256, .version = "TLSv1.3",
         .cipher = "TLS_AES_256_GCM_SHA384", .client_addr = "127.0.0.1"},
        {.pid = 12, .ssl = 1, .client_port = 40001, .bits = 256, .version = "TLSv1.3",
         .cipher = "TLS_AES_256_GCM_SHA384", .client_addr = "127.0.0.1"},
        {.pid = 13, .ssl = 0, .client_port = 40002, .client_addr = "127.0.0.1"},
    };
    pgcb_transport_classify(c, 2, &s);
    assert_true(s.recorded);
    assert_string_equal(s.seen, "tls");
    assert_string_equal(s.version, "TLSv1.3");
    assert_int_equal(s.bits, 256);
    assert_string_equal(s.why, "");
    pgcb_transport_classify(c + 2, 1, &s);
    assert_string_equal(s.seen, "tcp");
    assert_string_equal(s.client_addr, "127.0.0.1");
    pgcb_transport_classify(c, 3, &s);
    assert_string_equal(s.seen, "mixed");
    assert_string_equal(s.why, "backend 11: tls, backend 13: tcp");
    struct pgcb_transport_conn sock = {.pid = 20, .ssl = 0, .client_port = -1};
    pgcb_transport_classify(&sock, 1, &s);
    assert_string_equal(s.seen, "unix");
    struct pgcb_transport_conn hidden = {.pid = 21, .ssl = -1, .client_port = -1};
    pgcb_transport_classify(&hidden, 1, &s);
    assert_string_equal(s.seen, "unknown");
    assert_non_null(strstr(s.why, "pg_read_all_stats"));
    pgcb_transport_classify(c, 0, &s);
    assert_string_equal(s.seen, "unknown");
}

/* A config file in a temporary directory, loaded. */
static void load(const char *text, struct pgcb_config *cfg, char *path, size_t n)
{
    snprintf(path, n, "/tmp/pgcb_test_transport_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char err[512];
    unsetenv("PGCB_CONNINFO");
    int rc = pgcb_config_load(path, cfg, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
}

#define HEAD "[driver.d]\npath = d.so\n[query.q]\nsql = SELECT 1\n"

static void test_plan(void **state)
{
    (void)state;
    char path[64], err[512];
    struct pgcb_config cfg;
    load("[server]\nconninfo = user=bob host=/elsewhere\ntls = sslmode=verify-full\n" HEAD
         "[suite.plain]\n"
         "[suite.mine]\nconninfo = user=pgcb_md5\n"
         "[suite.net]\ntransport = tls unix\nconninfo = application_name=x\n",
         &cfg, path, sizeof path);
    struct pgcb_server_info si = {.transport = facts("*", "/tmp/s", 1)};
    struct pgcb_connplan p = {0};
    assert_int_equal(pgcb_connplan_build(&p, &cfg, &si, err, sizeof err), 0);
    /* As given: the very string. */
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 0, -1), "user=bob host=/elsewhere");
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 1, -1), "user='pgcb_md5' host='/elsewhere'");
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 2, PGCB_TRANSPORT_TLS),
                        "user='bob' host='127.0.0.1' port='5433' application_name='x' "
                        "sslmode='verify-full'");
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 2, PGCB_TRANSPORT_UNIX),
                        "user='bob' host='/tmp/s' port='5433' application_name='x'");
    /* No such group: the run's. */
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 2, PGCB_TRANSPORT_TCP),
                        "user=bob host=/elsewhere");
    assert_string_equal(pgcb_connplan_first(&p, &cfg), "user=bob host=/elsewhere");
    pgcb_connplan_free(&p);

    /* ssl = off with [server] tls set: tried; without it: the suite's line. */
    si.transport.ssl = 0;
    assert_int_equal(pgcb_connplan_build(&p, &cfg, &si, err, sizeof err), 0);
    pgcb_connplan_free(&p);
    pgcb_config_free(&cfg);
    unlink(path);
    load(HEAD "[suite.a]\n[suite.net]\ndepth = 1\ntransport = unix tls\n", &cfg, path,
         sizeof path);
    assert_int_equal(pgcb_connplan_build(&p, &cfg, &si, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s:8: [suite.net] transport = tls: the server has ssl = off: "
             "start it with scripts/pgserver.sh --ssl, or set [server] tls", path);
    assert_string_equal(err, want);
    pgcb_connplan_free(&p);
    /* No server needed (no I/O): nothing is derived, nothing refused. */
    assert_int_equal(pgcb_connplan_build(&p, &cfg, NULL, err, sizeof err), 0);
    assert_string_equal(pgcb_connplan_get(&p, &cfg, 1, PGCB_TRANSPORT_TLS), "");
    pgcb_connplan_free(&p);
    pgcb_config_free(&cfg);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_derive),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
