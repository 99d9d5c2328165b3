/*
 * test_rawwire_tls_fake.c -- rawwire's SSLRequest and handshake against a
 * scripted fake server on a loopback TCP port (TLS is never tried over a
 * unix socket): what a real server never sends. Each case is one clear
 * error line, never a clear-text fallback that sslmode forbids and never a
 * password or StartupMessage sent before the mode allows it (the fake
 * reports, by its exit status, whether anything came after its answer).
 *
 *   - SSLRequest answered with a byte that is neither S nor N;
 *   - answered with an ErrorResponse (a server that fails before TLS);
 *   - the connection closed instead of an answer;
 *   - S, then the connection closed (the handshake broken off): require
 *     fails; prefer retries on a new connection in clear text, as libpq;
 *   - S followed by clear-text bytes (a man in the middle's injection):
 *     not taken as the server's, the handshake fails;
 *   - N under require: refused, nothing sent after the answer.
 *
 * The fake is a forked child that serves one or two connections.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgcb/driver.h"

/* rawwire.c, linked in (its descriptor is the driver under test). */
const struct pgcb_driver *pgcb_driver_entry(void);

#define FAKE_PASSWORD "pgcb-tls-fake-pw"

/* What the fake answers to SSLRequest. */
struct tls_script {
    const char *name;
    const char *answer;   /* bytes sent after reading SSLRequest (NULL: close) */
    size_t answer_len;
    int second;           /* serve a second connection: expect a StartupMessage, refuse it */
};

/* Exit statuses of the fake (the parent asserts them). */
enum { FAKE_OK = 0, FAKE_NO_SSLREQUEST = 20, FAKE_GOT_MORE = 21, FAKE_SECOND_NOT_STARTUP = 22,
       FAKE_NO_SECOND = 23 };

static int read_full(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = read(fd, c, n);
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* After the answer: anything the client sends is wrong unless the answer
 * was S (then TLS records may come: a ClientHello). */
static int drain_nothing(int fd, int tls_expected)
{
    char buf[4096];
    ssize_t k;
    int got = 0;

    while ((k = read(fd, buf, sizeof buf)) > 0)
        got = 1;
    return got && !tls_expected ? FAKE_GOT_MORE : FAKE_OK;
}

static int serve(int lfd, const struct tls_script *s)
{
    static const unsigned char req[8] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f};
    /* ErrorResponse: 28000, "fake: clear text ok" */
    static const char refuse[] = "E\0\0\0\x2dSFATAL\0C28000\0Mfake: clear text reached\0\0";
    unsigned char got[8];
    int fd = accept(lfd, NULL, NULL), rc;

    if (fd < 0 || read_full(fd, got, 8) || memcmp(got, req, 8) != 0)
        return FAKE_NO_SSLREQUEST;
    if (s->answer)
        (void)!write(fd, s->answer, s->answer_len);
    if (s->answer && s->answer[0] == 'S' && s->answer_len == 1)
        close(fd); /* the handshake broken off */
    else if (!s->answer)
        close(fd);
    else {
        shutdown(fd, SHUT_WR);
        rc = drain_nothing(fd, s->answer[0] == 'S');
        close(fd);
        if (rc != FAKE_OK)
            return rc;
    }
    if (s->second) {
        unsigned char h[8];
        fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            return FAKE_NO_SECOND;
        /* a StartupMessage: length, then protocol 3.0 (196608), not SSLRequest */
        if (read_full(fd, h, 8) || h[4] != 0 || h[5] != 3 || h[6] != 0 || h[7] != 0)
            return FAKE_SECOND_NOT_STARTUP;
        {   /* the rest of it, so that closing sends no RST before the refusal is read */
            uint32_t len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
            char rest[1024];
            if (len < 8 || len - 8 > sizeof rest || read_full(fd, rest, len - 8))
                return FAKE_SECOND_NOT_STARTUP;
        }
        (void)!write(fd, refuse, sizeof refuse - 1);
        shutdown(fd, SHUT_WR);
        (void)drain_nothing(fd, 1); /* until the client closes */
        close(fd);
    }
    return FAKE_OK;
}

/* Open with sslmode `mode` against a fake running script s; expect rc
 * PGCB_ERR_CONNECT, a one-line message containing `part`, no password in
 * it, and the fake's exit status `want_status`. */
static void tls_case(const struct tls_script *s, const char *mode, const char *part, int want_status)
{
    const struct pgcb_driver *d = pgcb_driver_entry();
    struct sockaddr_in sin;
    socklen_t sl = sizeof sin;
    struct pgcb_conn *c = NULL;
    char conninfo[256], err[PGCB_ERRLEN] = "";
    int lfd = socket(AF_INET, SOCK_STREAM, 0), status = 0, rc;
    pid_t pid;

    assert_true(lfd >= 0);
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof sin), 0); /* port 0: a free one */
    assert_int_equal(listen(lfd, 2), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
    snprintf(conninfo, sizeof conninfo,
             "host=127.0.0.1 port=%u user=u dbname=d password=" FAKE_PASSWORD
             " sslmode=%s connect_timeout=10", ntohs(sin.sin_port), mode);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        _exit(serve(lfd, s));
    }
    close(lfd);
    rc = d->open(conninfo, NULL, 0, &c, err, sizeof err);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (rc != PGCB_ERR_CONNECT || !strstr(err, part) || !WIFEXITED(status) ||
        WEXITSTATUS(status) != want_status)
        print_error("%s (sslmode=%s): open %d \"%s\", fake status %d; wanted %d, \"%s\", %d\n",
                    s->name, mode, rc, err, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                    PGCB_ERR_CONNECT, part, want_status);
    assert_int_equal(rc, PGCB_ERR_CONNECT);
    assert_null(c);
    assert_non_null(strstr(err, part));
    assert_null(strchr(err, '\n'));
    assert_null(strstr(err, FAKE_PASSWORD));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), want_status);
}

static void test_garbage_answer(void **state)
{
    static const struct tls_script s = {"garbage answer", "X", 1, 0};
    (void)state;
    tls_case(&s, "require", "received invalid response to SSL negotiation: 0x58", FAKE_OK);
    tls_case(&s, "prefer", "received invalid response to SSL negotiation", FAKE_OK);
}

static void test_error_answer(void **state)
{
    static const char e[] = "E\0\0\0\x2cSFATAL\0C53300\0Msorry, too many clients\0\0";
    static const struct tls_script s = {"error answer", e, sizeof e - 1, 0};
    (void)state;
    tls_case(&s, "require", "the server answered SSLRequest with an error: 53300: sorry, too many "
                            "clients", FAKE_OK);
}

static void test_closed_before_answer(void **state)
{
    static const struct tls_script s = {"closed before the answer", NULL, 0, 0};
    (void)state;
    tls_case(&s, "require", "server closed the connection unexpectedly", FAKE_OK);
}

static void test_handshake_broken_off(void **state)
{
    static const struct tls_script req = {"handshake broken off", "S", 1, 0};
    static const struct tls_script pref = {"handshake broken off, prefer", "S", 1, 1};
    (void)state;
    /* EOF, or a reset when the ClientHello was still unread: either way one line */
    tls_case(&req, "require", "SSL SYSCALL error", FAKE_OK);
    tls_case(&req, "verify-full", "root certificate file", FAKE_OK); /* checked before any byte */
    /* prefer: a new connection in clear text, as libpq (the fake refuses it) */
    tls_case(&pref, "prefer", "fake: clear text reached", FAKE_OK);
}

static void test_injected_after_answer(void **state)
{
    static const char inj[] = "SZ\0\0\0\x05I"; /* S, then a clear-text ReadyForQuery */
    static const struct tls_script s = {"clear text after S", inj, sizeof inj - 1, 0};
    (void)state;
    tls_case(&s, "require", "SSL error", FAKE_OK);
}

static void test_no_tls_under_require(void **state)
{
    static const struct tls_script s = {"N under require", "N", 1, 0};
    (void)state;
    tls_case(&s, "require", "server does not support SSL, but SSL was required", FAKE_OK);
    tls_case(&s, "verify-ca", "server does not support SSL, but SSL was required", FAKE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_garbage_answer),        cmocka_unit_test(test_error_answer),
        cmocka_unit_test(test_closed_before_answer),  cmocka_unit_test(test_handshake_broken_off),
        cmocka_unit_test(test_injected_after_answer), cmocka_unit_test(test_no_tls_under_require),
    };
    setenv("HOME", "/nonexistent-pgcb-home", 1); /* no ~/.postgresql of the caller's */
    /* Nor the caller's PGSSL* variables (a shell that ran pgserver.sh --ssl's
     * export line has PGSSLROOTCERT): the cases give every key they need. */
    static const char *const vars[] = {"PGSSLMODE", "PGSSLROOTCERT", "PGSSLCERT", "PGSSLKEY",
                                       "PGSSLCRL", "PGSSLCRLDIR", "PGSSLSNI", "PGREQUIRESSL",
                                       NULL};
    for (size_t i = 0; vars[i]; i++)
        unsetenv(vars[i]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
