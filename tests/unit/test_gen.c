/*
 * test_gen.c -- parameter generators: parsing (every error message),
 * sequences shared through their counter, the distributions of the random
 * generators (seeded: every expectation below is exact for seed 42), and
 * repeatability.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/gen.h"

static void parse_ok(const char *spec, struct pgcb_gen *g)
{
    char err[160] = "";
    assert_int_equal(pgcb_gen_parse(spec, g, err, sizeof err), 0);
    assert_string_equal(err, "");
}

static void parse_bad(const char *spec, const char *want)
{
    struct pgcb_gen g;
    char err[160] = "";
    assert_int_equal(pgcb_gen_parse(spec, &g, err, sizeof err), -1);
    assert_string_equal(err, want);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_bad("", "empty: use seq START [STEP], uniform LO HI, list V1 V2 ... or text LEN");
    parse_bad("zipf 1 2", "unknown generator 'zipf' (known: seq, uniform, list, text)");
    parse_bad("seq", "seq: expected START [STEP], integers, STEP not 0");
    parse_bad("seq 1 0", "seq: expected START [STEP], integers, STEP not 0");
    parse_bad("seq x", "seq: expected START [STEP], integers, STEP not 0");
    parse_bad("seq 1 2 3", "seq: expected START [STEP], integers, STEP not 0");
    parse_bad("seq 1 2 3 4", "seq: too many arguments");
    parse_bad("uniform 5 4", "uniform: expected LO HI, integers, LO <= HI");
    parse_bad("uniform 1", "uniform: expected LO HI, integers, LO <= HI");
    parse_bad("uniform 1 99999999999999999999", "uniform: expected LO HI, integers, LO <= HI");
    parse_bad("list", "list: no values (list V1 V2 ...)");
    parse_bad("text -1", "text: expected LEN, an integer from 0 to 65536");
    parse_bad("text 65537", "text: expected LEN, an integer from 0 to 65536");
}

/* Fill n rows of one generator; values copied out as strings. */
static void fill1(const struct pgcb_gen *g, struct pgcb_rng *r, _Atomic int64_t *seqs, size_t n,
                  char out[][32], int *lens)
{
    const char **v = calloc(n, sizeof *v);
    char *arena = malloc(n * (pgcb_gen_max_len(g) + 1) + 1);
    assert_non_null(v);
    assert_non_null(arena);
    pgcb_gen_fill(g, 1, r, seqs, n, v, lens, arena);
    for (size_t i = 0; i < n; i++) {
        assert_true(lens[i] < 32);
        memcpy(out[i], v[i], (size_t)lens[i]);
        out[i][lens[i]] = '\0';
    }
    free(v);
    free(arena);
}

static void test_seq_shared(void **state)
{
    (void)state;
    struct pgcb_gen g;
    parse_ok("seq 10 5", &g);
    assert_int_equal(g.kind, PGCB_GEN_SEQ);
    _Atomic int64_t seqs[2] = {0, 0};
    g.seq_slot = 1;
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 42, 0, 0, 0, 0);
    char v[3][32];
    int len[3];
    fill1(&g, &r, seqs, 2, v, len);
    assert_string_equal(v[0], "10");
    assert_string_equal(v[1], "15");
    assert_int_equal(len[1], 2);
    /* Another thread (another rng) continues the same sequence. */
    struct pgcb_rng r2;
    pgcb_rng_seed(&r2, 7, 1, 2, 3, 4);
    fill1(&g, &r2, seqs, 3, v, len);
    assert_string_equal(v[0], "20");
    assert_string_equal(v[2], "30");
    assert_int_equal(atomic_load(&seqs[1]), 5);
    assert_int_equal(atomic_load(&seqs[0]), 0);
    pgcb_gen_free(&g);
    /* Negative steps and values. */
    parse_ok("seq -1 -1000", &g);
    _Atomic int64_t s1[1] = {0};
    fill1(&g, &r, s1, 2, v, len);
    assert_string_equal(v[0], "-1");
    assert_string_equal(v[1], "-1001");
    pgcb_gen_free(&g);
}

static void test_uniform_distribution(void **state)
{
    (void)state;
    struct pgcb_gen g;
    parse_ok("uniform -2 3", &g);
    enum { N = 60000 };
    static char v[N][32];
    static int len[N];
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 42, 1, 0, 0, 0);
    fill1(&g, &r, NULL, N, v, len);
    long count[6] = {0};
    for (int i = 0; i < N; i++) {
        long x = strtol(v[i], NULL, 10);
        assert_true(x >= -2 && x <= 3);
        count[x + 2]++;
    }
    /* 10000 expected per value; the binomial sd is 91: within 4 sd. */
    for (int k = 0; k < 6; k++) {
        assert_true(count[k] > 10000 - 365);
        assert_true(count[k] < 10000 + 365);
    }
    /* Repeatable: the same seed and stream give the same values. */
    static char w[N][32];
    pgcb_rng_seed(&r, 42, 1, 0, 0, 0);
    fill1(&g, &r, NULL, N, w, len);
    assert_memory_equal(v, w, sizeof v);
    /* Another stream differs. */
    pgcb_rng_seed(&r, 42, 2, 0, 0, 0);
    fill1(&g, &r, NULL, N, w, len);
    assert_memory_not_equal(v, w, sizeof v);
    pgcb_gen_free(&g);
    /* The whole int64 range does not overflow. */
    parse_ok("uniform -9223372036854775808 9223372036854775807", &g);
    fill1(&g, &r, NULL, 100, v, len);
    pgcb_gen_free(&g);
}

/* The values themselves are pinned: a change of generator or seeding
 * would silently change what every run binds. */
static void test_uniform_pinned(void **state)
{
    (void)state;
    struct pgcb_gen g;
    parse_ok("uniform 1 100", &g);
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 42, 1, 0, 0, 0);
    char v[8][32];
    int len[8];
    fill1(&g, &r, NULL, 8, v, len);
    static const char *const want[8] = {"53", "74", "21", "75", "18", "46", "73", "23"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(v[i], want[i]);
    pgcb_gen_free(&g);
}

static void test_rng_below_unbiased(void **state)
{
    (void)state;
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 42, 0, 0, 0, 0);
    long count[3] = {0};
    for (int i = 0; i < 300000; i++)
        count[pgcb_rng_below(&r, 3)]++;
    for (int k = 0; k < 3; k++) /* 100000 each, sd 258 */
        assert_true(count[k] > 100000 - 1100 && count[k] < 100000 + 1100);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(pgcb_rng_below(&r, 1), 0);
}

static void test_list_and_text(void **state)
{
    (void)state;
    struct pgcb_gen g;
    parse_ok("list a bb ccc", &g);
    assert_int_equal(g.nwords, 3);
    enum { N = 30000 };
    static char v[N][32];
    static int len[N];
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 42, 3, 0, 0, 0);
    fill1(&g, &r, NULL, N, v, len);
    long count[3] = {0};
    for (int i = 0; i < N; i++) {
        assert_int_equal((int)strlen(v[i]), len[i]);
        assert_true(len[i] >= 1 && len[i] <= 3);
        assert_int_equal(v[i][0], "abc"[len[i] - 1]);
        count[len[i] - 1]++;
    }
    for (int k = 0; k < 3; k++) /* 10000 each, sd 82 */
        assert_true(count[k] > 10000 - 330 && count[k] < 10000 + 330);
    pgcb_gen_free(&g);

    parse_ok("text 20", &g);
    assert_int_equal(pgcb_gen_max_len(&g), 21);
    fill1(&g, &r, NULL, 1000, v, len);
    long letters[26] = {0};
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(len[i], 20);
        for (int c = 0; c < 20; c++) {
            assert_true(v[i][c] >= 'a' && v[i][c] <= 'z');
            letters[v[i][c] - 'a']++;
        }
    }
    for (int k = 0; k < 26; k++) /* 769 each, sd 27 */
        assert_true(letters[k] > 769 - 110 && letters[k] < 769 + 110);
    pgcb_gen_free(&g);
}

/* Two generators side by side: row-major layout, each from its own spec. */
static void test_rows_layout(void **state)
{
    (void)state;
    struct pgcb_gen g[2];
    parse_ok("seq 1", &g[0]);
    parse_ok("list x", &g[1]);
    _Atomic int64_t seqs[1] = {0};
    const char *v[6];
    int len[6];
    char arena[64];
    struct pgcb_rng r;
    pgcb_rng_seed(&r, 1, 0, 0, 0, 0);
    pgcb_gen_fill(g, 2, &r, seqs, 3, v, len, arena);
    assert_memory_equal(v[0], "1", 1);
    assert_memory_equal(v[1], "x", 1);
    assert_memory_equal(v[2], "2", 1);
    assert_memory_equal(v[4], "3", 1);
    assert_ptr_equal(v[5], g[1].words[0]);
    assert_int_equal(len[5], 1);
    pgcb_gen_free(&g[0]);
    pgcb_gen_free(&g[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_seq_shared),
        cmocka_unit_test(test_uniform_distribution),
        cmocka_unit_test(test_uniform_pinned),
        cmocka_unit_test(test_rng_below_unbiased),
        cmocka_unit_test(test_list_and_text),
        cmocka_unit_test(test_rows_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
