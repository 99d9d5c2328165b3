/*
 * test_rawwire_codec.c -- rawwire's codec (every message it encodes or
 * decodes, against byte fixtures) and its batch reply parser fed whole, byte
 * by byte, and malformed. (Its value conversions are include/pgcb/value.h's:
 * test_value.c.)
 *
 * The driver's .c files are compiled into this test by #including them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <string.h>

#include "pgcb/value.h"
#include "pgwire/rw_codec.h"
#include "pgwire/rw_err.h"
#include "../../drivers/rawwire/rw_reply.h"

#include "../lib/drvtest.h"
#include "../lib/feedtest.h"

#define FIX(...) ((const unsigned char[]){__VA_ARGS__})
#define ASSERT_BYTES(buf, ...)                                                     \
    do {                                                                           \
        static const unsigned char want_[] = {__VA_ARGS__};                       \
        assert_false((buf)->failed);                                               \
        assert_int_equal((buf)->len, sizeof want_);                                \
        assert_memory_equal((buf)->data, want_, sizeof want_);                     \
    } while (0)

/* ---- encoding ----------------------------------------------------------- */

static void test_enc_startup(void **state)
{
    struct rw_buf b;
    const char *kv[] = {"user", "bob", "database", "db", "options", NULL, NULL, NULL};

    (void)state;
    rw_buf_init(&b);
    rw_enc_startup(&b, kv);
    ASSERT_BYTES(&b, 0, 0, 0, 30, 0, 3, 0, 0, 'u', 's', 'e', 'r', 0, 'b', 'o', 'b', 0, 'd', 'a', 't',
                 'a', 'b', 'a', 's', 'e', 0, 'd', 'b', 0, 0);
    rw_buf_free(&b);
}

static void test_enc_extended(void **state)
{
    struct rw_buf b;
    const int16_t fmts[] = {1, 0};

    (void)state;
    rw_buf_init(&b);
    rw_enc_parse(&b, "s1", "SELECT 1");
    ASSERT_BYTES(&b, 'P', 0, 0, 0, 18, 's', '1', 0, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0, 0, 0);
    b.len = 0;
    rw_enc_describe_stmt(&b, "s1");
    ASSERT_BYTES(&b, 'D', 0, 0, 0, 8, 'S', 's', '1', 0);
    b.len = 0;
    rw_enc_close_stmt(&b, "s1");
    ASSERT_BYTES(&b, 'C', 0, 0, 0, 8, 'S', 's', '1', 0);
    b.len = 0;
    rw_enc_bind(&b, "s1", 0, NULL, NULL, fmts, 2);
    ASSERT_BYTES(&b, 'B', 0, 0, 0, 18, 0, 's', '1', 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0);
    b.len = 0;
    rw_enc_bind(&b, "s1", 0, NULL, NULL, NULL, 0);
    ASSERT_BYTES(&b, 'B', 0, 0, 0, 14, 0, 's', '1', 0, 0, 0, 0, 0, 0, 0);
    b.len = 0;
    {
        /* text parameters: no format codes; lengths, -1 for NULL; the
         * values' bytes only ("abX": 2 bytes of it), "" as length 0 */
        const char *const vals[] = {"abX", NULL, ""};
        const int lens[] = {2, 99, 0};
        rw_enc_bind(&b, "s1", 3, vals, lens, fmts, 1);
        ASSERT_BYTES(&b, 'B', 0, 0, 0, 30, 0, 's', '1', 0, 0, 0, 0, 3,
                     0, 0, 0, 2, 'a', 'b', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 1);
    }
    b.len = 0;
    rw_enc_execute(&b);
    ASSERT_BYTES(&b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0);
    b.len = 0;
    rw_enc_sync(&b);
    ASSERT_BYTES(&b, 'S', 0, 0, 0, 4);
    b.len = 0;
    rw_enc_terminate(&b);
    ASSERT_BYTES(&b, 'X', 0, 0, 0, 4);
    rw_buf_free(&b);
}

static void test_enc_auth(void **state)
{
    struct rw_buf b;

    (void)state;
    rw_buf_init(&b);
    rw_enc_password(&b, "pw");
    ASSERT_BYTES(&b, 'p', 0, 0, 0, 7, 'p', 'w', 0);
    b.len = 0;
    rw_enc_sasl_initial(&b, "M", "abc", 3);
    ASSERT_BYTES(&b, 'p', 0, 0, 0, 13, 'M', 0, 0, 0, 0, 3, 'a', 'b', 'c');
    b.len = 0;
    rw_enc_sasl_response(&b, "xy", 2);
    ASSERT_BYTES(&b, 'p', 0, 0, 0, 6, 'x', 'y');
    rw_buf_free(&b);
}

/* ---- decoding ----------------------------------------------------------- */

static void test_dec_header(void **state)
{
    char type = 0;
    uint32_t len = 0;

    (void)state;
    assert_int_equal(rw_dec_header("Z\0\0\0", 4, &type, &len), RW_HDR_MORE);
    assert_int_equal(rw_dec_header("Z\0\0\0\5I", 6, &type, &len), RW_HDR_OK);
    assert_int_equal(type, 'Z');
    assert_int_equal(len, 5);
    assert_int_equal(rw_dec_header("Z\0\0\0\3", 5, &type, &len), RW_HDR_BAD);      /* < 4 */
    assert_int_equal(len, 3); /* set for the caller's message */
    assert_int_equal(rw_dec_header("D\x40\0\0\0", 5, &type, &len), RW_HDR_BAD);    /* 1 GiB */
    assert_int_equal(rw_dec_header("D\xff\xff\xff\xff", 5, &type, &len), RW_HDR_BAD);
    assert_int_equal(rw_dec_header("D\x3f\xff\xff\xff", 5, &type, &len), RW_HDR_OK);
}

static void test_dec_error(void **state)
{
    static const char body[] = "SERROR\0VERROR\0C42P01\0Mrelation \"x\"\ndoes not exist\0P15\0\0";
    struct rw_pgerr e;
    char err[64];

    (void)state;
    assert_int_equal(rw_dec_error(body, sizeof body - 1, &e), 0);
    assert_string_equal(e.severity, "ERROR");
    assert_string_equal(e.code, "42P01");
    assert_false(rw_pgerr_is_fatal(&e));
    rw_pgerr_format(&e, err, sizeof err);
    assert_string_equal(err, "42P01: relation \"x\" does not exist"); /* one line */
    /* truncated: no terminator, a field without NUL */
    assert_int_equal(rw_dec_error(body, sizeof body - 2, &e), -1);
    assert_int_equal(rw_dec_error("SFATAL", 6, &e), -1);
    assert_int_equal(rw_dec_error("", 0, &e), -1);
    assert_int_equal(rw_dec_error("SFATAL\0\0", 8, &e), 0);
    assert_true(rw_pgerr_is_fatal(&e));
    rw_pgerr_format(&e, err, sizeof err);
    assert_string_equal(err, "FATAL: (no message)");
    /* a tiny buffer truncates */
    assert_int_equal(rw_dec_error(body, sizeof body - 1, &e), 0);
    rw_pgerr_format(&e, err, 8);
    assert_string_equal(err, "42P01:"); /* trailing space dropped */
}

static void test_dec_misc(void **state)
{
    uint32_t code = 9, pid, key, oids[3];
    const char *data;
    size_t dlen;
    char st;
    unsigned n;

    (void)state;
    assert_int_equal(rw_dec_auth("\0\0\0\5\1\2\3\4", 8, &code, &data, &dlen), 0);
    assert_int_equal(code, 5);
    assert_int_equal(dlen, 4);
    assert_int_equal(rw_dec_auth("\0\0\0", 3, &code, &data, &dlen), -1);
    assert_int_equal(rw_dec_sasl_has("SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0", 34, "SCRAM-SHA-256"), 1);
    assert_int_equal(rw_dec_sasl_has("SCRAM-SHA-256-PLUS\0", 20, "SCRAM-SHA-256"), 0);
    assert_int_equal(rw_dec_sasl_has("SCRAM-SHA-256", 13, "SCRAM-SHA-256"), -1);
    assert_int_equal(rw_dec_backend_key("\0\0\1\0\0\0\0\7", 8, &pid, &key), 0);
    assert_int_equal(pid, 256);
    assert_int_equal(key, 7);
    assert_int_equal(rw_dec_backend_key("\0\0\1\0", 4, &pid, &key), -1);
    assert_int_equal(rw_dec_ready("I", 1, &st), 0);
    assert_int_equal(st, 'I');
    assert_int_equal(rw_dec_ready("Q", 1, &st), -1);
    assert_int_equal(rw_dec_ready("II", 2, &st), -1);
    assert_int_equal(rw_dec_paramdesc("\0\1\0\0\0\x17", 6, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rw_dec_paramdesc("\0\2\0\0\0\x17", 6, &n), -1);
    /* RowDescription: "a" int4, "b" text */
    static const char rd[] = "\0\2"
                             "a\0" "\0\0\0\0" "\0\0" "\0\0\0\x17" "\0\4" "\xff\xff\xff\xff" "\0\0"
                             "b\0" "\0\0\0\0" "\0\0" "\0\0\0\x19" "\xff\xff" "\xff\xff\xff\xff" "\0\0";
    assert_int_equal(rw_dec_rowdesc(rd, sizeof rd - 1, &n, oids, 3), 0);
    assert_int_equal(n, 2);
    assert_int_equal(oids[0], 23);
    assert_int_equal(oids[1], 25);
    for (size_t cut = 0; cut < sizeof rd - 1; cut++)
        assert_int_equal(rw_dec_rowdesc(rd, cut, &n, oids, 3), -1);
    assert_int_equal(rw_dec_rowdesc(rd, sizeof rd, &n, oids, 3), -1); /* trailing byte */
}

/* ---- the reply parser --------------------------------------------------- */

/* Two queries of a statement (int4, text, bool) in binary: rows (1,'wat',f)
 * and (2, NULL, t) for each; a NoticeResponse and a ParameterStatus mixed in. */
static const unsigned char batch2[] = {
    '2', 0, 0, 0, 4,
    'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 0,
    'N', 0, 0, 0, 13, 'S', 'N', 'O', 'T', 'I', 'C', 'E', 0, 0,
    'D', 0, 0, 0, 23, 0, 3, 0, 0, 0, 4, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 1,
    'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '2', 0,
    'Z', 0, 0, 0, 5, 'I',
    '2', 0, 0, 0, 4,
    'S', 0, 0, 0, 8, 'a', 0, 'b', 0,
    'D', 0, 0, 0, 26, 0, 3, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 3, 'w', 'a', 't', 0, 0, 0, 1, 0,
    'D', 0, 0, 0, 23, 0, 3, 0, 0, 0, 4, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 1,
    'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '2', 0,
    'Z', 0, 0, 0, 5, 'I',
};
static const unsigned char kinds3[] = {PGCB_VALUE_B_INT4, PGCB_VALUE_TEXT, PGCB_VALUE_B_BOOL};

static struct pgcb_sum expect2(void)
{
    struct pgcb_sum s = {0, 0};
    for (int q = 0; q < 2; q++) {
        pgcb_sum_int(&s, 1);
        pgcb_sum_text(&s, "wat", 3);
        pgcb_sum_bool(&s, 0);
        pgcb_sum_row(&s);
        pgcb_sum_int(&s, 2);
        pgcb_sum_null(&s);
        pgcb_sum_bool(&s, 1);
        pgcb_sum_row(&s);
    }
    return s;
}

/* Feed `p` in pieces of `step` bytes the way rw_io_pipeline does (keeping
 * the unconsumed tail); returns the last feed result. */
static int feed_all(struct rw_reply *r, const unsigned char *p, size_t n, size_t step, char *err,
                    size_t errlen)
{
    return feedtest_pieces(rw_reply_feed, r, p, n, step, err, errlen);
}

static void test_reply_ok(void **state)
{
    struct pgcb_sum want = expect2();
    char err[PGCB_ERRLEN];

    (void)state;
    for (size_t step = 1; step <= sizeof batch2; step++) {
        struct pgcb_sum s = {0, 0};
        struct rw_reply r;
        rw_reply_init(&r, kinds3, 3, &s, drvtest_c_locale, 2, 0);
        assert_int_equal(feed_all(&r, batch2, sizeof batch2, step, err, sizeof err), RW_FEED_DONE);
        assert_false(r.have_error);
        assert_true(s.hash == want.hash && s.rows == 4);
    }
}

static void test_reply_need(void **state)
{
    struct pgcb_sum s = {0, 0};
    struct rw_reply r;
    size_t used = 9, need = 0;
    char err[PGCB_ERRLEN];

    (void)state;
    rw_reply_init(&r, kinds3, 3, &s, drvtest_c_locale, 2, 0);
    /* BindComplete, then the first 10 bytes of a 27-byte DataRow */
    assert_int_equal(rw_reply_feed(&r, (const char *)batch2, 15, &used, &need, err, sizeof err),
                     RW_FEED_MORE);
    assert_int_equal(used, 5);
    assert_int_equal(need, 27);
}

/* Replace bytes of batch2 and expect RW_FEED_ERROR with `part` in err. */
static void expect_bad(const unsigned char *p, size_t n, uint32_t depth, const char *part)
{
    struct pgcb_sum s = {0, 0};
    struct rw_reply r;
    char err[PGCB_ERRLEN] = "";

    rw_reply_init(&r, kinds3, 3, &s, drvtest_c_locale, depth, 0);
    assert_int_equal(feed_all(&r, p, n, n, err, sizeof err), RW_FEED_ERROR);
    if (!strstr(err, part))
        print_error("err \"%s\" lacks \"%s\"\n", err, part);
    assert_non_null(strstr(err, part));
}

static void test_reply_malformed(void **state)
{
    unsigned char b[sizeof batch2];

    (void)state;
    memcpy(b, batch2, sizeof b);
    b[4] = 3; /* BindComplete length 3 */
    expect_bad(b, sizeof b, 2, "invalid message length 3");
    memcpy(b, batch2, sizeof b);
    b[1] = 0x40; /* 1 GiB */
    expect_bad(b, sizeof b, 2, "invalid message length");
    memcpy(b, batch2, sizeof b);
    b[0] = '!'; /* unknown type */
    expect_bad(b, sizeof b, 2, "unexpected message type '!'");
    memcpy(b, batch2, sizeof b);
    b[0] = 0x01;
    expect_bad(b, sizeof b, 2, "unknown message type 0x01");
    memcpy(b, batch2, sizeof b);
    b[11] = 2; /* DataRow with 2 columns */
    expect_bad(b, sizeof b, 2, "DataRow with 2 columns");
    memcpy(b, batch2, sizeof b);
    b[14] = 0x7f; /* first field length 0x7f000004 */
    expect_bad(b, sizeof b, 2, "past the end");
    memcpy(b, batch2, sizeof b);
    b[23] = 9; /* text field of 9 bytes with 8 left in the message */
    expect_bad(b, sizeof b, 2, "past the end");
    memcpy(b, batch2, sizeof b);
    {
        /* bool 2: a value, not the framing: the replies are read to their
         * end (the connection stays usable), the value's error kept */
        struct pgcb_sum s = {0, 0};
        struct rw_reply r;
        char err[PGCB_ERRLEN] = "";
        b[31] = 2;
        rw_reply_init(&r, kinds3, 3, &s, drvtest_c_locale, 2, 0);
        assert_int_equal(feed_all(&r, b, sizeof b, sizeof b, err, sizeof err), RW_FEED_DONE);
        assert_int_equal(r.value_rc, -1);
        if (!strstr(r.verr, "row 1 of query 1 of the batch column 3: malformed kind"))
            print_error("verr \"%s\"\n", r.verr);
        assert_non_null(strstr(r.verr, "row 1 of query 1 of the batch column 3: malformed kind"));
    }
    memcpy(b, batch2, sizeof b);
    expect_bad(b + 5, sizeof b - 5, 2, "unexpected message type 'D'"); /* no BindComplete */
    b[5] = 'C';
    expect_bad(b + 5, sizeof b - 5, 2, "unexpected message type 'C'");
}

static void test_reply_error_mid_batch(void **state)
{
    /* query 1 ok (no rows), query 2 ErrorResponse, query 3 ok */
    static const unsigned char p[] = {
        '2', 0, 0, 0, 4, 'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '0', 0,
        'Z', 0, 0, 0, 5, 'I',
        'E', 0, 0, 0, 25, 'S', 'E', 'R', 'R', 'O', 'R', 0, 'C', '2', '2', '0', '1', '2', 0,
        'M', 'b', 'o', 'o', 'm', 0, 0,
        'Z', 0, 0, 0, 5, 'I',
        '2', 0, 0, 0, 4, 'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '0', 0,
        'Z', 0, 0, 0, 5, 'I',
    };
    struct pgcb_sum s = {0, 0};
    struct rw_reply r;
    char err[PGCB_ERRLEN] = "";

    (void)state;
    rw_reply_init(&r, kinds3, 3, &s, drvtest_c_locale, 3, 0);
    assert_int_equal(feed_all(&r, p, sizeof p, 7, err, sizeof err), RW_FEED_DONE);
    assert_true(r.have_error);
    assert_int_equal(r.error_query, 2);
    assert_string_equal(r.qerr, "22012: boom (query 2 of 3 in the batch)");
    /* a ReadyForQuery without a completed query is out of order */
    expect_bad(p + 5, sizeof p - 5, 3, "unexpected message type 'C'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enc_startup),
        cmocka_unit_test(test_enc_extended),
        cmocka_unit_test(test_enc_auth),
        cmocka_unit_test(test_dec_header),
        cmocka_unit_test(test_dec_error),
        cmocka_unit_test(test_dec_misc),
        cmocka_unit_test(test_reply_ok),
        cmocka_unit_test(test_reply_need),
        cmocka_unit_test(test_reply_malformed),
        cmocka_unit_test(test_reply_error_mid_batch),
    };
    return cmocka_run_group_tests_name("rawwire_codec", tests, drvtest_c_locale_setup,
                                       drvtest_c_locale_teardown);
}
