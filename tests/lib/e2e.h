/*
 * e2e.h -- what the end-to-end tests of the runner program share
 * (tests/server/test_runner_e2e.c, test_workloads.c): a temporary directory,
 * the build and source directories, INI files written at run time, and
 * running build/runner in a child process with its output captured.
 *
 * Functions that assert may only be called inside a running cmocka test.
 */
#ifndef PGCB_TESTS_E2E_H
#define PGCB_TESTS_E2E_H

#include <sys/types.h>

/* Set by e2e_setup(): the temporary directory, the build directory
 * ($PGCB_BUILD or build, made absolute) and the source tree (the cwd). */
extern char e2e_tmp[];
extern char e2e_build[400];
extern char e2e_top[400];

/* Make the temporary directory and find the directories; `prog` names the
 * test in messages. Returns 0, or 1 with a message (PGHOST not set, ...). */
int e2e_setup(const char *prog);

/* Remove the temporary directory. Returns 0 or 1. */
int e2e_teardown(void);

/* TMP/name.ini and TMP/name.json (static buffers, one of each). */
const char *e2e_ini_path(const char *name);
const char *e2e_json_path(const char *name);

/* Write TMP/name.ini: `head` (e.g. a [bench] and a [server] section), then
 * `body`. Returns its path. */
const char *e2e_write_file(const char *name, const char *head, const char *body);

/* Write TMP/name.ini with a tiny [bench] budget and the benchmark_rows
 * setup, then `body`. */
const char *e2e_write_ini(const char *name, const char *body);

/* A file's contents ("" if it cannot be read); the caller frees. */
char *e2e_slurp(const char *path);

int e2e_exists(const char *path);

struct e2e_run {
    int status;     /* exit status, or 128 + signal */
    char *out, *err;
};

/* Run build/runner -c ini -o out [extra], with env additions "K=V" (or "K"
 * alone to unset K). If sig is non-zero, send it once the runner's stdout
 * contains `marker`. */
struct e2e_run e2e_run_runner(const char *ini, const char *out, const char *const *env,
                              const char *extra, int sig, const char *marker);
void e2e_run_free(struct e2e_run *r);

/* Run build/runner -c ini -o out in its own process group (its pid); once
 * its stdout contains `marker`, wait delay_ms and call act(pid, arg): e.g.
 * killpg(pid, SIGTERM), or SIGKILL its hosts (e2e_children). */
struct e2e_run e2e_run_runner_act(const char *ini, const char *out, const char *const *env,
                                  const char *marker, unsigned delay_ms,
                                  void (*act)(pid_t runner, void *arg), void *arg);

/* Run build/runner with the arguments args (NULL-terminated, at most 30:
 * the program name is added), with env additions as e2e_run_runner(). */
struct e2e_run e2e_run_args(const char *const *args, const char *const *env);

/* The direct children of pid (its hosts, for the runner), at most max;
 * returns how many. */
int e2e_children(pid_t pid, pid_t *out, int max);

#endif
