/*
 * check.c -- the driver conformance suite; see check.h.
 *
 * Structure. The parent (pgcb_check_driver) never loads the checked driver.
 * It runs one "task" after another, each in a forked child that loads the
 * driver, does the task's setup (open, prepare) and its checks, and writes
 * records, one per line, into a pipe:
 *
 *   E name          a check this task will report (sent first, before any
 *                   driver code runs)
 *   B name          the check starts
 *   T what          a driver call starts ("run_batch", "open (setup)")
 *   P name\tdetail  the check passed
 *   F name\twhy     the check failed
 *   D ...           data for the parent (capabilities, checksums)
 *
 * The parent prints P and F records as they come. It restarts a timer at
 * every B and T record: a child silent for longer than the timeout is
 * killed. When a child ends without reporting all its checks (killed by a
 * signal, timed out, exited), the check it was in fails with the reason and
 * the phase ("crashed (SIGSEGV) in run_batch"), and the checks it had not
 * reached fail "not run". The parent state (which checks passed, the
 * reference checksums) is what later children inherit through fork().
 *
 * The files (check_int.h declares what they share):
 *
 *   check.c             the order of the tasks, what they need (the queries,
 *                       the server, the reference), the checksums compared
 *   check_run.c         the parent's side: a task in a child, its records,
 *                       the results
 *   check_util.c        text helpers; the child's side of the records
 *   check_descriptor.c  the tasks load and descriptor
 *   check_tasks.c       the tasks open, options, prepare, batches, reference
 *   check_errors.c      the tasks errors and close_clean
 *   check_params.c      the task params (run_batch_params)
 */
#include "check.h"

#include <errno.h>
#include <libpq-fe.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_int.h"
#include "config/config.h"
#include "pgcb/driver.h"
#include "server/server.h"
#include "util.h"

#define CHK_BENCH_SQL \
    "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT "

static const struct chk_query builtin_queries[] = {
    {"limit_1", CHK_BENCH_SQL "1", 1, 0},
    {"limit_100", CHK_BENCH_SQL "100", 100, 0},
    {"limit_500", CHK_BENCH_SQL "500", 500, 0},
};

static void name_sum(char *b, size_t n, const struct chk_query *q, uint32_t depth)
{
    snprintf(b, n, "checksum %s depth %u", q->name, depth);
}

/* ------------------------------------------------------------------------ */
/* Parent: checksums, the server, the reference                             */
/* ------------------------------------------------------------------------ */

static void report_checksums(struct chk *c, size_t qi)
{
    const struct chk_query *q = &c->q[qi];
    int reference = (c->caps & PGCB_CAP_REFERENCE) != 0;
    for (size_t di = 0; di < CHK_NDEPTHS; di++) {
        char name[CHK_NAME], bname[CHK_NAME];
        uint32_t depth = pgcb_chk_depths[di];
        name_sum(name, sizeof name, q, depth);
        pgcb_chk_name_batch(bname, sizeof bname, q, depth);
        const struct chk_sum *s = &c->sum[qi][di], *r = &c->ref[qi][di];
        const char *noref = c->ref_err[0] ? c->ref_err : c->ref_qerr[qi][0] ? c->ref_qerr[qi]
                            : !r->have ? "the reference returned nothing" : NULL;
        if (q->rows_only) {
            pgcb_chk_report(c, 1, name, "not compared: [query.%s] check = rows", q->name);
        } else if (!s->have) {
            pgcb_chk_report(c, 0, name, "no checksum: %s failed", bname);
        } else if (reference) {
            if (noref)
                pgcb_chk_report(c, 1, name, "not required (reference driver): 0x%016llx; no "
                                "reference to compare with: %s", (unsigned long long)s->hash,
                                noref);
            else if (s->hash == r->hash && s->rows == r->rows)
                pgcb_chk_report(c, 1, name, "0x%016llx, equal to %s's (not required: reference "
                                "driver)", (unsigned long long)s->hash, CHK_REF_NAME);
            else
                pgcb_chk_report(c, 1, name, "not required (reference driver): 0x%016llx, %s's is "
                                "0x%016llx", (unsigned long long)s->hash, CHK_REF_NAME,
                                (unsigned long long)r->hash);
        } else if (noref) {
            pgcb_chk_report(c, 0, name, "no reference checksum: %s", noref);
        } else if (s->rows != r->rows) {
            pgcb_chk_report(c, 0, name, "%llu rows, %s returns %llu", (unsigned long long)s->rows,
                            CHK_REF_NAME, (unsigned long long)r->rows);
        } else if (s->hash != r->hash) {
            pgcb_chk_report(c, 0, name, "0x%016llx, %s returns 0x%016llx: a value is converted or "
                            "folded differently (see the pgcb_sum_* helpers in driver.h)",
                            (unsigned long long)s->hash, CHK_REF_NAME, (unsigned long long)r->hash);
        } else {
            pgcb_chk_report(c, 1, name, "0x%016llx, equal to %s's", (unsigned long long)s->hash,
                            CHK_REF_NAME);
        }
    }
}

/* The table the built-in queries read: created as sql/benchmark_rows.sql
 * does when missing; 500 rows required. */
static int prepare_builtin(const char *conninfo, char *info, size_t ni, char *err, size_t errlen)
{
    char msg[400];
    PGconn *pc = PQconnectdb(conninfo);
    if (PQstatus(pc) != CONNECTION_OK) {
        pgcb_oneline(msg, sizeof msg, PQerrorMessage(pc));
        snprintf(err, errlen, "cannot connect to the server: %s", msg);
        PQfinish(pc);
        return -1;
    }
    const char *ver = PQparameterStatus(pc, "server_version");
    int created = 0;
    PGresult *r = PQexec(pc, "SELECT to_regclass('benchmark_rows') IS NULL");
    int missing = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
                  strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    if (missing) {
        static const char *const create[] = {
            "CREATE TABLE IF NOT EXISTS benchmark_rows (id int PRIMARY KEY, int_value int, "
            "string_value text, null_value text, bool_value boolean)",
            "INSERT INTO benchmark_rows (id, int_value, string_value, null_value, bool_value) "
            "SELECT i, 1337, 'wat', NULL, false FROM generate_series(1, 500) AS i "
            "ON CONFLICT (id) DO NOTHING",
            "ANALYZE benchmark_rows",
        };
        for (size_t i = 0; i < sizeof create / sizeof create[0]; i++) {
            r = PQexec(pc, create[i]);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                pgcb_oneline(msg, sizeof msg, PQresultErrorMessage(r));
                snprintf(err, errlen, "benchmark_rows is missing and cannot be created: %s "
                         "(create it with: psql -f sql/benchmark_rows.sql)", msg);
                PQclear(r);
                PQfinish(pc);
                return -1;
            }
            PQclear(r);
        }
        created = 1;
    }
    r = PQexec(pc, "SELECT count(*) FROM benchmark_rows");
    long long n = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                      ? atoll(PQgetvalue(r, 0, 0)) : -1;
    if (n < 0)
        pgcb_oneline(msg, sizeof msg, PQresultErrorMessage(r));
    PQclear(r);
    if (n < 500) {
        if (n < 0)
            snprintf(err, errlen, "cannot read benchmark_rows: %s", msg);
        else
            snprintf(err, errlen, "benchmark_rows has %lld rows, the built-in queries need 500: "
                     "recreate it with: psql -f sql/benchmark_rows.sql", n);
        PQfinish(pc);
        return -1;
    }
    snprintf(info, ni, "PostgreSQL %s; benchmark_rows %s", ver ? ver : "?",
             created ? "created (500 rows, as sql/benchmark_rows.sql)" : "present");
    PQfinish(pc);
    return 0;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where libpq_sync is: see check.h. Sets *how; NULL if nowhere. */
static char *find_reference(const char *so_path, const char **how)
{
    const char *env = getenv("PGCB_CHECK_REFERENCE");
    if (env && *env) {
        *how = "PGCB_CHECK_REFERENCE";
        return pgcb_xstrdup(env);
    }
    const char *slash = strrchr(so_path, '/');
    char *p = slash ? pgcb_xasprintf("%.*s/%s.so", (int)(slash - so_path), so_path, CHK_REF_NAME)
                    : pgcb_xasprintf("%s.so", CHK_REF_NAME);
    if (file_exists(p)) {
        *how = "next to the checked driver";
        return p;
    }
    free(p);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *s = strrchr(exe, '/');
        if (s) {
            *s = '\0';
            p = pgcb_xasprintf("%s/drivers/%s.so", exe, CHK_REF_NAME);
            if (file_exists(p)) {
                *how = "next to the program";
                return p;
            }
            free(p);
            /* make install: PREFIX/bin/pgclientbench and
             * PREFIX/lib/pgclientbench/drivers/ (docs/install.md). */
            char *up = strrchr(exe, '/');
            if (up) {
                p = pgcb_xasprintf("%.*s/lib/pgclientbench/drivers/%s.so", (int)(up - exe), exe,
                                   CHK_REF_NAME);
                if (file_exists(p)) {
                    *how = "installed beside the program";
                    return p;
                }
                free(p);
            }
        }
    }
    return NULL;
}

static int finish(struct chk *c)
{
    fprintf(c->out, "%d passed, %d failed\n", c->passed, c->failed);
    fflush(c->out);
    return c->failed ? 1 : 0;
}

static int usage_error(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(struct chk *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->out, "error: ");
    vfprintf(c->out, fmt, ap);
    fprintf(c->out, "\n");
    va_end(ap);
    fflush(c->out);
    return 2;
}

/* The check's settings: the timeout, the label, the file, the queries and
 * the connection string. 0, or the exit status of a usage error (said). */
static int chk_setup(struct chk *c, const char *so_path, const struct pgcb_config *cfg)
{
    c->timeout_s = PGCB_CHECK_TIMEOUT_S;
    const char *tv = getenv("PGCB_CHECK_TIMEOUT");
    if (tv && *tv) {
        uint64_t u;
        if (pgcb_parse_u64(tv, 1, 3600, &u) != 0)
            return usage_error(c, "PGCB_CHECK_TIMEOUT: '%s' is not a number of seconds from 1 "
                               "to 3600", tv);
        c->timeout_s = (int)u;
    }
    const char *base = strrchr(so_path, '/');
    base = base ? base + 1 : so_path;
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".so") == 0)
        bl -= 3;
    snprintf(c->label, sizeof c->label, "%.*s", (int)(bl < 63 ? bl : 63), base);

    struct stat st;
    if (stat(so_path, &st) != 0)
        return usage_error(c, "driver %s (%s): cannot open: %s (build it with 'make'?)",
                           c->label, so_path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return usage_error(c, "driver %s (%s): not a regular file", c->label, so_path);

    /* The queries and the connection string. */
    if (cfg) {
        if (cfg->nqueries == 0)
            return usage_error(c, "%s: no [query.NAME] section", cfg->file);
        c->nq = cfg->nqueries;
        c->q = pgcb_xcalloc(c->nq, sizeof *c->q);
        for (size_t i = 0; i < c->nq; i++)
            c->q[i] = (struct chk_query){cfg->queries[i].name, cfg->queries[i].sql,
                                         cfg->queries[i].rows,
                                         cfg->queries[i].check == PGCB_CHECK_ROWS};
        c->conninfo = cfg->conninfo ? cfg->conninfo : "";
    } else {
        c->nq = sizeof builtin_queries / sizeof builtin_queries[0];
        c->q = pgcb_xcalloc(c->nq, sizeof *c->q);
        memcpy(c->q, builtin_queries, sizeof builtin_queries);
        const char *env = getenv("PGCB_CONNINFO");
        c->conninfo = env ? env : "";
    }
    c->sum = pgcb_xcalloc(c->nq, sizeof *c->sum);
    c->ref = pgcb_xcalloc(c->nq, sizeof *c->ref);
    c->ref_qerr = pgcb_xcalloc(c->nq, sizeof *c->ref_qerr);
    c->expect = pgcb_xcalloc(c->nq, sizeof *c->expect);
    return 0;
}

/* What the tasks after the descriptor need: a server (prepared) and the
 * reference driver's figures; then each query's expected rows. 0, or the
 * exit status of a usage error (said). */
static int chk_server_and_reference(struct chk *c, const char *so_path,
                                    const struct pgcb_config *cfg)
{
    FILE *out = c->out;
    int no_io = (c->caps & PGCB_CAP_NO_IO) != 0, reference = (c->caps & PGCB_CAP_REFERENCE) != 0;
    const char *how = NULL;
    c->ref_path = find_reference(so_path, &how);
    char *redacted = pgcb_conninfo_redact(c->conninfo);
    char qlist[512] = "";
    for (size_t i = 0; i < c->nq; i++)
        snprintf(qlist + strlen(qlist), sizeof qlist - strlen(qlist), "%s%s", i ? ", " : "",
                 c->q[i].name);
    fprintf(out, "Queries: %s (%s); depths 1, 10 and 1000; at most %d s per driver call (a batch: "
                 "per %llu rows it returns)\n", qlist,
            cfg ? cfg->file : "built in", c->timeout_s, PGCB_CHECK_ROWS_PER_TIMEOUT);
    if (!c->ref_path && !reference) {
        free(redacted);
        return usage_error(c, "no reference driver: %s.so is neither next to %s nor in the "
                           "program's drivers/ or ../lib/pgclientbench/drivers/ directory; set "
                           "PGCB_CHECK_REFERENCE=PATH", CHK_REF_NAME, so_path);
    }
    if (c->ref_path && !file_exists(c->ref_path) && !reference) {
        int ret = usage_error(c, "reference driver %s (%s): no such file", c->ref_path, how);
        free(redacted);
        return ret;
    }
    int need_server = !no_io || !reference; /* the driver's own I/O, or the comparison */
    char err[PGCB_ERRLEN], info[512] = "";
    int server_ok = 0;
    if (need_server || c->ref_path) {
        int rc;
        if (cfg) {
            struct pgcb_server_info si;
            rc = pgcb_server_prepare(c->conninfo, cfg->setup, &si, err, sizeof err);
            if (rc == 0)
                snprintf(info, sizeof info, "PostgreSQL %s via %s%s%s", si.version, si.where,
                         cfg->setup ? "; setup " : "", cfg->setup ? cfg->setup : "");
        } else {
            rc = prepare_builtin(c->conninfo, info, sizeof info, err, sizeof err);
        }
        if (rc != 0 && need_server) {
            int ret = usage_error(c, "%s (conninfo \"%s\"%s)", err, redacted,
                                  c->conninfo[0] ? "" : ": the PG* variables");
            free(redacted);
            return ret;
        }
        server_ok = rc == 0;
        if (!server_ok)
            snprintf(c->ref_err, sizeof c->ref_err, "no server: %s", err);
    }
    if (server_ok)
        fprintf(out, "Server: %s (conninfo \"%s\"%s)\n", info, redacted,
                c->conninfo[0] ? "" : ": the PG* variables");
    free(redacted);

    if (c->ref_path && server_ok) {
        fprintf(out, "Reference: %s (%s)\n", c->ref_path, how);
        fflush(out);
        pgcb_chk_run_task(c, pgcb_chk_task_reference, "reference", 1);
        if (c->ref_err[0])
            fprintf(out, "Reference: %s\n", c->ref_err);
    } else if (!c->ref_path) {
        snprintf(c->ref_err, sizeof c->ref_err, "%s.so not found", CHK_REF_NAME);
        fprintf(out, "Reference: none (%s)\n", c->ref_err);
    } else {
        fprintf(out, "Reference: %s (%s), not run: %s\n", c->ref_path, how, c->ref_err);
    }
    /* Rows per execution: the config's, else (for a driver that does I/O)
     * the reference's, else the driver's own at depth 1. */
    for (size_t i = 0; i < c->nq; i++) {
        c->expect[i] = c->q[i].rows;
        if (c->expect[i] < 0 && !no_io && c->ref[i][0].have)
            c->expect[i] = (int64_t)c->ref[i][0].rows;
    }
    return 0;
}

/* The tasks from open to close_clean, each optional slot's skipped in one
 * line when the driver has none. */
static void chk_run_tasks(struct chk *c)
{
    FILE *out = c->out;
    int no_io = (c->caps & PGCB_CAP_NO_IO) != 0;
    pgcb_chk_run_task(c, pgcb_chk_task_open, "open", 0);
    pgcb_chk_run_task(c, pgcb_chk_task_options, "options", 0);
    pgcb_chk_run_task(c, pgcb_chk_task_prepare, "prepare", 0);
    for (size_t i = 0; i < c->nq; i++) {
        char what[CHK_NAME];
        snprintf(what, sizeof what, "batch %s", c->q[i].name);
        c->arg_q = i;
        pgcb_chk_run_task(c, pgcb_chk_task_batches, what, 0);
        report_checksums(c, i);
    }
    pgcb_chk_run_task(c, pgcb_chk_task_errors, "errors", 0);
    if (c->has_params) {
        pgcb_chk_run_task(c, pgcb_chk_task_params, "params", 0);
    } else {
        /* Not a failure: the slot is optional; the runner skips such a
         * driver for parameterized queries. One line, no check. */
        if (c->abi_minor < 1)
            fprintf(out, "SKIP params: the driver has ABI %d.%u; run_batch_params came in ABI "
                    "%d.1: parameterized queries skip it\n", PGCB_ABI_MAJOR, c->abi_minor,
                    PGCB_ABI_MAJOR);
        else
            fprintf(out, "SKIP params: run_batch_params is not set (optional): parameterized "
                    "queries skip the driver\n");
        fflush(out);
    }
    if (c->has_copy && !no_io)
        pgcb_chk_run_task(c, pgcb_chk_task_copy, "copy", 0);
    else if (!no_io) {
        /* Optional, as run_batch_params: COPY queries skip such a driver. */
        if (c->abi_minor < 4)
            fprintf(out, "SKIP copy: the driver has ABI %d.%u; run_copy came in ABI %d.4: COPY "
                    "queries skip it\n", PGCB_ABI_MAJOR, c->abi_minor, PGCB_ABI_MAJOR);
        else
            fprintf(out, "SKIP copy: run_copy (ABI %d.4) is not set (optional): COPY queries "
                    "skip the driver\n", PGCB_ABI_MAJOR);
        fflush(out);
    }
    if (c->has_block || c->has_phase)
        pgcb_chk_run_task(c, pgcb_chk_task_block, "block", 0);
    if (c->has_load && c->nq > 0) {
        pgcb_chk_run_task(c, pgcb_chk_task_load_pool, "pool", 0);
    } else if (c->nq > 0) {
        /* Optional: a concurrency suite skips such a driver, saying so. */
        if (c->abi_minor < 5)
            fprintf(out, "SKIP pool: the driver has ABI %d.%u; pool_open and run_load came in "
                    "ABI %d.5: concurrency suites skip it\n", PGCB_ABI_MAJOR, c->abi_minor,
                    PGCB_ABI_MAJOR);
        else
            fprintf(out, "SKIP pool: pool_open and run_load (ABI %d.5) are not set "
                    "(optional): concurrency suites skip the driver\n", PGCB_ABI_MAJOR);
        fflush(out);
    }
    pgcb_chk_run_task(c, pgcb_chk_task_close_clean, "close_clean", 0);
}

int pgcb_check_driver(const char *so_path, const struct pgcb_option *opts, size_t nopts,
                      const struct pgcb_config *cfg, FILE *out)
{
    struct chk c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.path = so_path;
    c.opts = opts;
    c.nopts = nopts;
    int ret = chk_setup(&c, so_path, cfg);
    if (ret != 0)
        goto out;
    fprintf(out, "Checking %s against the pgclientbench driver ABI %d.%d\n", so_path,
            PGCB_ABI_MAJOR, PGCB_ABI_MINOR);
    if (nopts) {
        fprintf(out, "Options:");
        for (size_t i = 0; i < nopts; i++)
            fprintf(out, " %s=%s", opts[i].key, opts[i].value);
        fprintf(out, "\n");
    }
    fflush(out);

    pgcb_chk_run_task(&c, pgcb_chk_task_load, "load", 0);
    if (!pgcb_chk_passed(&c, "load")) {
        ret = c.unloadable ? usage_error(&c, "%s cannot be loaded (dlopen failed): nothing to "
                                         "check", so_path)
                           : finish(&c);
        goto out;
    }
    pgcb_chk_run_task(&c, pgcb_chk_task_descriptor, "descriptor", 0);
    ret = chk_server_and_reference(&c, so_path, cfg);
    if (ret != 0)
        goto out;
    chk_run_tasks(&c);
    ret = finish(&c);
out:
    free(c.ref_path);
    free(c.q);
    free(c.sum);
    free(c.ref);
    free(c.ref_qerr);
    free(c.expect);
    free(c.res);
    return ret;
}
