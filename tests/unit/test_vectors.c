/*
 * test_vectors.c -- the shared test vectors of the bridge protocol
 * (tests/vectors/folds.json, frames.json), checked against the bridge's own
 * C: every adapter's self-test (adapters/LANG/, run by test_adapter_vectors)
 * must reproduce the same values, so the C side pins them here.
 *
 *   folds.json   each vector's dump read by br_dump_read (the bridge's
 *                reading of an adapter's dump) in each text_length unit;
 *                each case's fold is br_dump_fold's with its kinds, and the
 *                first case's kinds are those the bridge derives.
 *   frames.json  each arrays frame and each base64 triple decoded by
 *                br_arrays_decode (what the bridge does with a reply) to
 *                the vector's samples, rows and folds; each request frame
 *                is the 4-byte big-endian length and json_dumps(request,
 *                JSON_COMPACT), the bytes the bridge writes (br_call.c).
 *
 * `test_vectors --write DIR` rewrites the expected values of DIR's two
 * files from the C (the inputs stay): how the vectors are made. Without
 * arguments it runs the checks from the top of the checkout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <locale.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../drivers/bridge/br_arrays.h"
#include "../../drivers/bridge/br_dump.h"

static const char *vec_dir = "tests/vectors";
static int writing; /* --write: set the expected values instead of checking them */
static locale_t c_loc;

static const char *const units[] = {"utf16", "codepoints", "bytes"};
static const enum br_textlen unit_codes[] = {BR_LEN_UTF16, BR_LEN_CODEPOINTS, BR_LEN_BYTES};

static json_t *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", vec_dir, name);
    json_error_t je;
    json_t *j = json_load_file(path, JSON_ALLOW_NUL, &je); /* as br_call.c reads replies */
    if (!j)
        fail_msg("%s:%d: %s", path, je.line, je.text);
    return j;
}

static void save(json_t *j, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", vec_dir, name);
    if (json_dump_file(j, path, JSON_INDENT(1)) != 0)
        fail_msg("cannot write %s", path);
    FILE *f = fopen(path, "a"); /* a final newline */
    assert_non_null(f);
    fputc('\n', f);
    fclose(f);
}

/* A copy of a dump's value with {"int": "N"} as the JSON integer N: the
 * value an adapter whose integers JSON holds would have dumped. */
static json_t *plain_ints(const json_t *v)
{
    if (json_is_array(v)) {
        json_t *a = json_array();
        for (size_t i = 0; i < json_array_size(v); i++)
            json_array_append_new(a, plain_ints(json_array_get(v, i)));
        return a;
    }
    const json_t *n = json_is_object(v) && json_object_size(v) == 1 ? json_object_get(v, "int")
                                                                      : NULL;
    if (json_is_string(n)) {
        char *end;
        long long x = strtoll(json_string_value(n), &end, 10);
        assert_true(*end == '\0');
        return json_integer((json_int_t)x);
    }
    if (json_is_object(v)) {
        json_t *o = json_object();
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e)
            json_object_set_new(o, k, plain_ints(e));
        return o;
    }
    return json_deep_copy(v);
}

static enum br_kind kind_code(const char *name)
{
    for (unsigned k = 0; k < 4; k++)
        if (strcmp(br_kind_name(k), name) == 0)
            return (enum br_kind)k;
    fail_msg("unknown kind %s", name);
    return BR_KIND_ANY;
}

/* One vector of folds.json: checked, or its expected values set. */
static void fold_vector(json_t *v, size_t *ncases)
{
    const char *name = json_string_value(json_object_get(v, "name"));
    json_t *results = plain_ints(json_object_get(v, "results"));
    json_t *cases = json_object_get(v, "cases");
    assert_true(json_is_array(results) && json_is_array(cases) && json_array_size(cases) > 0);
    for (size_t u = 0; u < 3; u++) {
        struct br_dump d;
        struct pgcb_sum zero = {0, 0};
        char err[256] = "";
        if (br_dump_read(results, (uint32_t)json_array_size(results), unit_codes[u], c_loc, &zero,
                         &d, err, sizeof err) != 0)
            fail_msg("folds.json, %s: %s", name, err);
        for (size_t c = 0; c < json_array_size(cases); c++) {
            json_t *cs = json_array_get(cases, c);
            json_t *kinds = json_object_get(cs, "kinds");
            unsigned char *k = NULL;
            if (c == 0 && u == 0) { /* the kinds the bridge derives from this dump */
                json_t *derived = json_array();
                for (uint32_t j = 0; j < d.ncols; j++)
                    json_array_append_new(derived, json_string(br_kind_name(d.kinds[j])));
                if (writing)
                    json_object_set(cs, "kinds", derived);
                else if (!json_equal(kinds, derived))
                    fail_msg("folds.json, %s: case 1's kinds are not the bridge's: %s", name,
                             json_dumps(derived, JSON_COMPACT));
                json_decref(derived);
                kinds = json_object_get(cs, "kinds");
            }
            if (!json_is_null(kinds)) {
                k = calloc(d.ncols ? d.ncols : 1, 1); /* beyond the list: any (0) */
                for (size_t j = 0; j < json_array_size(kinds) && j < d.ncols; j++)
                    k[j] = (unsigned char)kind_code(json_string_value(json_array_get(kinds, j)));
            }
            uint32_t got = br_dump_fold(&d, k);
            free(k);
            json_t *fold = json_object_get(cs, "fold");
            if (writing) {
                if (!json_is_object(fold))
                    json_object_set_new(cs, "fold", fold = json_object());
                json_object_set_new(fold, units[u], json_integer(got));
            } else {
                json_int_t want = json_integer_value(json_object_get(fold, units[u]));
                if (!json_is_integer(json_object_get(fold, units[u])) || want != (json_int_t)got)
                    fail_msg("folds.json, %s, case %zu, %s: the bridge folds %" PRIu32
                             ", the vector says %lld", name, c + 1, units[u], got,
                             (long long)want);
            }
            if (u == 0)
                ++*ncases;
        }
        br_dump_free(&d);
    }
    json_decref(results);
}

static void test_folds(void **state)
{
    (void)state;
    json_t *f = load("folds.json");
    json_t *vs = json_object_get(f, "vectors");
    assert_true(json_is_array(vs) && json_array_size(vs) >= 10);
    size_t ncases = 0;
    for (size_t i = 0; i < json_array_size(vs); i++)
        fold_vector(json_array_get(vs, i), &ncases);
    print_message("folds.json: %zu vectors, %zu cases, 3 units\n", json_array_size(vs), ncases);
    if (writing)
        save(f, "folds.json");
    json_decref(f);
}

static uint64_t u64_of(const json_t *s)
{
    assert_true(json_is_string(s));
    char *end;
    unsigned long long x = strtoull(json_string_value(s), &end, 10);
    assert_true(*end == '\0');
    return (uint64_t)x;
}

static char *hex_of(const unsigned char *b, size_t n)
{
    char *h = malloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
        snprintf(h + 2 * i, 3, "%02x", b[i]);
    h[2 * n] = '\0';
    return h;
}

/* The bytes of a hex string (*n of them; the caller frees). */
static unsigned char *bytes_of(const char *hex, size_t *n)
{
    size_t len = strlen(hex);
    assert_int_equal(len % 2, 0);
    unsigned char *b = malloc(len / 2 + 1);
    for (size_t i = 0; i < len / 2; i++) {
        unsigned x;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &x), 1);
        b[i] = (unsigned char)x;
    }
    *n = len / 2;
    return b;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t x)
{
    p[0] = (unsigned char)(x >> 24), p[1] = (unsigned char)(x >> 16);
    p[2] = (unsigned char)(x >> 8), p[3] = (unsigned char)x;
}

static void put_le(unsigned char *p, uint64_t x, int width)
{
    for (int b = 0; b < width; b++)
        p[b] = (unsigned char)(x >> (8 * b));
}

static json_t *b64_of(const unsigned char *b, size_t n)
{
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, b, (int)n);
    json_t *s = json_string(out);
    free(out);
    return s;
}

/* One arrays vector: the frame and the base64 triple decode (as the bridge
 * decodes them) to its samples, rows and folds; --write: both encoded. */
static void arrays_vector(json_t *v)
{
    const char *name = json_string_value(json_object_get(v, "name"));
    const json_t *js = json_object_get(v, "samples"), *jr = json_object_get(v, "rows"),
                 *jf = json_object_get(v, "folds");
    size_t n = json_array_size(js);
    assert_int_equal(json_array_size(jr), n);
    assert_int_equal(json_array_size(jf), n);
    uint64_t *s = calloc(n + 1, 8), *r = calloc(n + 1, 8), *gs = calloc(n + 1, 8),
             *gr = calloc(n + 1, 8);
    uint32_t *f = calloc(n + 1, 4), *gf = calloc(n + 1, 4);
    unsigned char *body = calloc(20 * n + 4, 1);
    for (size_t i = 0; i < n; i++) {
        s[i] = u64_of(json_array_get(js, i));
        r[i] = u64_of(json_array_get(jr, i));
        f[i] = (uint32_t)json_integer_value(json_array_get(jf, i));
        put_le(body + 4 + 8 * i, s[i], 8);
        put_le(body + 4 + 8 * (n + i), r[i], 8);
        put_le(body + 4 + 16 * n + 4 * i, f[i], 4);
    }
    put_be32(body, (uint32_t)(20 * n));
    json_t *b64 = json_object_get(v, "base64");
    if (writing) {
        char *hex = n ? hex_of(body, 20 * n + 4) : NULL;
        json_object_set_new(v, "frame_hex", hex ? json_string(hex) : json_null());
        free(hex);
        json_t *o = json_object();
        json_object_set_new(o, "samples", b64_of(body + 4, 8 * n));
        json_object_set_new(o, "rows", b64_of(body + 4 + 8 * n, 8 * n));
        json_object_set_new(o, "folds", b64_of(body + 4 + 16 * n, 4 * n));
        json_object_set_new(v, "base64", o);
        b64 = o;
    }
    char why[256] = "";
    const json_t *fh = json_object_get(v, "frame_hex");
    if (n) {
        size_t len;
        unsigned char *frame = bytes_of(json_string_value(fh), &len);
        if (len != 20 * n + 4 || be32(frame) != 20 * n)
            fail_msg("frames.json, %s: a frame of %zu bytes, length %u, for %zu batches", name,
                     len, be32(frame), n);
        if (br_arrays_decode((const char *)frame + 4, len - 4, NULL, n, gs, gr, gf, why,
                             sizeof why) != 0)
            fail_msg("frames.json, %s: the frame: %s", name, why);
        for (size_t i = 0; i < n; i++)
            if (gs[i] != s[i] || gr[i] != r[i] || gf[i] != f[i])
                fail_msg("frames.json, %s: the frame's entry %zu decodes to %" PRIu64 " %" PRIu64
                         " %" PRIu32, name, i, gs[i], gr[i], gf[i]);
        free(frame);
    } else {
        assert_true(json_is_null(fh)); /* no frame for nothing: a frame has a byte at least */
    }
    memset(gs, 0, 8 * n), memset(gr, 0, 8 * n), memset(gf, 0, 4 * n);
    if (br_arrays_decode(NULL, 0, b64, n, gs, gr, gf, why, sizeof why) != 0)
        fail_msg("frames.json, %s: the base64: %s", name, why);
    for (size_t i = 0; i < n; i++)
        if (gs[i] != s[i] || gr[i] != r[i] || gf[i] != f[i])
            fail_msg("frames.json, %s: the base64's entry %zu decodes to %" PRIu64 " %" PRIu64
                     " %" PRIu32, name, i, gs[i], gr[i], gf[i]);
    free(s), free(r), free(f), free(gs), free(gr), free(gf), free(body);
}

/* One request vector: the bytes the bridge writes for `request`. */
static void request_vector(json_t *v)
{
    const char *name = json_string_value(json_object_get(v, "name"));
    const json_t *req = json_object_get(v, "request");
    char *text = json_dumps(req, JSON_COMPACT); /* as br_call.c sends it */
    assert_non_null(text);
    size_t plen = strlen(text);
    unsigned char *wire = malloc(plen + 4);
    put_be32(wire, (uint32_t)plen);
    memcpy(wire + 4, text, plen);
    char *hex = hex_of(wire, plen + 4);
    if (writing)
        json_object_set_new(v, "wire_hex", json_string(hex));
    else if (strcmp(hex, json_string_value(json_object_get(v, "wire_hex"))) != 0)
        fail_msg("frames.json, %s: not the bytes the bridge writes (%zu bytes of JSON)", name,
                 plen);
    free(hex), free(wire), free(text);
}

static void test_frames(void **state)
{
    (void)state;
    json_t *f = load("frames.json");
    json_t *a = json_object_get(f, "arrays"), *q = json_object_get(f, "requests"),
           *p = json_object_get(f, "replies");
    assert_true(json_array_size(a) >= 4 && json_array_size(q) >= 5 && json_array_size(p) >= 2);
    for (size_t i = 0; i < json_array_size(a); i++)
        arrays_vector(json_array_get(a, i));
    for (size_t i = 0; i < json_array_size(q); i++)
        request_vector(json_array_get(q, i));
    for (size_t i = 0; i < json_array_size(p); i++) /* replies: an object with "ok" */
        assert_true(json_is_boolean(json_object_get(json_object_get(json_array_get(p, i), "reply"),
                                                    "ok")));
    print_message("frames.json: %zu arrays, %zu requests, %zu replies\n", json_array_size(a),
                  json_array_size(q), json_array_size(p));
    if (writing)
        save(f, "frames.json");
    json_decref(f);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        writing = 1;
        vec_dir = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--write VECTORS_DIR]\n", argv[0]);
        return 2;
    }
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folds),
        cmocka_unit_test(test_frames),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    freelocale(c_loc);
    return rc;
}
