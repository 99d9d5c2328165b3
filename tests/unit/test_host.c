/*
 * test_host.c -- a measuring host run alone, without a session or a server:
 * the null driver (build/drivers/null.so, no I/O) in a host process started
 * with nothing but what host.h asks for (struct pgcb_host_env, a struct
 * pgcb_host_spec), then driven through its jobs as the scheduler drives it:
 *   - start-up: the query prepared and primed (5 rows, the statement's LIMIT);
 *   - a warm-up: the checksum of the first batch kept, no batch wrong;
 *   - a measured order: at least its batch floor, every batch in the
 *     histogram, the rows and checksums of every batch right;
 *   - the run's stop flag, read through the env: an order with a floor of an
 *     hour ends at once and says so by doing less than its floor;
 *   - a driver that fails a batch (null's fail_after): the thread's status
 *     and message, and the host alive for the next job;
 *   - the env's close_others called in the new host's process only (a pipe
 *     the test holds is closed there: the host's EOF arrives when the test
 *     closes its own end);
 *   - a driver that cannot connect (null's option refused): start-up fails
 *     with its one line, the host gone.
 * PGCB_BUILD names the build directory (default "build").
 */
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "host/host.h"
#include "host/loader.h"

struct fixture {
    char dir[64], ini[128];
    struct pgcb_config cfg;
    struct pgcb_loaded ld;
    volatile sig_atomic_t stop;
    int cpu;
    struct pgcb_host h;
    int sib[2];            /* a pipe standing for another host's: close_others closes it */
    int close_calls;       /* in the test's own process: must stay 0 */
};

static void close_sibling(void *arg, const struct pgcb_host *self)
{
    struct fixture *f = arg;
    (void)self;
    f->close_calls++; /* only in the host's process, a copy of f */
    close(f->sib[1]);
}

static struct pgcb_host_env env_of(struct fixture *f)
{
    return (struct pgcb_host_env){.cfg = &f->cfg, .stop = &f->stop, .seqs = NULL,
                                  .close_others = close_sibling, .arg = f};
}

static struct pgcb_host_spec spec_of(struct fixture *f, const struct pgcb_option *opts,
                                     size_t nopts)
{
    return (struct pgcb_host_spec){
        .drv = {.drv = f->ld.drv, .name = "null", .opts = opts, .nopts = nopts,
                .caps = f->ld.drv->caps, .self_timed = 0},
        .nthreads = 1, .cpus = &f->cpu, .ncpus = 1, .role = "driver", .conninfo = ""};
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/pgcb-test-host.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->ini, sizeof f->ini, "%s/host.ini", f->dir);
    const char *b = getenv("PGCB_BUILD");
    char so[512];
    snprintf(so, sizeof so, "%s/drivers/null.so", b && *b ? b : "build");
    char *abs = realpath(so, NULL);
    if (!abs)
        fail_msg("%s not built (make)", so);
    FILE *fp = fopen(f->ini, "w");
    assert_non_null(fp);
    fprintf(fp, "[bench]\ntime_ms = 100\nqueries = 10\nbatch_timeout_ms = 30000\n"
                "[server]\nconninfo =\n"
                "[driver.null]\npath = %s\n"
                "[query.limit_5]\nsql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 5\nrows = 5\n"
                "[suite.seq]\ndepth = 2\nqueries = limit_5\n", abs);
    fclose(fp);
    free(abs);
    char err[PGCB_ERRLEN + 256];
    if (pgcb_config_load(f->ini, &f->cfg, err, sizeof err) != 0)
        fail_msg("config: %s", err);
    if (pgcb_loader_open("null", f->cfg.drivers[0].path, &f->ld, err, sizeof err) != 0)
        fail_msg("loader: %s", err);
    f->h = (struct pgcb_host){.cmd_fd = -1, .reply_fd = -1};
    assert_int_equal(pgcb_host_map(&f->h, 1, f->cfg.nqueries), 0);
    assert_int_equal(pipe(f->sib), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    pgcb_host_stop(&f->h);
    pgcb_host_unmap(&f->h);
    close(f->sib[0]);
    close(f->sib[1]);
    pgcb_loader_close(&f->ld);
    pgcb_config_free(&f->cfg);
    unlink(f->ini);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void base_job(struct pgcb_job *job, enum pgcb_job_kind kind)
{
    *job = (struct pgcb_job){.kind = kind, .query = 0, .ngroups = 1, .norders = 1, .depth = 2,
                             .nthreads = 1, .expect_rows = 10, .check_rows = 1,
                             .check_sum = 1};
    snprintf(job->label, sizeof job->label, "seq / limit_5 depth 2");
}

static void start_ok(struct fixture *f, const struct pgcb_option *opts, size_t nopts)
{
    const struct pgcb_host_env env = env_of(f);
    const struct pgcb_host_spec spec = spec_of(f, opts, nopts);
    char err[PGCB_ERRLEN + 512] = "";
    if (pgcb_host_start(&f->h, &env, &spec, 1, NULL, err, sizeof err) != 0)
        fail_msg("host start: %s", err);
    assert_true(f->h.pid > 0);
}

static void run_ok(struct fixture *f)
{
    const struct pgcb_host_env env = env_of(f);
    char err[PGCB_ERRLEN + 512] = "";
    if (pgcb_host_run(&f->h, &env, NULL, err, sizeof err) != 0)
        fail_msg("host run: %s", err);
}

static void test_jobs(void **state)
{
    struct fixture *f = *state;
    start_ok(f, NULL, 0);
    struct pgcb_host_shared *sh = f->h.sh;
    assert_false(sh->queries[0].failed);
    assert_true(sh->queries[0].primed);
    assert_int_equal(sh->queries[0].prime_rows, 5);

    base_job(&sh->job, PGCB_JOB_WARMUP);
    sh->job.stream = PGCB_STREAM_WARMUP;
    sh->job.warmup_ns = 5000000;
    run_ok(f);
    struct pgcb_host_thread *t = &sh->threads[0];
    assert_int_equal(t->rc, PGCB_OK);
    assert_int_equal(t->rows_bad, 0);
    const uint64_t expect = t->expect_sum;
    assert_true(expect != 0);

    base_job(&sh->job, PGCB_JOB_MEASURE);
    sh->job.stream = 0;
    sh->job.time_floor_ns = 2000000;
    sh->job.batch_floor = 500;
    run_ok(f);
    assert_int_equal(t->rc, PGCB_OK);
    assert_true(t->batches >= 500);
    assert_int_equal(t->hist.n, t->batches);
    assert_int_equal(t->rows_bad, 0);
    assert_int_equal(t->sum_bad, 0);
    assert_int_equal(t->expect_sum, expect); /* the warm-up's, kept */

    /* The run's stop flag, through the env: an hour's floor ends at once. */
    f->stop = 1;
    base_job(&sh->job, PGCB_JOB_MEASURE);
    sh->job.time_floor_ns = 3600ull * 1000000000ull;
    sh->job.batch_floor = UINT64_MAX / 2;
    const struct pgcb_host_env env = env_of(f);
    char err[PGCB_ERRLEN + 512] = "";
    assert_int_equal(pgcb_host_send(&f->h, &env, err, sizeof err), 0);
    assert_int_equal(atomic_load(&sh->stop), 1); /* told before the job starts */
    if (pgcb_host_wait(&f->h, &env, NULL, err, sizeof err) != 0)
        fail_msg("host wait: %s", err);
    assert_int_equal(t->rc, PGCB_OK);
    assert_true(t->batches < UINT64_MAX / 2);
    f->stop = 0;

    /* close_others ran in the host's process, not here: the host holds no
     * write end of the sibling pipe, so closing ours gives EOF. */
    assert_int_equal(f->close_calls, 0);
    close(f->sib[1]);
    f->sib[1] = -1;
    char c;
    assert_int_equal(read(f->sib[0], &c, 1), 0);
}

static void test_failing_batch(void **state)
{
    struct fixture *f = *state;
    const struct pgcb_option opts[] = {{"fail_after", "3"}};
    start_ok(f, opts, 1); /* the prime is the first of the 3 */
    struct pgcb_host_shared *sh = f->h.sh;
    base_job(&sh->job, PGCB_JOB_MEASURE);
    sh->job.check_sum = 0;
    sh->job.time_floor_ns = 1000000;
    sh->job.batch_floor = 100;
    run_ok(f);
    struct pgcb_host_thread *t = &sh->threads[0];
    assert_int_equal(t->rc, PGCB_ERR_QUERY);
    if (!strstr(t->err, "XX000: null driver: injected failure"))
        fail_msg("err: %s", t->err);
    assert_true(t->batches <= 2);
    assert_true(f->h.pid > 0); /* the host is still there for the next job */
}

static void test_start_refused(void **state)
{
    struct fixture *f = *state;
    const struct pgcb_option opts[] = {{"rows", "many"}};
    const struct pgcb_host_env env = env_of(f);
    const struct pgcb_host_spec spec = spec_of(f, opts, 1);
    char err[PGCB_ERRLEN + 512] = "";
    assert_int_equal(pgcb_host_start(&f->h, &env, &spec, 1, NULL, err, sizeof err), -1);
    if (!strstr(err, "driver null: cannot connect: "))
        fail_msg("err: %s", err);
    assert_null(strchr(err, '\n'));
    assert_int_equal(f->h.pid, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing_batch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_start_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
