/*
 * test_rawwire_fake.c -- rawwire against a scripted fake server that sends
 * what a real one never would: truncated messages, lengths < 4 and > 1 GiB,
 * unknown message types, a DataRow with the wrong column count or a field
 * past its message's end, an ErrorResponse in the middle of a batch, a FATAL
 * then EOF, bad startup replies. Each must end in one clean error (and the
 * connection marked broken where it must be), with no crash, no hang and no
 * read past a buffer (this test also runs in the ASan build).
 *
 * The fake server is a forked child listening on a unix socket in a
 * temporary directory, so the driver runs its real code path: conninfo
 * host=DIR port=5432, connect, startup, prepare, run_batch. The driver's
 * objects and lib/pgwire are linked in (Makefile: TEST_OBJS_test_rawwire_fake).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgcb/driver.h"
#include "pgwire/rw_conn.h"
#include "pgwire/rw_err.h"
#include "pgwire/rw_prepare.h"
#include "pgwire/rw_scram.h"

/* rawwire.c, linked in (its descriptor is the driver under test). */
const struct pgcb_driver *pgcb_driver_entry(void);

/* The password of every fake connection. An error must never quote it; it
 * has a '-', which mkdtemp's random part (the socket's folder, which errors
 * do quote) never has, so it cannot appear there by chance. */
#define FAKE_PASSWORD "pgcb-fake-pw"

/* ---- the fake server (runs in the child: no cmocka there) ---------------- */

static int srv_read_full(int fd, void *p, size_t n)
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

static void srv_send(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(fd, c, n);
        if (k <= 0)
            _exit(3);
        c += k;
        n -= (size_t)k;
    }
}

/* One frontend message: type and body (malloc'd, NUL-terminated). */
static int srv_read_msg(int fd, char *type, char **body, uint32_t *n)
{
    unsigned char h[5];
    uint32_t len;

    if (srv_read_full(fd, h, 5))
        return -1;
    len = rw_be32(h + 1);
    if (len < 4 || len > (1u << 20))
        _exit(4);
    *type = (char)h[0];
    *n = len - 4;
    *body = malloc(*n + 1);
    if (!*body || srv_read_full(fd, *body, *n))
        _exit(5);
    (*body)[*n] = '\0';
    return 0;
}

/* Read messages until `syncs` Sync messages came. */
static int srv_until_syncs(int fd, int syncs)
{
    while (syncs > 0) {
        char type, *body;
        uint32_t n;
        if (srv_read_msg(fd, &type, &body, &n))
            return -1;
        free(body);
        if (type == 'S')
            syncs--;
    }
    return 0;
}

static const unsigned char auth_ok[] = {'R', 0, 0, 0, 8, 0, 0, 0, 0};
static const unsigned char hello_rest[] = {
    'S', 0, 0, 0, 22, 's', 'e', 'r', 'v', 'e', 'r', '_', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0, '1', '5', 0,
    'K', 0, 0, 0, 12, 0, 0, 0, 42, 0, 0, 0, 7,
    'N', 0, 0, 0, 13, 'S', 'N', 'O', 'T', 'I', 'C', 'E', 0, 0,
    'Z', 0, 0, 0, 5, 'I',
};
/* Replies to Parse/Describe/Sync: 3 columns int4, text, bool. */
static const unsigned char prepared[] = {
    '1', 0, 0, 0, 4,
    't', 0, 0, 0, 6, 0, 0,
    'T', 0, 0, 0, 66, 0, 3,
    'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 4, 0xff, 0xff, 0xff, 0xff, 0, 0,
    'b', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,
    'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0,
    'Z', 0, 0, 0, 5, 'I',
};
/* One good execution: a row (7, 'wat', true). */
#define GOOD_QUERY                                                                                   \
    '2', 0, 0, 0, 4,                                                                                 \
    'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 1,        \
    'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0,                                    \
    'Z', 0, 0, 0, 5, 'I'
static const unsigned char good1[] = {GOOD_QUERY};

/* What a scenario's server does. */
struct script {
    const char *name;
    /* startup: auth request sent instead of AuthenticationOk (NULL: Ok) */
    const unsigned char *auth;
    size_t auth_len;
    const char *want_password; /* the 'p' message body expected after `auth` */
    /* SCRAM: after `auth` (an AuthenticationSASL), read the client-first
     * message and answer AuthenticationSASLContinue with this format, its
     * %s the client's nonce; "HUGE": a header claiming ~1 GiB instead */
    const char *sasl_first;
    int delay_ms;              /* sleep before answering the client-first message */
    int connect_timeout;       /* the conninfo's (0: 10) */
    int no_prepare;            /* stop after startup */
    /* the batch: reply after `depth` Syncs */
    int depth;
    const unsigned char *reply;
    size_t reply_len;
    int close_after;           /* close right after the reply */
    int second_batch;          /* then serve one good execution */
    int syncs;                 /* Syncs the batch sends (0: depth; 1 with sync = per_batch) */
    const struct pgcb_option *opts; /* the driver's options (NULL: binary_once) */
    size_t nopts;
};

/* Read SASLInitialResponse; send AuthenticationSASLContinue per `fmt`. */
static void srv_sasl_first(int fd, const char *fmt, int delay_ms)
{
    static const unsigned char huge[] = {'R', 0x3f, 0xff, 0xff, 0xf0, 0, 0, 0, 11};
    char type, *body, *msg, *r;
    uint32_t n;
    size_t len;

    if (srv_read_msg(fd, &type, &body, &n) || type != 'p' || n < 20)
        _exit(9);
    if (delay_ms)
        usleep((useconds_t)delay_ms * 1000);
    if (strcmp(fmt, "HUGE") == 0) {
        srv_send(fd, huge, sizeof huge);
        free(body);
        return;
    }
    r = memmem(body + 18, n - 18, "r=", 2); /* after "SCRAM-SHA-256\0", len */
    if (!r)
        _exit(10);
    len = strlen(fmt) + n + 16;
    if (!(msg = malloc(len)))
        _exit(11);
    n = (uint32_t)snprintf(msg + 9, len - 9, fmt, r + 2);
    msg[0] = 'R';
    msg[1] = (char)((n + 8) >> 24);
    msg[2] = (char)((n + 8) >> 16);
    msg[3] = (char)((n + 8) >> 8);
    msg[4] = (char)(n + 8);
    memcpy(msg + 5, "\0\0\0\x0b", 4);
    srv_send(fd, msg, n + 9);
    free(msg);
    free(body);
}

static void srv_run(int fd, const struct script *s)
{
    unsigned char h[4];
    char *body;
    uint32_t len;

    if (srv_read_full(fd, h, 4))
        _exit(6);
    len = rw_be32(h);
    body = malloc(len);
    if (!body || len < 8 || srv_read_full(fd, body, len - 4))
        _exit(7);
    free(body);
    if (s->auth) {
        srv_send(fd, s->auth, s->auth_len);
        if (s->sasl_first) {
            srv_sasl_first(fd, s->sasl_first, s->delay_ms);
            goto drain;
        }
        if (s->want_password) {
            char type;
            uint32_t n;
            if (srv_read_msg(fd, &type, &body, &n) || type != 'p' || strcmp(body, s->want_password) != 0)
                _exit(8); /* the client sees EOF and fails the test */
            free(body);
        } else {
            goto drain;
        }
    }
    srv_send(fd, auth_ok, sizeof auth_ok);
    srv_send(fd, hello_rest, sizeof hello_rest);
    if (s->no_prepare)
        goto drain;
    if (srv_until_syncs(fd, 1))
        _exit(0);
    srv_send(fd, prepared, sizeof prepared);
    if (srv_until_syncs(fd, s->syncs ? s->syncs : s->depth))
        _exit(0);
    srv_send(fd, s->reply, s->reply_len);
    if (s->close_after)
        _exit(0);
    if (s->second_batch) {
        if (srv_until_syncs(fd, 1))
            _exit(0);
        srv_send(fd, good1, sizeof good1);
    }
drain: /* until the client closes */
    for (;;) {
        char buf[512];
        if (read(fd, buf, sizeof buf) <= 0)
            _exit(0);
    }
}

struct fake {
    char dir[32];
    char sock[64];
    char conninfo[160];
    pid_t pid;
};

static void fake_start(struct fake *f, const struct script *s)
{
    struct sockaddr_un sun;
    int lfd;

    strcpy(f->dir, "/tmp/rw-fake.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->sock, sizeof f->sock, "%s/.s.PGSQL.5432", f->dir);
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    strcpy(sun.sun_path, f->sock);
    lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof sun), 0);
    assert_int_equal(listen(lfd, 1), 0);
    snprintf(f->conninfo, sizeof f->conninfo,
             "host=%s port=5432 user=u dbname=d password=" FAKE_PASSWORD " connect_timeout=%d", f->dir,
             s->connect_timeout ? s->connect_timeout : 10);
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0) {
        int fd = accept(lfd, NULL, NULL);
        alarm(20);
        if (fd < 0)
            _exit(2);
        close(lfd);
        srv_run(fd, s);
        _exit(0);
    }
    close(lfd);
}

static void fake_stop(struct fake *f)
{
    int status = 0;

    assert_int_equal(waitpid(f->pid, &status, 0), f->pid);
    unlink(f->sock);
    rmdir(f->dir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        print_error("fake server exited with status %d\n", status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- scenarios ----------------------------------------------------------- */

/* The scripts' replies have no RowDescription per execution: describe once. */
static const struct pgcb_option binary[] = {{"result_format", "binary"}, {"describe", "once"}};

static void assert_one_line(const char *err)
{
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
}

/* Connect, prepare, run one batch of s->depth; expect rc and `part`. */
static void batch_case(const struct script *s, int want_rc, const char *part)
{
    const struct pgcb_driver *d = pgcb_driver_entry();
    struct fake f;
    struct pgcb_conn *c = NULL;
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum sum = {0, 0};
    char err[PGCB_ERRLEN] = "";
    int rc;

    fake_start(&f, s);
    rc = s->opts ? d->open(f.conninfo, s->opts, s->nopts, &c, err, sizeof err)
                 : d->open(f.conninfo, binary, 2, &c, err, sizeof err);
    if (rc != PGCB_OK)
        print_error("%s: open: %s\n", s->name, err);
    assert_int_equal(rc, PGCB_OK);
    assert_int_equal(d->prepare(c, "s", "SELECT", &st, err, sizeof err), PGCB_OK);
    rc = d->run_batch(c, st, (uint32_t)s->depth, &sum, err, sizeof err);
    if (rc != want_rc || !strstr(err, part))
        print_error("%s: run_batch %d \"%s\"; wanted %d and \"%s\"\n", s->name, rc, err, want_rc, part);
    assert_int_equal(rc, want_rc);
    assert_one_line(err);
    assert_non_null(strstr(err, part));
    if ((want_rc == PGCB_ERR_QUERY || want_rc == PGCB_ERR_PROTOCOL) && s->second_batch) {
        /* usable: one good execution */
        struct pgcb_sum want = {0, 0};
        pgcb_sum_int(&want, 7);
        pgcb_sum_text(&want, "wat", 3);
        pgcb_sum_bool(&want, 1);
        pgcb_sum_row(&want);
        memset(&sum, 0, sizeof sum);
        assert_int_equal(d->run_batch(c, st, 1, &sum, err, sizeof err), PGCB_OK);
        assert_true(sum.hash == want.hash && sum.rows == 1);
    } else if (want_rc == PGCB_ERR_IO || want_rc == PGCB_ERR_PROTOCOL) {
        /* broken: refused without touching the socket */
        assert_int_equal(d->run_batch(c, st, 1, &sum, err, sizeof err), PGCB_ERR_IO);
        assert_non_null(strstr(err, "broken"));
    }
    d->close(c);
    fake_stop(&f);
}

/* Connect, prepare, run one batch of s->depth; expect PGCB_OK and `rows`
 * rows of (7, 'wat', true). */
static void batch_case_ok(const struct script *s, uint64_t rows)
{
    const struct pgcb_driver *d = pgcb_driver_entry();
    struct fake f;
    struct pgcb_conn *c = NULL;
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum sum = {0, 0}, want = {0, 0};
    char err[PGCB_ERRLEN] = "";

    for (uint64_t i = 0; i < rows; i++) {
        pgcb_sum_int(&want, 7);
        pgcb_sum_text(&want, "wat", 3);
        pgcb_sum_bool(&want, 1);
        pgcb_sum_row(&want);
    }
    fake_start(&f, s);
    assert_int_equal(d->open(f.conninfo, s->opts, s->nopts, &c, err, sizeof err), PGCB_OK);
    assert_int_equal(d->prepare(c, "s", "SELECT", &st, err, sizeof err), PGCB_OK);
    int rc = d->run_batch(c, st, (uint32_t)s->depth, &sum, err, sizeof err);
    if (rc != PGCB_OK)
        print_error("%s: run_batch %d \"%s\"\n", s->name, rc, err);
    assert_int_equal(rc, PGCB_OK);
    assert_int_equal(sum.rows, rows);
    assert_true(sum.hash == want.hash);
    d->close(c);
    fake_stop(&f);
}

#define SCRIPT(nm, dep, ...)                                            \
    static const unsigned char nm##_reply[] = {__VA_ARGS__};          \
    struct script nm = {.name = #nm, .depth = dep, .reply = nm##_reply, \
                        .reply_len = sizeof nm##_reply}

static void test_good_batch(void **state)
{
    SCRIPT(good, 3, GOOD_QUERY, GOOD_QUERY, GOOD_QUERY);
    const struct pgcb_driver *d = pgcb_driver_entry();
    struct fake f;
    struct pgcb_conn *c = NULL;
    struct pgcb_stmt *st = NULL;
    struct pgcb_sum sum = {0, 0};
    char err[PGCB_ERRLEN] = "";

    (void)state;
    fake_start(&f, &good);
    assert_int_equal(d->open(f.conninfo, binary, 2, &c, err, sizeof err), PGCB_OK);
    assert_int_equal(c->be_pid, 42);
    assert_int_equal(d->prepare(c, "s", "SELECT", &st, err, sizeof err), PGCB_OK);
    assert_int_equal(st->ncols, 3);
    assert_int_equal(d->run_batch(c, st, 3, &sum, err, sizeof err), PGCB_OK);
    assert_int_equal(sum.rows, 3);
    d->close(c);
    fake_stop(&f);
}

static void test_truncated(void **state)
{
    SCRIPT(truncated, 1, '2', 0, 0, 0, 4, 'D', 0, 0, 0, 100, 0, 3, 0, 0, 0, 4, 0, 0);
    (void)state;
    truncated.close_after = 1;
    batch_case(&truncated, PGCB_ERR_IO, "server closed the connection unexpectedly");
}

static void test_eof_between_messages(void **state)
{
    SCRIPT(eof, 2, GOOD_QUERY, '2', 0, 0, 0, 4);
    (void)state;
    eof.close_after = 1;
    batch_case(&eof, PGCB_ERR_IO, "server closed the connection unexpectedly");
}

static void test_length_below_4(void **state)
{
    SCRIPT(short_len, 1, '2', 0, 0, 0, 4, 'C', 0, 0, 0, 3, 0, 0, 0, 0);
    (void)state;
    batch_case(&short_len, PGCB_ERR_PROTOCOL, "invalid message length 3");
}

static void test_length_above_1gib(void **state)
{
    /* The driver must neither allocate 1 GiB nor wait for it. */
    SCRIPT(huge, 1, '2', 0, 0, 0, 4, 'D', 0x40, 0, 0, 0, 0, 3);
    (void)state;
    batch_case(&huge, PGCB_ERR_PROTOCOL, "invalid message length 1073741824");
}

/* A CommandComplete claiming ~1 GiB (under the 1 GiB cap, over libpq's
 * 30000 for a type that is not a long one): refused before the buffer grows. */
static void test_short_type_too_long(void **state)
{
    SCRIPT(bigc, 1, '2', 0, 0, 0, 4,
           'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 1,
           'C', 0x3f, 0xff, 0xff, 0xf0, 'S');
    (void)state;
    batch_case(&bigc, PGCB_ERR_PROTOCOL, "invalid length 1073741808 for a message of type 0x43");
}

static void test_unknown_type(void **state)
{
    SCRIPT(unknown, 1, '2', 0, 0, 0, 4, 0x7e, 0, 0, 0, 4, 'Z', 0, 0, 0, 5, 'I');
    (void)state;
    batch_case(&unknown, PGCB_ERR_PROTOCOL, "unexpected message type '~'");
}

static void test_wrong_column_count(void **state)
{
    SCRIPT(cols, 1, '2', 0, 0, 0, 4, 'D', 0, 0, 0, 14, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7,
           'C', 0, 0, 0, 5, 0, 'Z', 0, 0, 0, 5, 'I');
    (void)state;
    batch_case(&cols, PGCB_ERR_PROTOCOL, "DataRow with 1 columns; the statement was described with 3");
}

static void test_field_past_end(void **state)
{
    /* the text field says 200 bytes; the message holds 3 */
    SCRIPT(past, 1, '2', 0, 0, 0, 4,
           'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 200, 'w', 'a', 't', 0, 0, 0, 1, 1,
           'C', 0, 0, 0, 5, 0, 'Z', 0, 0, 0, 5, 'I');
    (void)state;
    batch_case(&past, PGCB_ERR_PROTOCOL, "past the end of its message");
}

static void test_bad_value(void **state)
{
    SCRIPT(badval, 1, '2', 0, 0, 0, 4,
           'D', 0, 0, 0, 25, 0, 3, 0, 0, 0, 3, 0, 0, 7, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 1,
           'C', 0, 0, 0, 5, 0, 'Z', 0, 0, 0, 5, 'I');
    (void)state;
    /* a value, not the framing: the replies are read to their end, and the
     * connection runs the next batch */
    badval.second_batch = 1;
    batch_case(&badval, PGCB_ERR_PROTOCOL, "row 1 column 1: malformed binary int4 value (3 bytes)");
}

static void test_error_mid_batch(void **state)
{
    SCRIPT(midbatch, 3, GOOD_QUERY,
           'E', 0, 0, 0, 25, 'S', 'E', 'R', 'R', 'O', 'R', 0, 'C', 'X', 'X', '0', '0', '0', 0,
           'M', 'b', 'o', 'o', 'm', 0, 0, 'Z', 0, 0, 0, 5, 'I', GOOD_QUERY);
    (void)state;
    midbatch.second_batch = 1;
    batch_case(&midbatch, PGCB_ERR_QUERY, "XX000: boom (query 2 of 3 in the batch)");
}

static void test_fatal_then_eof(void **state)
{
    SCRIPT(fatal, 2, GOOD_QUERY,
           'E', 0, 0, 0, 43, 'S', 'F', 'A', 'T', 'A', 'L', 0, 'C', '5', '7', 'P', '0', '1', 0,
           'M', 't', 'e', 'r', 'm', 'i', 'n', 'a', 't', 'i', 'n', 'g', ' ', 'c', 'o', 'n', 'n', 'e',
           'c', 't', 'i', 'o', 'n', 0, 0);
    (void)state;
    fatal.close_after = 1;
    batch_case(&fatal, PGCB_ERR_IO, "57P01: terminating connection (query 2 of 2 in the batch); "
                                    "the server ends the session (FATAL)");
}

/* A FATAL breaks the connection at once, before the server's EOF: this
 * server keeps the socket open (until its alarm, 20 s). */
static void test_fatal_before_eof(void **state)
{
    SCRIPT(fatal_open, 2, GOOD_QUERY,
           'E', 0, 0, 0, 43, 'S', 'F', 'A', 'T', 'A', 'L', 0, 'C', '5', '7', 'P', '0', '1', 0,
           'M', 't', 'e', 'r', 'm', 'i', 'n', 'a', 't', 'i', 'n', 'g', ' ', 'c', 'o', 'n', 'n', 'e',
           'c', 't', 'i', 'o', 'n', 0, 0);
    struct timespec t0, t1;
    (void)state;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    batch_case(&fatal_open, PGCB_ERR_IO, "57P01: terminating connection (query 2 of 2 in the "
                                         "batch); the server ends the session (FATAL)");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 5);
}

/* An out-of-memory error in the middle of an exchange (the read buffer
 * could not grow) leaves replies unread: the connection is broken. */
static void test_nomem_breaks(void **state)
{
    struct pgcb_conn *c = calloc(1, sizeof *c);
    char err[PGCB_ERRLEN] = "out of memory (a 99-byte message)";

    (void)state;
    assert_non_null(c);
    assert_int_equal(rw_conn_batch_end(c, PGCB_ERR_NOMEM, NULL, err, sizeof err), PGCB_ERR_NOMEM);
    assert_true(c->broken);
    free(c);
}

/* The statement's RowDescription again, as a Describe of the portal gets it. */
#define DESC_T                                                                                      \
    'T', 0, 0, 0, 66, 0, 3,                                                                         \
    'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 4, 0xff, 0xff, 0xff, 0xff, 0, 1,                      \
    'b', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,                \
    'c', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 1
#define GOOD_ROW_C                                                                                  \
    'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 1,        \
    'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0
#define BIND_C '2', 0, 0, 0, 4
#define READY 'Z', 0, 0, 0, 5, 'I'
#define BOOM_ERROR                                                                                  \
    'E', 0, 0, 0, 25, 'S', 'E', 'R', 'R', 'O', 'R', 0, 'C', 'X', 'X', '0', '0', '0', 0,             \
    'M', 'b', 'o', 'o', 'm', 0, 0

static const struct pgcb_option describe_each[] = {{"result_format", "binary"},
                                                   {"describe", "per_execution"}};
static const struct pgcb_option per_batch[] = {{"result_format", "binary"}, {"describe", "once"},
                                               {"sync", "per_batch"}};

/* describe = per_execution (the default): a RowDescription after each
 * BindComplete, checked against the statement's column count. */
static void test_describe_each(void **state)
{
    SCRIPT(desc, 2, BIND_C, DESC_T, GOOD_ROW_C, READY, BIND_C, DESC_T, GOOD_ROW_C, READY);
    SCRIPT(nodesc, 1, BIND_C, GOOD_ROW_C, READY);
    SCRIPT(desc2, 1, BIND_C, 'T', 0, 0, 0, 6, 0, 1, GOOD_ROW_C, READY);
    (void)state;
    desc.opts = nodesc.opts = desc2.opts = describe_each;
    desc.nopts = nodesc.nopts = desc2.nopts = 2;
    desc.second_batch = 0;
    batch_case_ok(&desc, 2);
    batch_case(&nodesc, PGCB_ERR_PROTOCOL, "unexpected message type 'D' in query 1 of the batch "
                                           "(expecting RowDescription or NoData)");
    batch_case(&desc2, PGCB_ERR_PROTOCOL, "RowDescription with 1 columns in query 1 of the batch; "
                                          "the statement was described with 3");
}

/* sync = per_batch: one ReadyForQuery for the batch; an error skips the
 * batch's remaining queries, and the connection stays usable. */
static void test_sync_per_batch(void **state)
{
    SCRIPT(pb, 3, BIND_C, GOOD_ROW_C, BIND_C, GOOD_ROW_C, BIND_C, GOOD_ROW_C, READY);
    SCRIPT(pberr, 3, BIND_C, GOOD_ROW_C, BOOM_ERROR, READY);
    SCRIPT(pbearly, 3, BIND_C, GOOD_ROW_C, READY);
    (void)state;
    pb.opts = pberr.opts = pbearly.opts = per_batch;
    pb.nopts = pberr.nopts = pbearly.nopts = 3;
    pb.syncs = pberr.syncs = pbearly.syncs = 1;
    batch_case_ok(&pb, 3);
    pberr.second_batch = 1;
    batch_case(&pberr, PGCB_ERR_QUERY, "XX000: boom (query 2 of 3 in the batch)");
    batch_case(&pbearly, PGCB_ERR_PROTOCOL, "unexpected message type 'Z' in query 2 of the batch");
}

/* An error at the Sync (the implicit commit failed: a deferred constraint)
 * is the query's error, and the connection stays usable; a FATAL after an
 * earlier error keeps the first error in the message. */
static void test_error_at_sync(void **state)
{
    SCRIPT(atsync, 1, BIND_C, GOOD_ROW_C,
           'E', 0, 0, 0, 25, 'S', 'E', 'R', 'R', 'O', 'R', 0, 'C', '2', '3', '5', '0', '3', 0,
           'M', 'f', 'k', 'e', 'y', 0, 0, READY);
    SCRIPT(twice, 1, BIND_C, BOOM_ERROR,
           'E', 0, 0, 0, 43, 'S', 'F', 'A', 'T', 'A', 'L', 0, 'C', '5', '7', 'P', '0', '1', 0,
           'M', 't', 'e', 'r', 'm', 'i', 'n', 'a', 't', 'i', 'n', 'g', ' ', 'c', 'o', 'n', 'n', 'e',
           'c', 't', 'i', 'o', 'n', 0, 0);
    (void)state;
    atsync.second_batch = 1;
    batch_case(&atsync, PGCB_ERR_QUERY, "23503: fkey (at the query's Sync)");
    twice.close_after = 1;
    batch_case(&twice, PGCB_ERR_IO, "XX000: boom; the server ends the session (FATAL)");
}

/* ---- startup ------------------------------------------------------------- */

static void open_case(const struct script *s, int want_rc, const char *part)
{
    const struct pgcb_driver *d = pgcb_driver_entry();
    struct fake f;
    struct pgcb_conn *c = (struct pgcb_conn *)&f;
    char err[PGCB_ERRLEN] = "";
    int rc;

    fake_start(&f, s);
    rc = d->open(f.conninfo, NULL, 0, &c, err, sizeof err);
    if (rc != want_rc || !strstr(err, part))
        print_error("%s: open %d \"%s\"; wanted %d and \"%s\"\n", s->name, rc, err, want_rc, part);
    assert_int_equal(rc, want_rc);
    assert_non_null(strstr(err, part));
    assert_null(strstr(err, FAKE_PASSWORD));
    if (rc == PGCB_OK)
        d->close(c);
    else
        assert_null(c);
    fake_stop(&f);
}

static void test_startup_error(void **state)
{
    static const unsigned char e[] = {'E', 0, 0, 0, 33, 'S', 'F', 'A', 'T', 'A', 'L', 0, 'C', '2', '8',
                                      'P', '0', '1', 0, 'M', 'b', 'a', 'd', ' ', 'p', 'a', 's', 's', 'w',
                                      'o', 'r', 'd', 0, 0};
    struct script s = {.name = "startup_error", .auth = e, .auth_len = sizeof e};
    (void)state;
    open_case(&s, PGCB_ERR_CONNECT, "28P01: bad password");
}

static void test_gss_refused(void **state)
{
    static const unsigned char r[] = {'R', 0, 0, 0, 8, 0, 0, 0, 7};
    struct script s = {.name = "gss", .auth = r, .auth_len = sizeof r};
    (void)state;
    open_case(&s, PGCB_ERR_CONNECT, "GSSAPI authentication, which rawwire does not support");
}

static void test_sasl_without_scram(void **state)
{
    static const unsigned char r[] = {'R', 0, 0, 0, 28, 0, 0, 0, 10, 'S', 'C', 'R', 'A', 'M', '-', 'S',
                                      'H', 'A', '-', '2', '5', '6', '-', 'P', 'L', 'U', 'S', 0, 0};
    struct script s = {.name = "sasl_plus", .auth = r, .auth_len = sizeof r};
    (void)state;
    /* only -PLUS, over a unix socket (no TLS): libpq's refusal, before any
     * password is sent */
    open_case(&s, PGCB_ERR_CONNECT,
              "server offered SCRAM-SHA-256-PLUS authentication over a non-SSL connection");
}

static void test_cleartext_and_md5(void **state)
{
    static const unsigned char clear[] = {'R', 0, 0, 0, 8, 0, 0, 0, 3};
    static const unsigned char md5[] = {'R', 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4};
    static const unsigned char salt[4] = {1, 2, 3, 4};
    char hash[36];
    struct script s1 = {.name = "cleartext", .auth = clear, .auth_len = sizeof clear,
                        .want_password = FAKE_PASSWORD, .no_prepare = 1};
    struct script s2 = {.name = "md5", .auth = md5, .auth_len = sizeof md5, .want_password = hash,
                        .no_prepare = 1};
    (void)state;
    assert_int_equal(rw_md5_password("u", FAKE_PASSWORD, salt, hash), 0);
    open_case(&s1, PGCB_OK, "");
    open_case(&s2, PGCB_OK, "");
}

static void test_garbage_at_startup(void **state)
{
    static const unsigned char g[] = {'R', 0, 0, 0, 2, 0, 0, 0, 0};
    static const unsigned char t[] = {'R', 0, 0, 0, 6, 0, 0};
    struct script s1 = {.name = "garbage", .auth = g, .auth_len = sizeof g};
    struct script s2 = {.name = "short_auth", .auth = t, .auth_len = sizeof t};
    (void)state;
    open_case(&s1, PGCB_ERR_CONNECT, "invalid message length 2");
    open_case(&s2, PGCB_ERR_CONNECT, "invalid length 6 for a message of type 0x52"); /* libpq: < 8 */
}

/* Lengths a real server never sends, refused on the 5-byte header before
 * anything is allocated (libpq 15's limits): an authentication request over
 * 2000 bytes, a ReadyForQuery over 30000 during startup, a SCRAM
 * server-first-message of 1 GiB. */
static void test_hostile_sizes_at_startup(void **state)
{
    static const unsigned char big_r[] = {'R', 0x3f, 0xff, 0xff, 0xf0, 0, 0, 0, 0};
    static const unsigned char r2001[] = {'R', 0, 0, 0x07, 0xd1, 0, 0, 0, 10};
    static const unsigned char big_z[] = {'R', 0, 0, 0, 8, 0, 0, 0, 0, 'Z', 0x3f, 0xff, 0xff, 0xf0, 'I'};
    static const unsigned char big_s[] = {'R', 0, 0, 0, 8, 0, 0, 0, 0, 'S', 0, 0, 0x75, 0x31, 'x'};
    static const unsigned char sasl[] = {'R', 0, 0, 0, 23, 0, 0, 0, 10, 'S', 'C', 'R', 'A', 'M', '-',
                                         'S', 'H', 'A', '-', '2', '5', '6', 0, 0};
    struct script s1 = {.name = "big_r", .auth = big_r, .auth_len = sizeof big_r};
    struct script s2 = {.name = "r2001", .auth = r2001, .auth_len = sizeof r2001};
    struct script s3 = {.name = "big_z", .auth = big_z, .auth_len = sizeof big_z};
    struct script s4 = {.name = "big_s", .auth = big_s, .auth_len = sizeof big_s};
    struct script s5 = {.name = "big_sasl", .auth = sasl, .auth_len = sizeof sasl,
                        .sasl_first = "HUGE"};
    (void)state;
    open_case(&s1, PGCB_ERR_CONNECT, "invalid length 1073741808 for a message of type 0x52 from "
                                     "the server during authentication");
    open_case(&s2, PGCB_ERR_CONNECT, "invalid length 2001 for a message of type 0x52");
    open_case(&s3, PGCB_ERR_CONNECT, "invalid length 1073741808 for a message of type 0x5a from "
                                     "the server (refused");
    open_case(&s4, PGCB_ERR_CONNECT, "invalid length 30001 for a message of type 0x53");
    open_case(&s5, PGCB_ERR_CONNECT, "invalid length 1073741808 for a message of type 0x52");
}

/* A SCRAM server-first-message from `fmt` (%s: the client nonce) must fail
 * with `part`, within `max_s` seconds (connect_timeout is 10). */
static void scram_case(const char *name, const char *fmt, const char *part, double max_s)
{
    static const unsigned char sasl[] = {'R', 0, 0, 0, 23, 0, 0, 0, 10, 'S', 'C', 'R', 'A', 'M', '-',
                                         'S', 'H', 'A', '-', '2', '5', '6', 0, 0};
    struct script s = {.name = name, .auth = sasl, .auth_len = sizeof sasl, .sasl_first = fmt};
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    open_case(&s, PGCB_ERR_CONNECT, part);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 > max_s)
        print_error("%s: took more than %.1f s\n", name, max_s);
    assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 <= max_s);
}

/* connect_timeout covers the key derivation: with 2 s and the server-first
 * message after 1.5 s, 5e6 iterations (over 1 s of PBKDF2 anywhere this
 * runs) are refused up front, not derived past the deadline. */
static void test_scram_timeout(void **state)
{
    static const unsigned char sasl[] = {'R', 0, 0, 0, 23, 0, 0, 0, 10, 'S', 'C', 'R', 'A', 'M', '-',
                                         'S', 'H', 'A', '-', '2', '5', '6', 0, 0};
    struct script s = {.name = "scram_timeout", .auth = sasl, .auth_len = sizeof sasl,
                       .sasl_first = "r=%sSRV,s=c2FsdA==,i=5000000", .delay_ms = 1500,
                       .connect_timeout = 2};
    struct timespec t0, t1;
    double took;

    (void)state;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    open_case(&s, PGCB_ERR_CONNECT, "timeout expired (connect_timeout): the server's SCRAM "
                                    "iteration count 5000000 would take about");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (took > 2.3)
        print_error("scram_timeout: took %.2f s with connect_timeout=2\n", took);
    assert_true(took <= 2.3);
}

/* Hostile SCRAM parameters: one clear line each, in bounded time. */
static void test_scram_hostile(void **state)
{
    char salt[3001];
    char fmt[3100];

    (void)state;
    scram_case("iter_0", "r=%sSRV,s=c2FsdA==,i=0", "malformed SCRAM iteration count", 2);
    scram_case("iter_neg", "r=%sSRV,s=c2FsdA==,i=-4096", "malformed SCRAM iteration count", 2);
    scram_case("iter_junk", "r=%sSRV,s=c2FsdA==,i=12x", "malformed SCRAM iteration count", 2);
    scram_case("iter_huge", "r=%sSRV,s=c2FsdA==,i=99999999",
               "SCRAM iteration count 99999999 is over rawwire's limit of 10000000", 2);
    scram_case("iter_2e9", "r=%sSRV,s=c2FsdA==,i=2000000000", "over rawwire's limit", 2);
    scram_case("nonce", "r=NOTOURS%.0s,s=c2FsdA==,i=4096",
               "SCRAM server nonce does not start with the client nonce", 2);
    memset(salt, 'A', sizeof salt - 1); /* a 3 kB salt: over the 2000 of an 'R' */
    salt[sizeof salt - 1] = '\0';
    snprintf(fmt, sizeof fmt, "r=%%sSRV,s=%s,i=4096", salt);
    scram_case("salt_huge", fmt, "invalid length 30", 2);
    scram_case("salt_odd", "r=%sSRV,s=QUFBQQ,i=4096", "malformed SCRAM salt", 2);
    scram_case("salt_empty", "r=%sSRV,s=,i=4096", "malformed SCRAM salt", 2);
}

/* The bytes of a batch with parameters (no server: rw_conn_batch_bytes
 * alone): each execution's Bind carries its own values, text format,
 * lengths (-1 for NULL) and the values' bytes only; the buffer is reused
 * for a batch of the same size; the batch without parameters is encoded
 * anew after it; bad parameters are refused before anything is encoded. */
static void test_batch_bytes_params(void **state)
{
    static const unsigned char want[] = {
        'B', 0, 0, 0, 23, 0, 's', 0, 0, 0, 0, 2, 0, 0, 0, 2, '1', '2', 0xff, 0xff, 0xff, 0xff, 0, 0,
        'E', 0, 0, 0, 9, 0, 0, 0, 0, 0,
        'S', 0, 0, 0, 4,
        'B', 0, 0, 0, 24, 0, 's', 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 'x', 'y', 'z', 0, 0,
        'E', 0, 0, 0, 9, 0, 0, 0, 0, 0,
        'S', 0, 0, 0, 4,
    };
    struct pgcb_conn *c = calloc(1, sizeof *c);
    uint32_t oids[1] = {23};
    struct rw_described d = {2, 1, oids, 0};
    struct pgcb_stmt *st;
    const char *vals[4] = {"12#", NULL, "#", "xyz#"};
    int lens[4] = {2, 5, 0, 3};
    struct pgcb_params p = {2, vals, lens};
    char err[PGCB_ERRLEN];
    char *data;
    size_t cap;

    (void)state;
    assert_non_null(c);
    st = rw_stmt_new(c, "s", &d);
    assert_non_null(st);
    assert_int_equal(st->nparams, 2);
    assert_int_equal(rw_conn_batch_bytes(c, st, 2, &p, err, sizeof err), PGCB_OK);
    assert_int_equal(c->batch.len, sizeof want);
    assert_memory_equal(c->batch.data, want, sizeof want);
    assert_null(c->batch_stmt);

    /* other values, same size: same bytes but the values, no new buffer */
    data = c->batch.data;
    cap = c->batch.cap;
    vals[0] = "34";
    vals[3] = "uvw";
    assert_int_equal(rw_conn_batch_bytes(c, st, 2, &p, err, sizeof err), PGCB_OK);
    assert_ptr_equal(c->batch.data, data);
    assert_int_equal(c->batch.cap, cap);
    assert_memory_equal(c->batch.data + 16, "34", 2);
    assert_memory_equal(c->batch.data + sizeof want - 20, "uvw", 3);

    /* without parameters: the statement's execution twice, not a stale batch */
    assert_int_equal(rw_conn_batch_bytes(c, st, 2, NULL, err, sizeof err), PGCB_OK);
    assert_int_equal(c->batch.len, 2 * (st->exec_len + 5));
    assert_memory_equal(c->batch.data, st->exec, st->exec_len);
    assert_memory_equal(c->batch.data + st->exec_len, "S\0\0\0\4", 5);
    assert_memory_equal(c->batch.data + st->exec_len + 5, st->exec, st->exec_len);
    assert_memory_equal(c->batch.data + 2 * st->exec_len + 5, "S\0\0\0\4", 5);
    assert_ptr_equal(c->batch_stmt, st);

    /* refused: too many per query, no arrays, a negative length */
    p.nparams = 65536;
    assert_int_equal(rw_conn_batch_bytes(c, st, 1, &p, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "65536 parameters per query"));
    p.nparams = 2;
    p.values = NULL;
    assert_int_equal(rw_conn_batch_bytes(c, st, 1, &p, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "no values array"));
    p.values = vals;
    lens[3] = -2;
    assert_int_equal(rw_conn_batch_bytes(c, st, 2, &p, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_string_equal(err, "parameter $2 of query 2: negative length -2");

    rw_stmt_free(st);
    rw_buf_free(&c->batch);
    free(c);
}

/* describe = per_execution and sync = per_batch in the batch's bytes: a
 * Describe of the unnamed portal after each Bind, one Sync at the end, with
 * and without parameters. */
static void test_batch_bytes_modes(void **state)
{
    static const unsigned char want[] = {
        'B', 0, 0, 0, 18, 0, 's', 0, 0, 0, 0, 1, 0, 0, 0, 1, '5', 0, 0,
        'D', 0, 0, 0, 6, 'P', 0,
        'E', 0, 0, 0, 9, 0, 0, 0, 0, 0,
        'B', 0, 0, 0, 18, 0, 's', 0, 0, 0, 0, 1, 0, 0, 0, 1, '6', 0, 0,
        'D', 0, 0, 0, 6, 'P', 0,
        'E', 0, 0, 0, 9, 0, 0, 0, 0, 0,
        'S', 0, 0, 0, 4,
    };
    struct pgcb_conn *c = calloc(1, sizeof *c);
    uint32_t oids[1] = {23};
    struct rw_described d = {1, 1, oids, 0};
    const char *vals[2] = {"5", "6"};
    int lens[2] = {1, 1};
    struct pgcb_params p = {1, vals, lens};
    char err[PGCB_ERRLEN];

    (void)state;
    assert_non_null(c);
    c->opt.describe_each = 1;
    c->opt.sync_per_batch = 1;
    struct pgcb_stmt *st = rw_stmt_new(c, "s", &d);
    assert_non_null(st);
    assert_int_equal(rw_conn_batch_bytes(c, st, 2, &p, err, sizeof err), PGCB_OK);
    assert_int_equal(c->batch.len, sizeof want);
    assert_memory_equal(c->batch.data, want, sizeof want);
    /* without parameters: the pre-encoded execution has the Describe, and
     * the batch one Sync */
    assert_int_equal(st->exec_len, 14 + 7 + 10);
    assert_memory_equal(st->exec + 14, "D\0\0\0\6P\0", 7);
    assert_int_equal(rw_conn_batch_bytes(c, st, 3, NULL, err, sizeof err), PGCB_OK);
    assert_int_equal(c->batch.len, 3 * st->exec_len + 5);
    assert_memory_equal(c->batch.data + 2 * st->exec_len, st->exec, st->exec_len);
    assert_memory_equal(c->batch.data + 3 * st->exec_len, "S\0\0\0\4", 5);
    rw_stmt_free(st);
    rw_buf_free(&c->batch);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_batch),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_eof_between_messages),
        cmocka_unit_test(test_length_below_4),
        cmocka_unit_test(test_length_above_1gib),
        cmocka_unit_test(test_short_type_too_long),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_wrong_column_count),
        cmocka_unit_test(test_field_past_end),
        cmocka_unit_test(test_bad_value),
        cmocka_unit_test(test_error_mid_batch),
        cmocka_unit_test(test_fatal_then_eof),
        cmocka_unit_test(test_fatal_before_eof),
        cmocka_unit_test(test_nomem_breaks),
        cmocka_unit_test(test_describe_each),
        cmocka_unit_test(test_sync_per_batch),
        cmocka_unit_test(test_error_at_sync),
        cmocka_unit_test(test_batch_bytes_modes),
        cmocka_unit_test(test_startup_error),
        cmocka_unit_test(test_gss_refused),
        cmocka_unit_test(test_sasl_without_scram),
        cmocka_unit_test(test_cleartext_and_md5),
        cmocka_unit_test(test_garbage_at_startup),
        cmocka_unit_test(test_batch_bytes_params),
        cmocka_unit_test(test_hostile_sizes_at_startup),
        cmocka_unit_test(test_scram_hostile),
        cmocka_unit_test(test_scram_timeout),
    };
    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests_name("rawwire_fake", tests, NULL, NULL);
}
