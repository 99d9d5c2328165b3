/*
 * test_wt_count.c -- lib/wiretap/wt_count.c, the wire accounting of the
 * proxy, against conversations written here byte by byte from the protocol
 * (docs: "Message Flow", "Message Formats"): the messages by type and the
 * bytes each way, the same whether a stream is fed whole, byte by byte or
 * in any split; and the round-trip rule of wt_count.h on each flow it names
 * -- a query at a time, a pipeline, Flush, trust / MD5 / SCRAM startups,
 * SSLRequest answered N and S, COPY FROM STDIN, Terminate -- and on bytes
 * no PostgreSQL peer sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wiretap/wt_count.h"

/* A byte stream under construction. */
struct bytes {
    uint8_t b[4096];
    size_t n;
};

static void put32(struct bytes *s, uint32_t v)
{
    s->b[s->n++] = (uint8_t)(v >> 24);
    s->b[s->n++] = (uint8_t)(v >> 16);
    s->b[s->n++] = (uint8_t)(v >> 8);
    s->b[s->n++] = (uint8_t)v;
}

/* A typed message: type, length, body of `blen` bytes (body4 first if any). */
static void msg(struct bytes *s, char type, const void *body, size_t blen)
{
    s->b[s->n++] = (uint8_t)type;
    put32(s, (uint32_t)(4 + blen));
    memcpy(s->b + s->n, body, blen);
    s->n += blen;
}

static void empty(struct bytes *s, char type) { msg(s, type, "", 0); }

/* 'R' with its code. */
static void auth(struct bytes *s, uint32_t code, size_t extra)
{
    uint8_t body[64] = {(uint8_t)(code >> 24), (uint8_t)(code >> 16), (uint8_t)(code >> 8),
                        (uint8_t)code};
    msg(s, 'R', body, 4 + extra);
}

/* An untyped request: length, code, `extra` more bytes. */
static void untyped(struct bytes *s, uint32_t code, size_t extra)
{
    put32(s, (uint32_t)(8 + extra));
    put32(s, code);
    memset(s->b + s->n, 'x', extra);
    s->n += extra;
}

static void startup(struct bytes *s) { untyped(s, 196608, 23); /* "user\0postgres\0..." */ }

/* What the server says after authentication: ParameterStatus, BackendKeyData, Z. */
static void ready(struct bytes *s)
{
    msg(s, 'S', "a\0b", 4);
    msg(s, 'K', "12345678", 8);
    msg(s, 'Z', "I", 1);
}

/* One extended-protocol query, the client's and the server's side. */
static void query_out(struct bytes *s)
{
    msg(s, 'B', "\0s\0\0\0\0\0\0\0", 10);
    msg(s, 'E', "\0\0\0\0\0", 5);
    empty(s, 'S');
}

static void query_in(struct bytes *s, int rows)
{
    empty(s, '2');
    for (int r = 0; r < rows; r++)
        msg(s, 'D', "\0\1\0\0\0\1" "7", 7);
    msg(s, 'C', "SELECT 1", 9);
    msg(s, 'Z', "I", 1);
}

/* Feed s to c in pieces of `step` bytes (0: whole). */
static void feed(struct wt_conn *c, enum wt_dir d, const struct bytes *s, size_t step)
{
    if (!step)
        step = s->n ? s->n : 1;
    for (size_t i = 0; i < s->n; i += step)
        wt_conn_feed(c, d, s->b + i, s->n - i < step ? s->n - i : step);
}

/* ---- messages and bytes ------------------------------------------------ */

static void check_startup_and_query(size_t step)
{
    struct wt_totals t = {0};
    struct wt_conn c;
    wt_conn_init(&c, &t);
    struct bytes out = {.n = 0}, in = {.n = 0};
    startup(&out);
    feed(&c, WT_TO_SERVER, &out, step);
    auth(&in, 0, 0);
    ready(&in);
    feed(&c, WT_TO_CLIENT, &in, step);
    struct bytes q = {.n = 0}, r = {.n = 0};
    msg(&q, 'P', "s\0select\0\0\0", 12);
    msg(&q, 'D', "Ss\0", 3);
    query_out(&q);
    empty(&r, '1');
    msg(&r, 't', "\0\0", 2);
    msg(&r, 'T', "\0\1xxxxxxxxxxxxxxxxxxxxx", 24);
    query_in(&r, 3);
    feed(&c, WT_TO_SERVER, &q, step);
    feed(&c, WT_TO_CLIENT, &r, step);

    assert_int_equal(t.connections, 1);
    assert_int_equal(t.bytes[WT_TO_SERVER], out.n + q.n);
    assert_int_equal(t.bytes[WT_TO_CLIENT], in.n + r.n);
    assert_int_equal(t.msgs[WT_TO_SERVER], 6);
    assert_int_equal(t.by_type[WT_TO_SERVER][WT_UNTYPED], 1);
    assert_int_equal(t.by_type[WT_TO_SERVER]['P'], 1);
    assert_int_equal(t.by_type[WT_TO_SERVER]['D'], 1);
    assert_int_equal(t.by_type[WT_TO_SERVER]['B'], 1);
    assert_int_equal(t.by_type[WT_TO_SERVER]['E'], 1);
    assert_int_equal(t.by_type[WT_TO_SERVER]['S'], 1);
    assert_int_equal(t.msgs[WT_TO_CLIENT], 4 + 3 + 6);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['R'], 1);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['Z'], 2);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['D'], 3);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['T'], 1);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['t'], 1);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['1'], 1);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['2'], 1);
    assert_int_equal(t.opaque_bytes[0] + t.opaque_bytes[1], 0);
    assert_int_equal(t.round_trips, 2); /* the startup, the query */
    /* every feed is one chunk */
    size_t st = step ? step : 1u << 20;
    assert_int_equal(t.chunks[WT_TO_SERVER], (out.n + st - 1) / st + (q.n + st - 1) / st);
    assert_int_equal(t.chunks[WT_TO_CLIENT], (in.n + st - 1) / st + (r.n + st - 1) / st);
}

static void test_whole(void **state)
{
    (void)state;
    check_startup_and_query(0);
}

static void test_every_split(void **state)
{
    (void)state;
    for (size_t step = 1; step <= 13; step++)
        check_startup_and_query(step);
}

/* ---- round trips -------------------------------------------------------- */

/* A connection past a trust startup. */
static void connected(struct wt_conn *c, struct wt_totals *t)
{
    memset(t, 0, sizeof *t);
    wt_conn_init(c, t);
    struct bytes out = {.n = 0}, in = {.n = 0};
    startup(&out);
    feed(c, WT_TO_SERVER, &out, 0);
    auth(&in, 0, 0);
    ready(&in);
    feed(c, WT_TO_CLIENT, &in, 0);
    assert_int_equal(t->round_trips, 1);
}

static void test_one_at_a_time(void **state)
{
    (void)state;
    struct wt_totals t;
    struct wt_conn c;
    connected(&c, &t);
    for (int k = 0; k < 5; k++) {
        struct bytes q = {.n = 0}, r = {.n = 0};
        query_out(&q);
        query_in(&r, 1);
        feed(&c, WT_TO_SERVER, &q, 0);
        feed(&c, WT_TO_CLIENT, &r, 0);
    }
    assert_int_equal(t.round_trips, 1 + 5);
    /* Terminate waits for nothing */
    struct bytes x = {.n = 0};
    empty(&x, 'X');
    feed(&c, WT_TO_SERVER, &x, 0);
    assert_int_equal(t.round_trips, 1 + 5);
    assert_int_equal(t.by_type[WT_TO_SERVER]['X'], 1);
}

static void test_pipeline(void **state)
{
    (void)state;
    struct wt_totals t;
    struct wt_conn c;
    connected(&c, &t);
    /* ten queries sent before any reply, in two writes: one round trip */
    struct bytes q = {.n = 0}, q2 = {.n = 0}, r = {.n = 0};
    for (int k = 0; k < 5; k++)
        query_out(&q);
    for (int k = 0; k < 5; k++)
        query_out(&q2);
    for (int k = 0; k < 10; k++)
        query_in(&r, 2);
    feed(&c, WT_TO_SERVER, &q, 0);
    feed(&c, WT_TO_SERVER, &q2, 0);
    feed(&c, WT_TO_CLIENT, &r, 0);
    assert_int_equal(t.round_trips, 1 + 1);
    /* a sliding window: a query sent after the first reply, while nine
     * are in flight, starts no round trip */
    struct bytes a = {.n = 0}, b = {.n = 0}, rest = {.n = 0};
    for (int k = 0; k < 10; k++)
        query_out(&a);
    query_in(&b, 1);
    feed(&c, WT_TO_SERVER, &a, 0);
    feed(&c, WT_TO_CLIENT, &b, 0);
    struct bytes one = {.n = 0};
    query_out(&one);
    feed(&c, WT_TO_SERVER, &one, 0);
    for (int k = 0; k < 10; k++)
        query_in(&rest, 1);
    feed(&c, WT_TO_CLIENT, &rest, 0);
    assert_int_equal(t.round_trips, 1 + 2);
}

static void test_flush(void **state)
{
    (void)state;
    struct wt_totals t;
    struct wt_conn c;
    connected(&c, &t);
    /* Parse, Describe, Flush; wait; Bind, Execute, Sync: two round trips */
    struct bytes a = {.n = 0}, ra = {.n = 0}, b = {.n = 0}, rb = {.n = 0};
    msg(&a, 'P', "s\0select\0\0\0", 12);
    msg(&a, 'D', "Ss\0", 3);
    empty(&a, 'H');
    empty(&ra, '1');
    msg(&ra, 't', "\0\0", 2);
    msg(&ra, 'T', "\0\0", 2);
    query_out(&b);
    query_in(&rb, 1);
    feed(&c, WT_TO_SERVER, &a, 0);
    feed(&c, WT_TO_CLIENT, &ra, 0);
    feed(&c, WT_TO_SERVER, &b, 0);
    feed(&c, WT_TO_CLIENT, &rb, 0);
    assert_int_equal(t.round_trips, 1 + 2);
    /* the same sent at once (no wait after the Flush): one */
    struct bytes all = {.n = 0};
    msg(&all, 'P', "s\0select\0\0\0", 12);
    empty(&all, 'H');
    query_out(&all);
    feed(&c, WT_TO_SERVER, &all, 0);
    feed(&c, WT_TO_CLIENT, &ra, 0);
    feed(&c, WT_TO_CLIENT, &rb, 0);
    assert_int_equal(t.round_trips, 1 + 3);
}

/* A startup with the authentication requests `codes` (each answered by a
 * password message when it asks for one): its round trips. */
static uint64_t startup_rts(const uint32_t *codes, size_t n)
{
    struct wt_totals t = {0};
    struct wt_conn c;
    wt_conn_init(&c, &t);
    struct bytes s = {.n = 0};
    startup(&s);
    feed(&c, WT_TO_SERVER, &s, 0);
    for (size_t k = 0; k < n; k++) {
        struct bytes r = {.n = 0};
        auth(&r, codes[k], codes[k] == 10 ? 15 : codes[k] == 5 ? 4 : 8);
        if (codes[k] == 0)
            ready(&r);
        feed(&c, WT_TO_CLIENT, &r, 0);
        if (codes[k] == 3 || codes[k] == 5 || codes[k] == 10 || codes[k] == 11) {
            struct bytes p = {.n = 0};
            msg(&p, 'p', "secret\0", 7);
            feed(&c, WT_TO_SERVER, &p, 0);
        }
    }
    return t.round_trips;
}

static void test_startups(void **state)
{
    (void)state;
    static const uint32_t trust[] = {0};
    static const uint32_t md5[] = {5, 0};
    static const uint32_t clear[] = {3, 0};
    static const uint32_t scram[] = {10, 11, 12, 0};
    assert_int_equal(startup_rts(trust, 1), 1);
    assert_int_equal(startup_rts(md5, 2), 2);
    assert_int_equal(startup_rts(clear, 2), 2);
    assert_int_equal(startup_rts(scram, 4), 3);
}

static void test_ssl_request(void **state)
{
    (void)state;
    /* answered 'N': a plain startup follows, untyped */
    struct wt_totals t = {0};
    struct wt_conn c;
    wt_conn_init(&c, &t);
    struct bytes req = {.n = 0}, s = {.n = 0}, in = {.n = 0};
    untyped(&req, 80877103, 0);
    feed(&c, WT_TO_SERVER, &req, 0);
    wt_conn_feed(&c, WT_TO_CLIENT, (const uint8_t *)"N", 1);
    startup(&s);
    feed(&c, WT_TO_SERVER, &s, 0);
    auth(&in, 0, 0);
    ready(&in);
    feed(&c, WT_TO_CLIENT, &in, 0);
    assert_int_equal(t.round_trips, 2);
    assert_int_equal(t.by_type[WT_TO_SERVER][WT_UNTYPED], 2);
    assert_int_equal(t.by_type[WT_TO_CLIENT][WT_UNTYPED], 1);
    assert_int_equal(t.by_type[WT_TO_CLIENT]['Z'], 1);
    assert_int_equal(t.opaque_bytes[0] + t.opaque_bytes[1], 0);

    /* answered 'S': TLS follows, bytes only; each client chunk after
     * server bytes is a round trip */
    struct wt_totals u = {0};
    wt_conn_init(&c, &u);
    feed(&c, WT_TO_SERVER, &req, 0);
    wt_conn_feed(&c, WT_TO_CLIENT, (const uint8_t *)"S", 1);
    static const uint8_t hello[300] = {0x16, 3, 1};
    wt_conn_feed(&c, WT_TO_SERVER, hello, sizeof hello);
    wt_conn_feed(&c, WT_TO_CLIENT, hello, 200);
    wt_conn_feed(&c, WT_TO_CLIENT, hello, 100);
    wt_conn_feed(&c, WT_TO_SERVER, hello, 50);
    wt_conn_feed(&c, WT_TO_SERVER, hello, 50);
    assert_int_equal(u.round_trips, 3);
    assert_int_equal(u.opaque_bytes[WT_TO_SERVER], 400);
    assert_int_equal(u.opaque_bytes[WT_TO_CLIENT], 300);
    assert_int_equal(u.bytes[WT_TO_SERVER], 408);
    assert_int_equal(u.bytes[WT_TO_CLIENT], 301);
    assert_int_equal(u.msgs[WT_TO_SERVER], 1);
    assert_int_equal(u.msgs[WT_TO_CLIENT], 1);
}

static void test_copy_in(void **state)
{
    (void)state;
    struct wt_totals t;
    struct wt_conn c;
    connected(&c, &t);
    struct bytes q = {.n = 0}, g = {.n = 0}, data = {.n = 0}, end = {.n = 0};
    msg(&q, 'Q', "copy t from stdin\0", 18);
    msg(&g, 'G', "\0\0\1\0\0", 5);
    for (int k = 0; k < 100; k++)
        msg(&data, 'd', "1\t2\n", 4);
    empty(&data, 'c');
    msg(&end, 'C', "COPY 100", 9);
    msg(&end, 'Z', "I", 1);
    feed(&c, WT_TO_SERVER, &q, 0);
    feed(&c, WT_TO_CLIENT, &g, 0);
    feed(&c, WT_TO_SERVER, &data, 7); /* the rows in many writes */
    feed(&c, WT_TO_CLIENT, &end, 0);
    /* the Query, then the rows after CopyInResponse: two */
    assert_int_equal(t.round_trips, 1 + 2);
    assert_int_equal(t.by_type[WT_TO_SERVER]['d'], 100);
    /* the next query is one more */
    struct bytes n = {.n = 0}, r = {.n = 0};
    query_out(&n);
    query_in(&r, 0);
    feed(&c, WT_TO_SERVER, &n, 0);
    feed(&c, WT_TO_CLIENT, &r, 0);
    assert_int_equal(t.round_trips, 1 + 3);
}

static void test_not_postgres(void **state)
{
    (void)state;
    struct wt_totals t;
    struct wt_conn c;
    connected(&c, &t);
    uint64_t msgs = t.msgs[WT_TO_SERVER];
    /* a length under 4: counted as bytes from there on, never parsed */
    static const uint8_t bad[] = {'Q', 0, 0, 0, 2, 'Q', 0, 0, 0, 5, 0};
    wt_conn_feed(&c, WT_TO_SERVER, bad, sizeof bad);
    assert_int_equal(t.msgs[WT_TO_SERVER], msgs);
    assert_int_equal(t.opaque_bytes[WT_TO_SERVER], sizeof bad - 5);
    struct bytes q = {.n = 0};
    query_out(&q);
    feed(&c, WT_TO_SERVER, &q, 0);
    assert_int_equal(t.msgs[WT_TO_SERVER], msgs);
    assert_int_equal(t.opaque_bytes[WT_TO_SERVER], sizeof bad - 5 + q.n);
}

static void test_two_connections_add(void **state)
{
    (void)state;
    struct wt_totals t = {0};
    struct wt_conn a, b;
    wt_conn_init(&a, &t);
    wt_conn_init(&b, &t);
    struct bytes s = {.n = 0}, in = {.n = 0}, q = {.n = 0}, r = {.n = 0};
    startup(&s);
    auth(&in, 0, 0);
    ready(&in);
    query_out(&q);
    query_in(&r, 1);
    /* interleaved: each connection's rule is its own */
    feed(&a, WT_TO_SERVER, &s, 0);
    feed(&b, WT_TO_SERVER, &s, 0);
    feed(&a, WT_TO_CLIENT, &in, 0);
    feed(&a, WT_TO_SERVER, &q, 0);
    feed(&b, WT_TO_CLIENT, &in, 0);
    feed(&b, WT_TO_SERVER, &q, 0);
    feed(&a, WT_TO_CLIENT, &r, 0);
    feed(&b, WT_TO_CLIENT, &r, 0);
    assert_int_equal(t.connections, 2);
    assert_int_equal(t.round_trips, 4);
    struct wt_totals copy;
    wt_totals_read(&t, &copy);
    assert_memory_equal(&copy, &t, sizeof t);
    /* a span's delta added to a sum: the sum grows by what crossed in it */
    struct wt_totals before = {0}, sum = {.round_trips = 10, .bytes = {1, 2}};
    before.round_trips = 1;
    before.bytes[WT_TO_CLIENT] = 3;
    wt_totals_add_delta(&sum, &t, &before);
    assert_int_equal(sum.round_trips, 10 + 4 - 1);
    assert_int_equal(sum.bytes[WT_TO_SERVER], 1 + t.bytes[WT_TO_SERVER]);
    assert_int_equal(sum.bytes[WT_TO_CLIENT], 2 + t.bytes[WT_TO_CLIENT] - 3);
    assert_int_equal(sum.connections, 2);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(wt_type_name(WT_TO_SERVER, 'B'), "Bind");
    assert_string_equal(wt_type_name(WT_TO_SERVER, 'D'), "Describe");
    assert_string_equal(wt_type_name(WT_TO_CLIENT, 'D'), "DataRow");
    assert_string_equal(wt_type_name(WT_TO_CLIENT, 'Z'), "ReadyForQuery");
    assert_string_equal(wt_type_name(WT_TO_SERVER, WT_UNTYPED), "Startup");
    assert_null(wt_type_name(WT_TO_SERVER, 'Z'));
    assert_null(wt_type_name(WT_TO_CLIENT, 200));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),         cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_one_at_a_time), cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_flush),         cmocka_unit_test(test_startups),
        cmocka_unit_test(test_ssl_request),   cmocka_unit_test(test_copy_in),
        cmocka_unit_test(test_not_postgres),  cmocka_unit_test(test_two_connections_add),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
