/*
 * skeleton.c -- the template of a pgclientbench driver, built out of tree
 * from the installed headers (docs/install.md). Copy this directory, rename
 * the driver (SK_NAME below, the file, the Makefile's DRIVER), then replace
 * the libpq calls with the client you want to measure. As shipped it is a
 * real, working driver: libpq, one PQexecPrepared() per execution, text
 * results, every value converted and folded; it passes
 * `pgclientbench --check-driver ./skeleton.so` against a real server.
 *
 * The contract is include/pgcb/driver.h (PREFIX/include/pgcb/driver.h):
 * read it beside this file. What every driver must do:
 *
 *   - export exactly one symbol, pgcb_driver_entry(), returning a descriptor
 *     with static storage duration (build with -fvisibility=hidden and mark
 *     only the entry PGCB_EXPORT);
 *   - never print: every operation that can fail returns a pgcb_status and
 *     writes ONE line (no newline, never a password) into err[errlen];
 *   - read every result completely and fold EVERY value into the batch's
 *     struct pgcb_sum, converted to its C type (pgcb/value.h does it exactly
 *     as the shipped drivers do): the runner compares checksums and row
 *     counts across drivers, and a driver whose checksum differs is invalid;
 *   - keep no mutable global state: different connections are used from
 *     different threads at once (one connection from one thread at a time).
 *
 * Ownership here: a struct pgcb_conn owns its PGconn, its "C" locale and the
 * list of its statements; close() frees all of them. The runner owns every
 * string and array it passes in, and the struct pgcb_sum.
 */
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include <pgcb/driver.h> /* the ABI: descriptor, status codes, pgcb_sum_*() */
#include <pgcb/value.h>  /* optional: wire value -> C value -> checksum */

/* The driver's name: [a-z0-9_]+, shown in every table and result. */
#define SK_NAME "skeleton"

/* The one exported symbol (the runner looks up PGCB_DRIVER_ENTRY_SYMBOL). */
PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);

/* A prepared statement: owned by its connection, valid until close(). The
 * column kinds are learnt once, at prepare, so that run_batch converts each
 * value with one switch (pgcb_value_fold) instead of asking for its type. */
struct pgcb_stmt {
    struct pgcb_stmt *next; /* the connection's list, freed by close() */
    char *name;
    int ncols;
    unsigned char *kinds; /* enum pgcb_value_kind per column */
};

/* A connection: opaque to the runner, which only passes it back. */
struct pgcb_conn {
    PGconn *pg;
    locale_t c_locale; /* for the text floats (pgcb_value_fold); never the global locale */
    struct pgcb_stmt *stmts;
};

/* ---- messages ----------------------------------------------------------- */

/* Write a message into err: snprintf truncates within errlen (the runner
 * passes PGCB_ERRLEN bytes; --check-driver also passes 16). */
static void sk_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sk_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* libpq's messages span lines ("ERROR:  ...\nDETAIL: ...\n"): one line,
 * newlines and tabs as spaces, no trailing space. */
static void sk_err_oneline(char *err, size_t errlen, const char *prefix, const char *msg)
{
    size_t n;
    sk_errf(err, errlen, "%s%s", prefix, msg ? msg : "");
    for (n = 0; err[n]; n++)
        if (err[n] == '\n' || err[n] == '\r' || err[n] == '\t')
            err[n] = ' ';
    while (n > 0 && err[n - 1] == ' ')
        err[--n] = '\0';
}

/* The status and message of a result that is not what was asked for (res
 * may be NULL). The contract: a statement error is PGCB_ERR_QUERY with a
 * message that starts with the SQLSTATE ("42P01: relation ... does not
 * exist"), and the connection stays usable; a broken connection is
 * PGCB_ERR_IO, after which the runner only calls close(). */
static int sk_result_failure(struct pgcb_conn *c, const PGresult *res, char *err, size_t errlen)
{
    if (PQstatus(c->pg) == CONNECTION_BAD) {
        sk_err_oneline(err, errlen, "connection lost: ", PQerrorMessage(c->pg));
        return PGCB_ERR_IO;
    }
    if (!res) {
        sk_err_oneline(err, errlen, "libpq returned no result: ", PQerrorMessage(c->pg));
        return PGCB_ERR_NOMEM;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%s: ", state ? state : "XX000");
        sk_err_oneline(err, errlen, prefix, primary ? primary : PQresultErrorMessage(res));
        return PGCB_ERR_QUERY;
    }
    sk_errf(err, errlen, "unexpected result status %s", PQresStatus(st));
    return PGCB_ERR_UNSUPPORTED;
}

/* ---- options -----------------------------------------------------------
 * The keys of the driver's [driver.NAME] INI section (all but the runner's
 * `path`), declared here so that the runner refuses an unknown key with its
 * file and line, and lists them with `--list-drivers`. NULL-key terminated;
 * `options = NULL` in the descriptor for a driver without any.
 *
 * Careful with the names result_format, describe and sync: when a driver
 * declares one, the runner passes the run's choice for it ([bench]
 * result_format etc.) to a section that does not set it, and the driver must
 * accept that value or refuse it (in protocol()). */
static const struct pgcb_option_spec sk_options[] = {
    {"application_name", "pgcb_" SK_NAME, "application_name the server shows for the connection"},
    {NULL, NULL, NULL},
};

/* Parse opts (the runner has checked the keys, but open() is also called by
 * --check-driver with a key that is not declared: refuse it). On success
 * *appname points into opts or at the default. */
static int sk_parse_options(const struct pgcb_option *opts, size_t nopts, const char **appname,
                            char *err, size_t errlen)
{
    *appname = sk_options[0].default_value;
    for (size_t i = 0; i < nopts; i++) {
        if (strcmp(opts[i].key, "application_name") == 0) {
            *appname = opts[i].value ? opts[i].value : "";
        } else {
            sk_errf(err, errlen, "unknown option \"%s\"; " SK_NAME " knows application_name",
                    opts[i].key);
            return PGCB_ERR_CONFIG;
        }
    }
    return PGCB_OK;
}

/* ---- close / open ------------------------------------------------------- */

/* close (ABI 1.0, required): free the connection and everything it owns,
 * its statements included. Accepts NULL; never fails. --check-driver
 * verifies that no file descriptor stays open afterwards. */
static void sk_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    PQfinish(c->pg); /* accepts NULL */
    while (c->stmts) {
        struct pgcb_stmt *next = c->stmts->next;
        free(c->stmts->name);
        free(c->stmts->kinds);
        free(c->stmts);
        c->stmts = next;
    }
    if (c->c_locale)
        freelocale(c->c_locale);
    free(c);
}

/* open (ABI 1.0, required): connect. `conninfo` is a libpq connection
 * string; "" means the PG* environment variables and libpq's defaults,
 * exactly as libpq reads them (a driver with its own protocol code must
 * honour the same). On success *out is a new connection owned by the
 * caller (released with close()); on failure *out is NULL, err is written
 * and the status is PGCB_ERR_CONNECT (or CONFIG, NOMEM). */
static int sk_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                   struct pgcb_conn **out, char *err, size_t errlen)
{
    const char *appname;
    int rc;

    *out = NULL;
    if ((rc = sk_parse_options(opts, nopts, &appname, err, errlen)) != PGCB_OK)
        return rc;
    struct pgcb_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
        free(c);
        sk_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    /* expand_dbname = 1: `dbname` is the whole conninfo string; the keys
     * after it override it. */
    const char *const keys[] = {"dbname", "application_name", NULL};
    const char *const vals[] = {conninfo ? conninfo : "", appname, NULL};
    c->pg = PQconnectdbParams(keys, vals, 1);
    if (!c->pg) {
        sk_close(c);
        sk_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    if (PQstatus(c->pg) != CONNECTION_OK) {
        /* libpq's connection messages do not contain the password; a
         * driver whose messages might must remove it. */
        sk_err_oneline(err, errlen, "", PQerrorMessage(c->pg));
        sk_close(c);
        return PGCB_ERR_CONNECT;
    }
    *out = c;
    return PGCB_OK;
}

/* ---- prepare ------------------------------------------------------------ */

/* prepare (ABI 1.0, required): make `sql` the server-side statement `name`
 * (unique per connection, [a-z0-9_]+). Called before any timing. On success
 * *out is a handle owned by the connection, valid until close(). A
 * statement the server refuses is PGCB_ERR_QUERY ("42P01: ..."), and the
 * connection stays usable. */
static int sk_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                      struct pgcb_stmt **out, char *err, size_t errlen)
{
    int rc;

    *out = NULL;
    PGresult *res = PQprepare(c->pg, name, sql, 0, NULL); /* types inferred by the server */
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = sk_result_failure(c, res, err, errlen);
        PQclear(res);
        return rc;
    }
    PQclear(res);
    /* The result's column types, once: a prepared statement's result types
     * do not change (the server fails the execution otherwise). */
    res = PQdescribePrepared(c->pg, name);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = sk_result_failure(c, res, err, errlen);
        PQclear(res);
        return rc;
    }
    struct pgcb_stmt *st = calloc(1, sizeof *st);
    int ncols = PQnfields(res);
    if (st) {
        st->name = strdup(name);
        st->kinds = malloc(ncols > 0 ? (size_t)ncols : 1);
    }
    if (!st || !st->name || !st->kinds) {
        if (st) {
            free(st->name);
            free(st->kinds);
        }
        free(st);
        PQclear(res);
        sk_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    st->ncols = ncols;
    /* Text results (resultFormat 0 below): binary = 0. */
    for (int i = 0; i < ncols; i++)
        st->kinds[i] = (unsigned char)pgcb_value_kind_of(PQftype(res, i), 0);
    PQclear(res);
    st->next = c->stmts;
    c->stmts = st;
    *out = st;
    return PGCB_OK;
}

/* ---- run_batch ------------------------------------------------------------ */

/* Fold every value of one result into *sum, in the order received: for each
 * row, each column's value (pgcb_sum_null for a NULL), then pgcb_sum_row.
 * A value that is not valid for its type is PGCB_ERR_PROTOCOL. */
static int sk_fold(struct pgcb_conn *c, const PGresult *res, const struct pgcb_stmt *st,
                   struct pgcb_sum *sum, char *err, size_t errlen)
{
    const int nrows = PQntuples(res);

    if (PQnfields(res) != st->ncols) {
        sk_errf(err, errlen, "result has %d columns; statement %s was described with %d",
                PQnfields(res), st->name, st->ncols);
        return PGCB_ERR_PROTOCOL;
    }
    for (int r = 0; r < nrows; r++) {
        for (int i = 0; i < st->ncols; i++) {
            if (PQgetisnull(res, r, i)) {
                pgcb_sum_null(sum);
            } else if (pgcb_value_fold(sum, (enum pgcb_value_kind)st->kinds[i],
                                       PQgetvalue(res, r, i), (size_t)PQgetlength(res, r, i),
                                       c->c_locale) != 0) {
                sk_errf(err, errlen, "row %d column %d: malformed value", r + 1, i + 1);
                return PGCB_ERR_PROTOCOL;
            }
        }
        pgcb_sum_row(sum);
    }
    return PGCB_OK;
}

/* run_batch (ABI 1.0, required; THE TIMED CALL): execute `stmt` `depth`
 * times (depth >= 1) -- one after another here; a driver with
 * PGCB_CAP_PIPELINE keeps up to `depth` in flight -- read every result
 * completely and fold every value into *sum, which the runner zeroed. The
 * runner times each call, so nothing here should allocate (libpq's PGresult
 * is libpq's cost, part of what is measured), print or lock. After
 * PGCB_ERR_QUERY the connection must still work; after PGCB_ERR_IO or
 * PGCB_ERR_PROTOCOL the runner only closes it. --check-driver runs each
 * query at depths 1, 10 and 1000, twice, and compares the checksums with
 * the reference driver libpq_sync's. */
static int sk_run_batch(struct pgcb_conn *c, struct pgcb_stmt *st, uint32_t depth,
                        struct pgcb_sum *sum, char *err, size_t errlen)
{
    for (uint32_t d = 0; d < depth; d++) {
        PGresult *res = PQexecPrepared(c->pg, st->name, 0, NULL, NULL, NULL, 0 /* text */);
        int rc;

        switch (PQresultStatus(res)) {
        case PGRES_TUPLES_OK:
            rc = sk_fold(c, res, st, sum, err, errlen);
            break;
        case PGRES_COMMAND_OK: /* no rows (an INSERT without RETURNING) */
            rc = PGCB_OK;
            break;
        default:
            rc = sk_result_failure(c, res, err, errlen);
            break;
        }
        PQclear(res);
        if (rc != PGCB_OK)
            return rc;
    }
    return PGCB_OK;
}

/* ---- protocol ------------------------------------------------------------- */

/* protocol (ABI 1.3, optional): what connections opened with these options
 * ask of the server, so that the runner compares like with like and marks a
 * driver whose choices differ from the run's. Called outside any timing. For
 * PQexecPrepared: text results, a Describe (portal) with every execution, a
 * Sync after every execution, a named statement parsed once. A field left 0
 * is shown as unknown. */
static int sk_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                       char *err, size_t errlen)
{
    const char *appname;
    int rc = sk_parse_options(opts, nopts, &appname, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    out->result_format = PGCB_FORMAT_TEXT;
    out->describe = PGCB_DESCRIBE_PER_EXECUTION;
    out->sync = PGCB_SYNC_PER_QUERY;
    out->statements = PGCB_STMT_NAMED;
    return PGCB_OK;
}

/* ---- the descriptor ------------------------------------------------------- */

/* "libpq X.Y" of the libpq loaded at run time, written once (pthread_once:
 * the entry function may be called from several threads). */
static char sk_links[32];
static pthread_once_t sk_links_once = PTHREAD_ONCE_INIT;

static void sk_links_init(void)
{
    int v = PQlibVersion(); /* 150018 for 15.18 */
    snprintf(sk_links, sizeof sk_links, "libpq %d.%d", v / 10000, v % 10000);
}

static const struct pgcb_driver sk_driver = {
    /* Identification, checked on load, most basic first: the runner refuses
     * a bad magic, another ABI major, a struct_size below ABI 1.0's, a
     * missing required operation. Always the header's values. */
    .magic = PGCB_DRIVER_MAGIC,
    .abi_major = PGCB_ABI_MAJOR,
    .abi_minor = PGCB_ABI_MINOR,
    .struct_size = sizeof(struct pgcb_driver),
    /* PGCB_CAP_*: 0 = a client that talks to a server, one query at a time.
     * PGCB_CAP_PIPELINE if run_batch keeps up to depth queries in flight. */
    .caps = 0,
    .name = SK_NAME,    /* required, [a-z0-9_]+ */
    .version = "0.1.0", /* required: the driver's own version */
    .links = sk_links,  /* required ("" for nothing): what it links, for the tables */
    .description = "template driver: libpq, one PQexecPrepared at a time, text results",
    .options = sk_options,
    .open = sk_open,
    .close = sk_close,
    .prepare = sk_prepare,
    .run_batch = sk_run_batch,
    /* ABI 1.1 run_batch_params (optional): run_batch for a statement with
     * $1..$n, query i binding params->values[i * nparams + j], each of
     * params->lengths[...] bytes and NOT NUL-terminated (libpq's text
     * parameters must be copied with a NUL first). Without it the runner
     * skips this driver for parameterized queries ([query.*] params) and
     * --check-driver prints "SKIP params". */
    .run_batch_params = NULL,
    /* ABI 1.2 instance (optional): per-section capabilities and links,
     * before any connection (the bridge's adapter and client). run_block
     * (with PGCB_CAP_SELF_TIMED): a driver that times its own batches in
     * another process. phase (optional): told before warm-up and each
     * execution order, outside timing (a garbage collector runs). */
    .instance = NULL,
    .run_block = NULL,
    .phase = NULL,
    .protocol = sk_protocol,
};

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void)
{
    pthread_once(&sk_links_once, sk_links_init);
    return &sk_driver;
}
