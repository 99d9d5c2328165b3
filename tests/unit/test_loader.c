/*
 * test_loader.c -- the loader accepts a valid driver and refuses each bad
 * fixture (tests/fixtures/) with its one-line reason. The fixtures are built
 * into $PGCB_BUILD/tests/fixtures (PGCB_BUILD defaults to "build").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "host/loader.h"

static char fixture[512];

static const char *fixture_path(const char *name)
{
    const char *b = getenv("PGCB_BUILD");
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/%s.so", b && *b ? b : "build", name);
    return fixture;
}

/* Loading fixture `name` fails with exactly "driver x (PATH): " + reason. */
static void expect_reject(const char *name, const char *reason)
{
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN], want[PGCB_ERRLEN + 600];
    const char *p = fixture_path(name);
    assert_int_equal(pgcb_loader_open("x", p, &l, err, sizeof err), -1);
    assert_null(l.handle);
    snprintf(want, sizeof want, "driver x (%s): %s", p, reason);
    assert_string_equal(err, want);
}

static void test_good(void **state)
{
    (void)state;
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN] = "";
    assert_int_equal(pgcb_loader_open("g", fixture_path("good"), &l, err, sizeof err), 0);
    assert_non_null(l.handle);
    assert_non_null(l.drv);
    assert_int_equal(l.drv->magic, PGCB_DRIVER_MAGIC);
    assert_string_equal(l.drv->name, "good");
    pgcb_loader_close(&l);
    assert_null(l.handle);
}

/* A driver built against ABI 1.0 loads; it has no run_batch_params, although
 * the bytes after its descriptor hold a pointer (abi10's trap). A 1.1
 * driver that leaves the optional slot NULL has none either. */
static void test_abi10_loads(void **state)
{
    (void)state;
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN] = "";
    assert_int_equal(pgcb_loader_open("a", fixture_path("abi10"), &l, err, sizeof err), 0);
    assert_int_equal(l.drv->abi_minor, 0);
    assert_int_equal(l.drv->struct_size, PGCB_DRIVER_SIZE_1_0);
    assert_non_null(l.drv->run_batch_params); /* the trap: not a slot */
    assert_false(PGCB_DRIVER_HAS(l.drv, 1, run_batch_params));
    pgcb_loader_close(&l);

    assert_int_equal(pgcb_loader_open("g", fixture_path("good"), &l, err, sizeof err), 0);
    assert_int_equal(l.drv->abi_minor, PGCB_ABI_MINOR);
    assert_false(PGCB_DRIVER_HAS(l.drv, 1, run_batch_params));
    pgcb_loader_close(&l);
}

static void test_rejects(void **state)
{
    (void)state;
    expect_reject("no_entry", "no entry symbol pgcb_driver_entry(): not a pgclientbench driver, "
                              "or built without PGCB_EXPORT");
    expect_reject("null_entry", "pgcb_driver_entry() returned NULL");
    expect_reject("bad_magic", "bad magic 0xdeadbeef (expected 0x50474342): not a "
                               "pgclientbench driver descriptor");
    char want[256];
    snprintf(want, sizeof want, "ABI major version mismatch: runner has %d.%d, driver has %d.%d; "
             "rebuild the driver against this include/pgcb/driver.h", PGCB_ABI_MAJOR,
             PGCB_ABI_MINOR, PGCB_ABI_MAJOR + 1, PGCB_ABI_MINOR);
    expect_reject("wrong_abi", want);
    snprintf(want, sizeof want, "descriptor too small: struct_size 8, ABI %d.0 needs at least %zu",
             PGCB_ABI_MAJOR, (size_t)PGCB_DRIVER_SIZE_1_0);
    expect_reject("small_struct", want);
    expect_reject("missing_op", "required operation run_batch is missing (NULL)");
}

static void test_missing_file(void **state)
{
    (void)state;
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN];
    assert_int_equal(pgcb_loader_open("m", "/nonexistent/m.so", &l, err, sizeof err), -1);
    assert_string_equal(err, "driver m (/nonexistent/m.so): cannot open: No such file or "
                             "directory (build it with 'make'?)");
}

static void test_not_a_library(void **state)
{
    (void)state;
    const char *p = "/tmp/pgcb_test_loader_not_so.so";
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < 8; i++) /* long enough to have a header, not an ELF one */
        fputs("this is not an ELF shared object\n", f);
    fclose(f);
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN];
    assert_int_equal(pgcb_loader_open("t", p, &l, err, sizeof err), -1);
    /* dlerror() names the file and says why. */
    assert_non_null(strstr(err, "driver t (/tmp/pgcb_test_loader_not_so.so): dlopen failed: "));
    assert_non_null(strstr(err, "invalid ELF header"));
    assert_null(strstr(err, "pkg-config")); /* the hint is for undefined symbols of ours */
    remove(p);
    assert_int_equal(pgcb_loader_open("d", "/tmp", &l, err, sizeof err), -1);
    assert_string_equal(err, "driver d (/tmp): not a regular file");
}

/* A driver that calls pgcb/value.h's out-of-line conversions without
 * linking libpgcbvalue: dlopen's "undefined symbol" and what to link. */
static void test_unlinked_value_library(void **state)
{
    (void)state;
    struct pgcb_loaded l;
    char err[PGCB_ERRLEN];
    const char *p = fixture_path("unlinked_value");
    assert_int_equal(pgcb_loader_open("u", p, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "dlopen failed: "));
    assert_non_null(strstr(err, "undefined symbol: pgcb_value_fold_more"));
    assert_non_null(strstr(err, "link it with `pkg-config --libs pgclientbench`, i.e. "
                                "-lpgcbvalue"));
    assert_null(strchr(err, '\n')); /* one line */
}

static void test_caps_str(void **state)
{
    (void)state;
    char buf[64];
    pgcb_loader_caps_str(0, buf, sizeof buf);
    assert_string_equal(buf, "none");
    pgcb_loader_caps_str(PGCB_CAP_PIPELINE | PGCB_CAP_REFERENCE, buf, sizeof buf);
    assert_string_equal(buf, "pipeline, reference");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_abi10_loads),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_library),
        cmocka_unit_test(test_unlinked_value_library),
        cmocka_unit_test(test_caps_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
