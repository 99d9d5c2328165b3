/*
 * null.c -- the "null" driver: no server, no I/O. It produces the rows of the
 * benchmark table from memory and folds them exactly as a real driver does,
 * to test the runner and to measure the runner's own overhead.
 *
 * Rows: row i (1-based) is (id = i :: int, int_value = 1337 :: int,
 * string_value = 'wat' :: text, null_value = NULL, bool_value = false), i.e.
 * what `SELECT id, int_value, string_value, null_value, bool_value FROM
 * benchmark_rows ORDER BY id LIMIT n` returns (and `SELECT *`, the table's
 * column order being the same). A statement yields n rows per execution,
 * n taken from the last `LIMIT <digits>` in its SQL (case-insensitive, a
 * whole word), else from the `rows` option.
 *
 * Parameters (ABI 1.1, run_batch_params): accepted and ignored. A batch
 * with parameters yields exactly the rows run_batch yields for the same
 * statement; the values are never read (not even their lengths), so any
 * count of parameters, NULL arrays included, is fine. There is no server to
 * evaluate them: drivers/null measures the runner's cost of a batch, not a
 * query's.
 *
 * Options:
 *   rows = N        rows per execution without a LIMIT (default 1)
 *   fail_after = N  every run_batch after the first N successful ones fails
 *                   with PGCB_ERR_QUERY "XX000: null driver: injected
 *                   failure" (default 0: never)
 *
 * Pools (ABI 1.5): pool_open makes one connection that stands for `nconns`
 * (there is nothing to connect to); run_load runs lib/pgload's loop, every
 * query completing at its issue: what the loop, the timing and the fold
 * cost per query, the runner's own overhead in a concurrency group.
 *
 * Ownership: a connection owns its statements (a list) and its loop;
 * close() frees them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pgcb/driver.h>

#include "pgload/pl_loop.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

/* Upper bound for rows / LIMIT / fail_after. */
#define NULLDRV_MAX 4294967295ull

struct pgcb_stmt {
    struct pgcb_stmt *next; /* the connection's list */
    uint64_t rows;          /* rows per execution */
};

struct pgcb_conn {
    uint64_t rows;       /* option rows */
    uint64_t fail_after; /* option fail_after; 0 = never */
    uint64_t batches_ok; /* successful run_batch calls so far */
    struct pgcb_stmt *stmts;
    struct pl_loop loop;    /* a pool's (pool_open); zeroed otherwise */
    int pooled;
};

static const struct pgcb_option_spec nulldrv_options[] = {
    {"rows", "1", "rows per execution when the SQL has no LIMIT <n>"},
    {"fail_after", "0", "fail every batch after this many successful ones (0 = never)"},
    {NULL, NULL, NULL},
};

/* Decimal digits only, 0..NULLDRV_MAX. Returns 0 and sets *out, or -1. */
static int nulldrv_parse_count(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > NULLDRV_MAX)
            return -1;
    }
    *out = v;
    return 0;
}

static int nulldrv_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                        struct pgcb_conn **out, char *err, size_t errlen)
{
    struct pgcb_conn *c;
    uint64_t rows = 1, fail_after = 0;

    (void)conninfo; /* any connection string: nothing to connect to */
    *out = NULL;
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].value ? opts[i].value : "";
        uint64_t *dst = strcmp(k, "rows") == 0         ? &rows
                        : strcmp(k, "fail_after") == 0 ? &fail_after
                                                       : NULL;
        if (!dst) {
            snprintf(err, errlen, "unknown option \"%s\" (= \"%s\"); null knows rows, fail_after",
                     k, v);
            return PGCB_ERR_CONFIG;
        }
        if (nulldrv_parse_count(v, strlen(v), dst)) {
            snprintf(err, errlen, "%s = \"%s\": expected an integer 0..%llu", k, v, NULLDRV_MAX);
            return PGCB_ERR_CONFIG;
        }
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    c->rows = rows;
    c->fail_after = fail_after;
    *out = c;
    return PGCB_OK;
}

static void nulldrv_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    while (c->stmts) {
        struct pgcb_stmt *next = c->stmts->next;
        free(c->stmts);
        c->stmts = next;
    }
    if (c->pooled)
        pl_loop_free(&c->loop);
    free(c);
}

/* ASCII only, independent of the locale. */
static int nulldrv_is_word_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || (unsigned char)ch >= 0x80;
}

static int nulldrv_is_space(char ch)
{
    return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

/* Find the last whole-word "LIMIT <digits>" in sql. Returns 1 and sets *n
 * if found, 0 if there is none, -1 if its number is out of range. */
static int nulldrv_find_limit(const char *sql, uint64_t *n)
{
    const char *found = NULL;
    size_t found_len = 0;

    for (const char *p = sql; *p; p++) {
        const char *q = p + 5, *digits;
        if (strncasecmp(p, "limit", 5) != 0 || (p > sql && nulldrv_is_word_char(p[-1])))
            continue;
        if (!nulldrv_is_space(*q))
            continue;
        while (nulldrv_is_space(*q))
            q++;
        digits = q;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q == digits || nulldrv_is_word_char(*q))
            continue;
        found = digits;
        found_len = (size_t)(q - digits);
    }
    if (!found)
        return 0;
    return nulldrv_parse_count(found, found_len, n) ? -1 : 1;
}

static int nulldrv_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                           struct pgcb_stmt **out, char *err, size_t errlen)
{
    struct pgcb_stmt *st;
    uint64_t n = c->rows;
    int lim = nulldrv_find_limit(sql, &n);

    (void)name;
    *out = NULL;
    if (lim < 0) {
        snprintf(err, errlen, "null driver: LIMIT above %llu rows", NULLDRV_MAX);
        return PGCB_ERR_UNSUPPORTED;
    }
    st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    st->rows = n;
    st->next = c->stmts;
    c->stmts = st;
    *out = st;
    return PGCB_OK;
}

static int nulldrv_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                             struct pgcb_sum *sum, char *err, size_t errlen)
{
    if (c->fail_after && c->batches_ok >= c->fail_after) {
        snprintf(err, errlen, "XX000: null driver: injected failure");
        return PGCB_ERR_QUERY;
    }
    for (uint32_t d = 0; d < depth; d++) {
        for (uint64_t id = 1; id <= st->rows; id++) {
            pgcb_sum_int(sum, (int64_t)id);
            pgcb_sum_int(sum, 1337);
            pgcb_sum_text(sum, "wat", 3);
            pgcb_sum_null(sum);
            pgcb_sum_bool(sum, 0);
            pgcb_sum_row(sum);
        }
    }
    c->batches_ok++;
    return PGCB_OK;
}

/* See the top of the file: the parameters are ignored. */
static int nulldrv_run_batch_params(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                                    const struct pgcb_params *params, struct pgcb_sum *sum,
                                    char *err, size_t errlen)
{
    (void)params;
    return nulldrv_run_batch(c, st, depth, sum, err, errlen);
}

static int nulldrv_pool_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                             uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen)
{
    int rc = nulldrv_open(conninfo, opts, nopts, out, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    if (nconns < 1 || (rc = pl_loop_init(&(*out)->loop, nconns, 0, err, errlen)) != PGCB_OK) {
        if (nconns < 1)
            snprintf(err, errlen, "a pool needs at least 1 connection");
        nulldrv_close(*out);
        *out = NULL;
        return rc != PGCB_OK ? rc : PGCB_ERR_CONFIG;
    }
    (*out)->pooled = 1;
    return PGCB_OK;
}

/* pl_ops: every query completes at its issue. */
static int nulldrv_issue(void *pool, uint32_t k, uint64_t index, const struct pgcb_load *load,
                         int *complete, struct pgcb_sum *sum, char *err, size_t errlen)
{
    (void)k;
    (void)index;
    *complete = 1;
    return nulldrv_run_batch(pool, load->stmt, 1, sum, err, errlen);
}

static int nulldrv_advance(void *pool, uint32_t k, unsigned got, int *complete,
                           struct pgcb_sum *sum, char *err, size_t errlen)
{
    (void)pool, (void)k, (void)got, (void)sum;
    *complete = 0;
    snprintf(err, errlen, "null driver: no socket to wait for");
    return PGCB_ERR_PROTOCOL;
}

static unsigned nulldrv_events(void *pool, uint32_t k)
{
    (void)pool, (void)k;
    return 0;
}

static int nulldrv_fd(void *pool, uint32_t k)
{
    (void)pool, (void)k;
    return -1;
}

static const struct pl_ops nulldrv_pl_ops = {
    .issue = nulldrv_issue,
    .advance = nulldrv_advance,
    .events = nulldrv_events,
    .fd = nulldrv_fd,
};

static int nulldrv_run_load(struct pgcb_conn *c, const struct pgcb_load *load,
                            struct pgcb_load_out *out, char *err, size_t errlen)
{
    if (!c->pooled) {
        snprintf(err, errlen, "run_load on a connection that pool_open did not open");
        return PGCB_ERR_UNSUPPORTED;
    }
    return pl_loop_run(&c->loop, &nulldrv_pl_ops, c, load, out, err, errlen);
}

static const struct pgcb_driver nulldrv_driver = {
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    .caps = PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE,
    .name = "null",
    .version = "1.0.0",
    .links = "",
    .description = "no server, no I/O: benchmark rows from memory (runner overhead)",
    .options = nulldrv_options,
    .open = nulldrv_open,
    .close = nulldrv_close,
    .prepare = nulldrv_prepare,
    .run_batch = nulldrv_run_batch,
    .run_batch_params = nulldrv_run_batch_params,
    .pool_open = nulldrv_pool_open,
    .run_load = nulldrv_run_load,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    return &nulldrv_driver;
}
