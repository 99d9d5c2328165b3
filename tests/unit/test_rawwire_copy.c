/*
 * test_rawwire_copy.c -- rawwire's COPY reply parser (rw_copy_feed,
 * drivers/rawwire/rw_copy_reply.c) on scripted replies, the malformed ones a real
 * server never sends among them: every reply fed whole and in pieces of
 * every size, since the bytes arrive as the socket gives them. What a real
 * server sends (42P01, 22P04, a statement that is not a COPY) is
 * tests/server/test_copy.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "pgwire/rw_io.h"
#include "../../drivers/rawwire/rw_copy_reply.h"
#include "../lib/feedtest.h"

#define G3 'G', 0, 0, 0, 13, 0, 0, 3, 0, 0, 0, 0, 0, 0 /* CopyInResponse: text, 3 columns */
#define CC(n) 'C', 0, 0, 0, 11, 'C', 'O', 'P', 'Y', ' ', n, 0 /* CommandComplete "COPY n" */
#define Z 'Z', 0, 0, 0, 5, 'I'
#define E42 'E', 0, 0, 0, 31, 'S', 'E', 'R', 'R', 'O', 'R', 0, 'C', '4', '2', 'P', '0', '1', 0, \
            'M', 'n', 'o', ' ', 't', 'a', 'b', 'l', 'e', ' ', 'x', 0, 0

static int feed(struct rw_copy_reply *r, const unsigned char *p, size_t n, size_t step, char *err,
                size_t errlen)
{
    return feedtest_pieces(rw_copy_feed, r, p, n, step, err, errlen);
}

/* Every piece size: the reply ends with `want`, err containing `part`
 * (NULL: no error text expected). Returns the parser's state of the last. */
static struct rw_copy_reply run(const unsigned char *p, size_t n, int want, const char *part)
{
    struct rw_copy_reply r;
    for (size_t step = 1; step <= n; step++) {
        char err[PGCB_ERRLEN] = "";
        rw_copy_reply_init(&r);
        int got = feed(&r, p, n, step, err, sizeof err);
        if (got != want || (part && !strstr(err, part)))
            fail_msg("step %zu: %d \"%s\"; wanted %d \"%s\"", step, got, err, want,
                     part ? part : "");
        if (part)
            assert_null(strchr(err, '\n'));
    }
    return r;
}

static void test_copy_ok(void **state)
{
    static const unsigned char b[] = {G3, 'N', 0, 0, 0, 5, 0, CC('3'), Z};
    (void)state;
    struct rw_copy_reply r = run(b, sizeof b, RW_FEED_DONE, NULL);
    assert_int_equal(r.rows, 3);
    assert_false(r.have_error);
    assert_false(r.not_copy);
}

static void test_refused(void **state)
{
    /* the server's answer to a missing table: no CopyInResponse */
    static const unsigned char b[] = {E42, Z};
    (void)state;
    struct rw_copy_reply r = run(b, sizeof b, RW_FEED_DONE, NULL);
    assert_true(r.have_error);
    assert_non_null(strstr(r.qerr, "42P01: no table x"));
    /* mid-stream: after the CopyInResponse */
    static const unsigned char m[] = {G3, E42, Z};
    r = run(m, sizeof m, RW_FEED_DONE, NULL);
    assert_true(r.have_error);
}

static void test_not_a_copy(void **state)
{
    static const unsigned char b[] = {'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0, Z};
    (void)state;
    struct rw_copy_reply r = run(b, sizeof b, RW_FEED_DONE, NULL);
    assert_true(r.not_copy);
}

static void test_malformed(void **state)
{
    (void)state;
    static const unsigned char z_first[] = {Z};
    run(z_first, sizeof z_first, RW_FEED_ERROR, "unexpected message type 'Z' in a COPY (expecting CopyInResponse)");
    static const unsigned char z_in[] = {G3, Z};
    run(z_in, sizeof z_in, RW_FEED_ERROR, "expecting CommandComplete of the COPY");
    static const unsigned char g_twice[] = {G3, G3};
    run(g_twice, sizeof g_twice, RW_FEED_ERROR, "unexpected message type 'G'");
    static const unsigned char g_short[] = {'G', 0, 0, 0, 9, 0, 0, 3, 0, 0};
    run(g_short, sizeof g_short, RW_FEED_ERROR, "malformed CopyInResponse");
    static const unsigned char g_fmt[] = {'G', 0, 0, 0, 7, 2, 0, 0};
    run(g_fmt, sizeof g_fmt, RW_FEED_ERROR, "malformed CopyInResponse");
    static const unsigned char tag[] = {G3, 'C', 0, 0, 0, 15, 'I', 'N', 'S', 'E', 'R', 'T', ' ', '0', ' ', '1', 0, Z};
    run(tag, sizeof tag, RW_FEED_ERROR, "CommandComplete of a COPY without a row count");
    static const unsigned char tag_x[] = {G3, CC('x'), Z};
    run(tag_x, sizeof tag_x, RW_FEED_ERROR, "without a row count");
    static const unsigned char unknown[] = {G3, 0x01, 0, 0, 0, 4};
    run(unknown, sizeof unknown, RW_FEED_ERROR, "unknown message type 0x01 in a COPY");
    static const unsigned char badlen[] = {G3, 'C', 0, 0, 0, 3};
    run(badlen, sizeof badlen, RW_FEED_ERROR, "invalid message length 3");
    static const unsigned char bad_err[] = {'E', 0, 0, 0, 6, 'S', 'x', Z};
    run(bad_err, sizeof bad_err, RW_FEED_ERROR, "malformed ErrorResponse in a COPY");
}

static void test_fatal(void **state)
{
    static const unsigned char b[] = {G3, 'E', 0, 0, 0, 24, 'S', 'F', 'A', 'T', 'A', 'L', 0, 'C',
                                      '5', '7', 'P', '0', '1', 0, 'M', 'b', 'y', 'e', 0, 0};
    (void)state;
    struct rw_copy_reply r = run(b, sizeof b, RW_FEED_FATAL, NULL);
    assert_true(r.fatal);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_ok),    cmocka_unit_test(test_refused),
        cmocka_unit_test(test_not_a_copy), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_fatal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
