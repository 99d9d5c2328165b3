/*
 * test_pq_params.c -- the libpq drivers' parameter copies (pq_params.c):
 * each query's values NUL-terminated in a buffer the connection reuses,
 * grown only for a larger query, and what is refused before anything is
 * sent.
 *
 * The driver's .c files are linked into its .so only, so this test compiles
 * them into itself by #including them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "pqutil/pq_errmsg.h"
#include "pqutil/pq_params.h"

/* Two queries of three values, not NUL-terminated ('#' after each), a NULL
 * and an empty one among them. */
static const char text[] = "12#abc##7#xyzw#";
static const char *const vals[6] = {text, text + 3, text + 7, NULL, text + 8, text + 10};
static const int lens[6] = {2, 3, 0, 123, 1, 4};

static void test_copies(void **state)
{
    struct pgcb_pq_params pp = {0};
    struct pgcb_params p = {3, vals, lens};
    const char *const *v;
    const int *l;
    char err[PGCB_ERRLEN];

    (void)state;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 2, err, sizeof err), PGCB_OK);
    assert_int_equal(pgcb_pq_nparams(&p), 3);
    v = pgcb_pq_params_query(&pp, &p, 0, &l);
    assert_string_equal(v[0], "12");
    assert_string_equal(v[1], "abc");
    assert_string_equal(v[2], "");
    assert_ptr_equal(l, lens);
    v = pgcb_pq_params_query(&pp, &p, 1, &l);
    assert_null(v[0]);
    assert_string_equal(v[1], "7");
    assert_string_equal(v[2], "xyzw");
    assert_ptr_equal(l, lens + 3);

    /* the same batch again: no new allocation */
    char *buf = pp.buf;
    const char **vp = pp.vals;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 2, err, sizeof err), PGCB_OK);
    assert_ptr_equal(pp.buf, buf);
    assert_ptr_equal(pp.vals, vp);
    pgcb_pq_params_free(&pp);
    assert_null(pp.buf);
    assert_int_equal(pp.cap, 0);
}

static void test_none(void **state)
{
    struct pgcb_pq_params pp = {0};
    struct pgcb_params none = {0, NULL, NULL};
    const int *l = lens;
    char err[PGCB_ERRLEN];

    (void)state;
    assert_int_equal(pgcb_pq_params_reserve(&pp, NULL, 5, err, sizeof err), PGCB_OK);
    assert_int_equal(pgcb_pq_params_reserve(&pp, &none, 5, err, sizeof err), PGCB_OK);
    assert_int_equal(pgcb_pq_nparams(NULL), 0);
    assert_null(pgcb_pq_params_query(&pp, NULL, 0, &l));
    assert_null(l);
    assert_null(pgcb_pq_params_query(&pp, &none, 3, &l));
    assert_null(pp.buf); /* nothing allocated */
    pgcb_pq_params_free(&pp);
}

static void test_refused(void **state)
{
    struct pgcb_pq_params pp = {0};
    struct pgcb_params p = {65536, vals, lens};
    int neg[6] = {2, 3, 0, 0, -1, 4};
    char err[PGCB_ERRLEN];

    (void)state;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 1, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_string_equal(err, "65536 parameters per query: libpq sends at most 65535");
    p.nparams = 3;
    p.lengths = NULL;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 1, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_string_equal(err, "3 parameters per query, but no lengths array");
    p.lengths = neg;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 2, err, sizeof err), PGCB_ERR_UNSUPPORTED);
    assert_string_equal(err, "parameter $2 of query 2: negative length -1");
    /* a NULL value's length is ignored */
    neg[4] = 1;
    neg[3] = -7;
    assert_int_equal(pgcb_pq_params_reserve(&pp, &p, 2, err, sizeof err), PGCB_OK);
    pgcb_pq_params_free(&pp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
