/*
 * check_int.h -- the internals of the driver conformance suite (check.h),
 * shared by runner/check*.c and private to them: nothing else includes it.
 * How the suite runs (tasks in forked children, the records they write) is
 * in check.c's top comment.
 *
 * A task is a function run in a child (pgcb_chk_run_task): it announces its
 * checks (pgcb_chk_plan), then begins and reports each (pgcb_chk_begin,
 * pgcb_chk_result), naming every driver call before it makes it
 * (pgcb_chk_phase). The driver stays loaded (c->ld) until the child exits.
 */
#ifndef PGCB_CHECK_INT_H
#define PGCB_CHECK_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/loader.h"
#include "pgcb/driver.h"

#define CHK_NDEPTHS 3
/* The depths of the batch checks: 1, 10 and 1000. */
extern const uint32_t pgcb_chk_depths[CHK_NDEPTHS];

#define CHK_SHORT_ERRLEN 16
/* Bytes after errlen that a driver must leave alone. */
#define CHK_CANARY 64
#define CHK_MAX_PLAN 16
#define CHK_NAME 160
#define CHK_DETAIL 640
#define CHK_REF_NAME "libpq_sync"

struct chk_query {
    const char *name;
    const char *sql;
    int64_t rows;  /* per execution: from the config, the built-in count, or -1 */
    int rows_only; /* [query] check = rows: checksums are not compared */
};

struct chk_sum {
    int have;
    uint64_t rows, hash;
};

struct chk_result {
    char name[CHK_NAME];
    int ok;
};

struct chk;
typedef void (*chk_task_fn)(struct chk *c);

struct chk {
    FILE *out;
    const char *path;        /* the checked driver */
    char label[64];          /* its file name without .so, for the loader */
    char *ref_path;          /* the reference driver, or NULL */
    const char *conninfo;
    const struct pgcb_option *opts; /* the checked driver's options (runner -O) */
    size_t nopts;
    struct chk_query *q;
    size_t nq;
    int timeout_s;
    int task_timeout_s;      /* of the running task (the reference: at least the default) */
    unsigned caps;           /* of the checked driver, once loaded */
    unsigned abi_minor;      /* ... its ABI minor version */
    int has_params;          /* ... PGCB_DRIVER_HAS(d, 1, run_batch_params) */
    int has_copy;            /* ... PGCB_DRIVER_HAS(d, 4, run_copy) */
    int has_load;            /* ... pool_open and run_load (ABI 1.5) */
    int has_block;           /* ... self-timed: PGCB_CAP_SELF_TIMED and run_block */
    int has_phase;           /* ... PGCB_DRIVER_HAS(d, 2, phase) */
    int unloadable;          /* the load child found that dlopen() fails */

    /* Parent: results so far (inherited by later children). */
    struct chk_result *res;
    size_t nres;
    int passed, failed;
    struct chk_sum (*sum)[CHK_NDEPTHS]; /* the checked driver's, per query and depth */
    struct chk_sum (*ref)[CHK_NDEPTHS]; /* the reference's */
    char ref_err[CHK_DETAIL];           /* why there is no reference at all */
    char (*ref_qerr)[CHK_DETAIL];       /* why a query has no reference checksums */
    int64_t *expect;                    /* rows per execution, -1: the driver's own at depth 1 */

    /* Child: the task's argument, its plan and its pipe. */
    size_t arg_q;
    int wfd;
    char plan[CHK_MAX_PLAN][CHK_NAME];
    int plan_done[CHK_MAX_PLAN];
    size_t nplan;
    struct pgcb_loaded ld;
};

/* ---- Text helpers (check_util.c) ---------------------------------------- */

/* The name of status rc ("PGCB_ERR_QUERY"), else "N (not a PGCB_* status)"
 * written into buf (n bytes). */
const char *pgcb_chk_status_name(int rc, char *buf, size_t n);

/* A driver's message, quoted, for a detail: up to its NUL or errlen bytes,
 * with control characters, quotes and backslashes escaped, at most ~200
 * characters. Written into dst (n bytes), which it returns. */
const char *pgcb_chk_quote_msg(char *dst, size_t n, const char *err, size_t errlen);

/* Fill an error buffer of errlen bytes plus the canary; returns buf. */
char *pgcb_chk_err_reset(char *buf, size_t errlen);

/* What is wrong with the message a failing call left in buf (errlen bytes,
 * then the canary), or NULL if it is one non-empty line, NUL-terminated
 * within errlen, with nothing written after the buffer. */
const char *pgcb_chk_msg_problem(const char *buf, size_t errlen, char *why, size_t n);

/* The names of the checks of query q: "prepare NAME", "batch NAME depth N". */
void pgcb_chk_name_prepare(char *b, size_t n, const struct chk_query *q);
void pgcb_chk_name_batch(char *b, size_t n, const struct chk_query *q, uint32_t depth);

/* ---- The child's side (check_util.c) ------------------------------------ */
/* Each writes records into c->wfd; if the parent is gone, the child
 * _exit()s. */

/* One record: `type`, then the text (newlines made spaces). */
void pgcb_chk_send(struct chk *c, char type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Announce a check of this task; returns its index. */
size_t pgcb_chk_plan(struct chk *c, const char *name);

/* Check i starts. */
void pgcb_chk_begin(struct chk *c, size_t i);

/* A driver call starts ("run_batch", "open (setup)"): the timer restarts. */
void pgcb_chk_phase(struct chk *c, const char *what);

/* The same for a call expected to return `rows` rows: its time limit is the
 * timeout per PGCB_CHECK_ROWS_PER_TIMEOUT rows started (at least one). */
void pgcb_chk_phase_rows(struct chk *c, const char *what, uint64_t rows);

/* Check i passed (ok) or failed, with the detail (tabs made spaces). */
void pgcb_chk_result(struct chk *c, size_t i, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fail every check of the plan not reported yet with "not run: why". */
void pgcb_chk_fail_rest(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Load `path` in the child (it loaded once in the load task already) into
 * c->ld; NULL with the loader's message in err when it fails. */
const struct pgcb_driver *pgcb_chk_load(struct chk *c, const char *label, const char *path,
                                        char *err, size_t errlen);

/* The checked driver, loaded; on failure NULL, and the rest of the plan
 * failed. */
const struct pgcb_driver *pgcb_chk_load_checked(struct chk *c);

/* Open with the checked driver's options (c->opts); on failure fails the
 * rest of the plan. */
struct pgcb_conn *pgcb_chk_open_setup(struct chk *c, const struct pgcb_driver *d);

/* The start of a task on one connection: `open` passed, the driver still
 * loads, a connection opens with no options. NULL when not (the rest of the
 * plan failed, saying why); otherwise *d is the driver. */
struct pgcb_conn *pgcb_chk_setup(struct chk *c, const struct pgcb_driver **d);

/* Prepare every query as pgcb_NAME, as a run does; stmts[i] NULL where it
 * failed, ok[i] whether it worked (both c->nq long, the caller's). */
void pgcb_chk_prepare_all(struct chk *c, const struct pgcb_driver *d, struct pgcb_conn *conn,
                          struct pgcb_stmt **stmts, int *ok);

/* ---- The parent's side (check_run.c) ------------------------------------ */

/* Print "PASS name: detail" or "FAIL name: detail" and record the result. */
void pgcb_chk_report(struct chk *c, int ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* 1 if check `name` ran and passed (the last one of that name). */
int pgcb_chk_passed(const struct chk *c, const char *name);

/* Run task `fn` in a child. `what` names the task for a death after all its
 * checks ("batch limit_1 (cleanup)"). For the reference (ref = 1) a death is
 * recorded in c->ref_err instead of failing checks. */
void pgcb_chk_run_task(struct chk *c, chk_task_fn fn, const char *what, int ref);

/* ---- The tasks (a chk_task_fn each) ------------------------------------- */

/* check_descriptor.c: load (and the capabilities, for the parent), the
 * descriptor's fields. */
void pgcb_chk_task_load(struct chk *c);
void pgcb_chk_task_descriptor(struct chk *c);

/* check_tasks.c: open and close; options; prepare of every query; the
 * batches of query c->arg_q; the reference driver's checksums. */
void pgcb_chk_task_open(struct chk *c);
void pgcb_chk_task_options(struct chk *c);
void pgcb_chk_task_prepare(struct chk *c);
void pgcb_chk_task_batches(struct chk *c);
void pgcb_chk_task_reference(struct chk *c);

/* check_errors.c: a statement the server refuses; close leaves nothing. */
void pgcb_chk_task_errors(struct chk *c);
void pgcb_chk_task_close_clean(struct chk *c);

/* check_params.c: run_batch_params (ABI 1.1). */
void pgcb_chk_task_params(struct chk *c);

/* check_copy.c: run_copy (ABI 1.4), for a driver that has it. */
void pgcb_chk_task_copy(struct chk *c);

/* check_block.c: run_block and phase (ABI 1.2), for a self-timed driver. */
void pgcb_chk_task_block(struct chk *c);

/* check_load.c: pool_open and run_load (ABI 1.5). */
void pgcb_chk_task_load_pool(struct chk *c);

#endif
