/*
 * test_br_dump.c -- the bridge's reading of a dump (drivers/bridge/br_dump.c,
 * br_dumpval.c) for the types the C drivers convert beyond bool, integers,
 * floats and text: each dumped form folds as the expected pgcb_sum_*
 * sequence (the value itself where the dump carries it; the type's text
 * conversion of pgcb/value.h where it carries text), a 2-D array is
 * refused by name, the note says what the client delivered, and a "char"
 * folds as the server's text of it in every form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <string.h>

#include <jansson.h>
#include <pgcb/value.h>

#include "../../drivers/bridge/br_dump.h"

static locale_t c_loc;

/* The dump of one execution with one column of type oid and one row
 * holding the JSON value `value`. */
static int read_one(uint32_t oid, const char *value, struct br_dump *d, char *err, size_t n)
{
    char text[1024];
    snprintf(text, sizeof text, "[{\"columns\": [{\"name\": \"c\", \"type\": %u}], \"rows\": "
             "[[%s]]}]", oid, value);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    struct pgcb_sum zero = {0, 0};
    int rc = br_dump_read(j, 1, BR_LEN_UTF16, c_loc, &zero, d, err, n);
    json_decref(j);
    return rc;
}

/* The checksum of a one-row one-column batch whose value `fold` folds. */
static uint64_t expect(void (*fold)(struct pgcb_sum *))
{
    struct pgcb_sum s = {0, 0};
    fold(&s);
    pgcb_sum_row(&s);
    return s.hash;
}

static void assert_folds(uint32_t oid, const char *value, void (*fold)(struct pgcb_sum *))
{
    struct br_dump d;
    char err[256] = "";
    if (read_one(oid, value, &d, err, sizeof err) != 0)
        fail_msg("type %u, %s: %s", oid, value, err);
    if (d.sum.hash != expect(fold))
        fail_msg("type %u, %s: checksum %016llx, expected %016llx", oid, value,
                 (unsigned long long)d.sum.hash, (unsigned long long)expect(fold));
    br_dump_free(&d);
}

static void f_uuid(struct pgcb_sum *s)
{
    static const unsigned char b[16] = {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
                                        0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11};
    pgcb_sum_uuid(s, b);
}

static void f_uuid_text(struct pgcb_sum *s)
{
    static const char t[] = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
    assert_int_equal(pgcb_value_fold(s, pgcb_value_kind_of(PGCB_OID_UUID, 0), t, strlen(t),
                                     c_loc), 0);
}

/* A uuid as its 16 bytes (Go) and as its canonical text (Python, Node). */
static void test_uuid(void **state)
{
    (void)state;
    assert_folds(PGCB_OID_UUID, "{\"bytes\": \"a0eebc999c0b4ef8bb6d6bb9bd380a11\"}", f_uuid);
    assert_folds(PGCB_OID_UUID, "{\"other\": \"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\", "
                 "\"type\": \"UUID\"}", f_uuid_text);
    assert_folds(PGCB_OID_UUID, "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"", f_uuid_text);
}

static void fold_text(struct pgcb_sum *s, const char *t)
{
    assert_int_equal(pgcb_value_fold(s, pgcb_value_kind_of(18, 0), t, strlen(t), c_loc), 0);
}

static void f_char_b(struct pgcb_sum *s) { fold_text(s, "B"); }
static void f_char_high(struct pgcb_sum *s) { fold_text(s, "\\351"); }
static void f_char_zero(struct pgcb_sum *s) { fold_text(s, ""); }
static void f_char_digits(struct pgcb_sum *s) { fold_text(s, "66"); }

/* "char" (OID 18) as the server's text of it (charout), whatever form a
 * binary client delivers: asyncpg's bytes, pgx's int8 (signed) -- and a
 * text client's string as it is. */
static void test_char(void **state)
{
    (void)state;
    assert_folds(18, "{\"bytes\": \"42\"}", f_char_b);
    assert_folds(18, "66", f_char_b);
    assert_folds(18, "\"B\"", f_char_b);
    assert_folds(18, "{\"bytes\": \"e9\"}", f_char_high);
    assert_folds(18, "-23", f_char_high); /* int8 0xe9 */
    assert_folds(18, "233", f_char_high);
    assert_folds(18, "0", f_char_zero);
    assert_folds(18, "\"66\"", f_char_digits); /* a string stays text */
}

static void f_int8s(struct pgcb_sum *s)
{
    pgcb_sum_array(s, 4, 1);
    pgcb_sum_int(s, 1);
    pgcb_sum_int(s, INT64_C(9007199254740993));
    pgcb_sum_int(s, -1);
    pgcb_sum_null(s);
}

static void f_texts(struct pgcb_sum *s)
{
    pgcb_sum_array(s, 3, 1);
    pgcb_sum_text(s, "a b", 3);
    pgcb_sum_null(s);
    pgcb_sum_text(s, "", 0);
}

static void f_float8s(struct pgcb_sum *s)
{
    pgcb_sum_array(s, 3, 1);
    pgcb_sum_float8(s, 1.5);
    pgcb_sum_float8(s, NAN);
    pgcb_sum_float8(s, -INFINITY);
}

static void f_empty(struct pgcb_sum *s)
{
    pgcb_sum_array(s, 0, 1);
}

/* Arrays element by element, in every integer form of the dump. */
static void test_arrays(void **state)
{
    (void)state;
    assert_folds(PGCB_OID_INT8_ARRAY, "[1, {\"int\": \"9007199254740993\"}, \"-1\", null]",
                 f_int8s);
    assert_folds(PGCB_OID_TEXT_ARRAY, "[\"a b\", null, \"\"]", f_texts);
    assert_folds(PGCB_OID_FLOAT8_ARRAY, "[1.5, {\"float\": \"NaN\"}, {\"float\": \"-Infinity\"}]",
                 f_float8s);
    assert_folds(PGCB_OID_INT4_ARRAY, "[]", f_empty);
}

/* A nested array: refused (-2), naming the column, its type and the row;
 * nothing kept. */
static void test_array_2d(void **state)
{
    (void)state;
    struct br_dump d;
    char err[256] = "";
    assert_int_equal(read_one(PGCB_OID_INT4_ARRAY, "[[1, 2], [3, 4]]", &d, err, sizeof err), -2);
    assert_non_null(strstr(err, "column 1 \"c\" (int4[]), row 1: an array of more than one "
                                "dimension"));
    assert_null(d.rows);
}

static void f_bytea(struct pgcb_sum *s)
{
    assert_int_equal(pgcb_value_fold(s, pgcb_value_kind_of(PGCB_OID_BYTEA, 0), "\\x00ff", 6,
                                     c_loc), 0);
}

static void f_tstz(struct pgcb_sum *s)
{
    static const char t[] = "2024-01-02 01:04:05.123+00";
    assert_int_equal(pgcb_value_fold(s, pgcb_value_kind_of(PGCB_OID_TIMESTAMPTZ, 0), t,
                                     strlen(t), c_loc), 0);
}

static void f_numeric(struct pgcb_sum *s)
{
    assert_int_equal(pgcb_value_fold(s, pgcb_value_kind_of(PGCB_OID_NUMERIC, 0), "1.50", 4,
                                     c_loc), 0);
}

/* Text forms go through the type's text conversion: bytes as \x + hex, a
 * client's rendering ("other") as the server's text would. */
static void test_text_forms(void **state)
{
    (void)state;
    assert_folds(PGCB_OID_BYTEA, "{\"bytes\": \"00ff\"}", f_bytea);
    assert_folds(PGCB_OID_TIMESTAMPTZ, "{\"other\": \"2024-01-02 01:04:05.123+00\", \"type\": "
                 "\"Date\"}", f_tstz);
    assert_folds(PGCB_OID_NUMERIC, "\"1.50\"", f_numeric);
    assert_folds(PGCB_OID_NUMERIC, "{\"other\": \"1.50\", \"type\": \"Decimal\"}", f_numeric);
}

/* The note: each converted column once, with the client's type; a value
 * that is no value of the type says so; the server's text says nothing. */
static void test_note(void **state)
{
    (void)state;
    struct br_dump d;
    char err[256] = "";
    const char *text =
        "[{\"columns\": [{\"name\": \"n\", \"type\": 1700}, {\"name\": \"ts\", \"type\": 1184}, "
        "{\"name\": \"x\", \"type\": 1082}, {\"name\": \"i\", \"type\": 23}], \"rows\": "
        "[[\"1.5\", {\"other\": \"2024-01-02 01:04:05.123+00\", \"type\": \"Date\"}, "
        "{\"weird\": 1}, {\"other\": \"1\", \"type\": \"X\"}], "
        "[\"2.5\", {\"other\": \"2024-01-02 01:04:05.124+00\", \"type\": \"Date\"}, null, 2]]}]";
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    struct pgcb_sum zero = {0, 0};
    assert_int_equal(br_dump_read(j, 1, BR_LEN_UTF16, c_loc, &zero, &d, err, sizeof err), 0);
    json_decref(j);
    assert_string_equal(d.note, "column 2 \"ts\" (timestamptz): the client delivered Date; "
                                "column 3 \"x\" (date): the client delivered {\"weird\":1}, not "
                                "a date value");
    br_dump_free(&d);
}

int main(void)
{
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uuid),       cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_array_2d),   cmocka_unit_test(test_text_forms),
        cmocka_unit_test(test_note),       cmocka_unit_test(test_char),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    freelocale(c_loc);
    return rc;
}
