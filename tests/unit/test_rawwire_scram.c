/*
 * test_rawwire_scram.c -- SCRAM-SHA-256 against RFC 7677's example
 * exchange, the checks of the server's messages, SASLprep's limits and the
 * MD5 password hash. The driver's .c files are compiled in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pgwire/rw_err.h"
#include "pgwire/rw_scram.h"

#define SERVER_FIRST "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define CLIENT_FINAL "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define SERVER_FINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

static void test_rfc7677(void **state)
{
    struct rw_scram s;
    char err[256] = "", *out = NULL;
    size_t outlen = 0;

    (void)state;
    assert_int_equal(rw_scram_init(&s, "user", "rOprNGfwEbeRWgbNEkqO", NULL, err, sizeof err), 0);
    assert_string_equal(s.client_first, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
    assert_int_equal(rw_scram_client_final(&s, "pencil", SERVER_FIRST, strlen(SERVER_FIRST), -1, &out,
                                           &outlen, err, sizeof err),
                     0);
    assert_string_equal(out, CLIENT_FINAL);
    assert_int_equal(outlen, strlen(CLIENT_FINAL));
    free(out);
    assert_int_equal(rw_scram_verify_final(&s, SERVER_FINAL, strlen(SERVER_FINAL), err, sizeof err), 0);
    /* a server that does not know the password */
    assert_int_equal(rw_scram_verify_final(&s, "v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", 46, err,
                                           sizeof err),
                     -1);
    assert_non_null(strstr(err, "signature does not match"));
    assert_int_equal(rw_scram_verify_final(&s, "e=invalid-proof", 15, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid-proof"));
    assert_int_equal(rw_scram_verify_final(&s, "v=!!", 4, err, sizeof err), -1);
    assert_int_equal(rw_scram_verify_final(&s, "x=1", 3, err, sizeof err), -1);
    rw_scram_free(&s);
}

static void bad_first(const char *server_first, const char *part)
{
    struct rw_scram s;
    char err[256] = "", *out = NULL;
    size_t outlen;

    assert_int_equal(rw_scram_init(&s, "", "abc", NULL, err, sizeof err), 0);
    assert_int_equal(rw_scram_client_final(&s, "pw", server_first, strlen(server_first), -1, &out, &outlen,
                                           err, sizeof err),
                     -1);
    assert_null(out);
    if (!strstr(err, part))
        print_error("\"%s\" lacks \"%s\"\n", err, part);
    assert_non_null(strstr(err, part));
    rw_scram_free(&s);
}

static void test_server_first_checks(void **state)
{
    (void)state;
    bad_first("r=xyz123,s=QUJD,i=4096", "nonce");      /* not our nonce */
    bad_first("r=abc,s=QUJD,i=4096", "nonce");         /* no server part */
    bad_first("r=abcd,s=QUJD,i=0", "iteration");
    bad_first("r=abcd,s=QUJD,i=x", "iteration");
    bad_first("r=abcd,s=!!!!,i=1", "salt");
    bad_first("r=abcd,i=1", "malformed");
    bad_first("m=ext,r=abcd,s=QUJD,i=1", "malformed");
}

static void test_random_nonce(void **state)
{
    struct rw_scram a, b;
    char err[256];

    (void)state;
    assert_int_equal(rw_scram_init(&a, "", NULL, NULL, err, sizeof err), 0);
    assert_int_equal(rw_scram_init(&b, "", NULL, NULL, err, sizeof err), 0);
    assert_int_equal(strlen(a.client_nonce), 24); /* 18 random bytes, base64 */
    assert_string_not_equal(a.client_nonce, b.client_nonce);
    assert_memory_equal(a.client_first, "n,,n=,r=", 8);
    rw_scram_free(&a);
    rw_scram_free(&b);
}

/* rw_saslprep(in) is `want`. */
static void saslprep_is(const char *in, const char *want)
{
    char *out = NULL;
    char err[256] = "";

    assert_int_equal(rw_saslprep(in, &out, err, sizeof err), 0);
    assert_string_equal(out, want);
    free(out);
}

static void test_saslprep(void **state)
{
    (void)state;
    saslprep_is("plain ascii", "plain ascii");
    saslprep_is("ctl\x01", "ctl\x01");             /* ASCII: as it is (libpq) */
    saslprep_is("bad\xff utf8", "bad\xff utf8");   /* not UTF-8: raw (libpq) */
    saslprep_is("s\xc3\xab" "cret", "s\xc3\xab" "cret"); /* NFKC leaves it */
    saslprep_is("se\xcc\x88" "cret", "s\xc3\xab" "cret"); /* e + U+0308 composed */
    saslprep_is("I\xc2\xadX", "IX");              /* RFC 4013 3.: soft hyphen mapped out */
    saslprep_is("\xc2\xaa", "a");                  /* U+00AA: NFKC */
    saslprep_is("a\xe2\x80\x80" "b", "a b");          /* U+2000 space: mapped to SPACE */
    saslprep_is("x\xc2\x87y", "x\xc2\x87y");       /* U+0087 prohibited: raw (libpq) */
}

static void test_md5(void **state)
{
    char out[36];
    static const unsigned char salt[4] = {1, 2, 3, 4};

    (void)state;
    assert_int_equal(rw_md5_password("postgres", "secret", salt, out), 0);
    /* python: "md5" + md5(md5("secretpostgres").hexdigest() + b"\1\2\3\4") */
    assert_string_equal(out, "md5bb41a296aab6baccb36ff243a562abff");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7677),
        cmocka_unit_test(test_server_first_checks),
        cmocka_unit_test(test_random_nonce),
        cmocka_unit_test(test_saslprep),
        cmocka_unit_test(test_md5),
    };
    return cmocka_run_group_tests_name("rawwire_scram", tests, NULL, NULL);
}
