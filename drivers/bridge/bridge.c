/*
 * bridge.c -- the "bridge" driver: a PostgreSQL client of another language
 * (Node.js, Python, Go, or any adapter that speaks docs/bridge-protocol.md)
 * in a child process per connection, measured in self-timed blocks.
 *
 * The descriptor and its operations; the exchange is in br_call.c, the
 * adapter process in br_proc.c, the runs in br_run.c, dumps in br_dump.c,
 * the options in br_config.c, the conninfo in br_conninfo.c, hello's
 * "wire" in br_wire.c, the loads over a pool (ABI 1.5) in br_load.c.
 *
 * Threading: one connection is used by one thread at a time (driver.h);
 * nothing is global but the descriptor and its `links`, computed once.
 */
#include <jansson.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pgcb/driver.h>

#include "br_conn.h"

PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);


static void br_free_stmts(struct pgcb_conn *c)
{
    for (struct pgcb_stmt *s = c->stmts, *next; s; s = next) {
        next = s->next;
        free(s->kinds);
        free(s->sql);
        br_ref_free(&s->ref);
        free(s);
    }
    c->stmts = NULL;
}

static void br_close(struct pgcb_conn *c)
{
    if (!c)
        return;
    if (!c->broken && c->proc.pid > 0) {
        char err[PGCB_ERRLEN];
        json_t *r;
        /* A polite close; a failure only means it is killed below. */
        br_call(c, json_pack("{s:s}", "op", "close"), c->cfg.timeout_ms < 2000 ? c->cfg.timeout_ms
                                                                              : 2000,
                &r, err, sizeof err);
        json_decref(r);
    }
    br_proc_stop(&c->proc, 2000);
    br_free_stmts(c);
    br_config_free(&c->cfg);
    if (c->password) {
        explicit_bzero(c->password, strlen(c->password));
        free(c->password);
    }
    if (c->c_locale)
        freelocale(c->c_locale);
    free(c->conninfo);
    free(c->buf);
    free(c->arr);
    free(c);
}

/* A connection whose adapter answered hello (not connected yet). */
static int br_new(const struct pgcb_option *opts, size_t nopts, struct pgcb_conn **out, char *err,
                  size_t errlen)
{
    *out = NULL;
    struct pgcb_conn *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    c->proc = (struct br_proc){.sock = -1, .out = -1};
    int rc = br_config_read(opts, nopts, &c->cfg, err, errlen);
    if (rc == PGCB_OK && !(c->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
        snprintf(err, errlen, "cannot create the C locale");
        rc = PGCB_ERR_NOMEM;
    }
    if (rc == PGCB_OK)
        rc = br_conn_start(c, err, errlen);
    if (rc != PGCB_OK) {
        br_close(c);
        return rc;
    }
    *out = c;
    return PGCB_OK;
}

/* open() (pool 0: connect without "pool") and pool_open() (pool >= 1:
 * connect with "pool": pool, after hello said "load": true). */
static int br_open_pool(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                        uint32_t pool, struct pgcb_conn **out, char *err, size_t errlen)
{
    struct pgcb_conn *c;
    int rc = br_new(opts, nopts, &c, err, errlen);
    if (rc != PGCB_OK) {
        *out = NULL;
        return rc == PGCB_ERR_CONFIG || rc == PGCB_ERR_NOMEM ? rc : PGCB_ERR_CONNECT;
    }
    if (pool && !c->hello.load) {
        snprintf(err, errlen, "%s cannot run a pool (its hello did not say \"load\": true)",
                 c->cfg.what);
        br_close(c);
        *out = NULL;
        return PGCB_ERR_UNSUPPORTED;
    }
    c->pool = pool;
    if (!(c->conninfo = strdup(conninfo ? conninfo : ""))) {
        snprintf(err, errlen, "out of memory");
        br_close(c);
        *out = NULL;
        return PGCB_ERR_NOMEM;
    }
    json_t *conn = json_null();
    if (!c->hello.no_io) {
        char why[PGCB_ERRLEN];
        json_decref(conn);
        conn = br_conninfo_resolve(conninfo, &c->password, why, sizeof why);
        if (!conn) {
            snprintf(err, errlen, "%s", why);
            br_close(c);
            *out = NULL;
            return PGCB_ERR_CONNECT;
        }
    }
    json_t *r;
    json_t *req = json_pack("{s:s, s:o}", "op", "connect", "conn", conn);
    if (req && pool)
        json_object_set_new(req, "pool", json_integer((json_int_t)pool));
    rc = br_call(c, req, c->cfg.timeout_ms, &r, err, errlen);
    json_decref(r);
    if (rc != PGCB_OK) {
        br_close(c);
        *out = NULL;
        return rc == PGCB_ERR_QUERY || rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL
                   ? PGCB_ERR_CONNECT : rc;
    }
    *out = c;
    return PGCB_OK;
}

static int br_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                   struct pgcb_conn **out, char *err, size_t errlen)
{
    return br_open_pool(conninfo, opts, nopts, 0, out, err, errlen);
}

/* ABI 1.5: one adapter holding its client's own pool of nconns
 * connections, all open when this returns (the adapter's connect opens
 * every one). An adapter whose hello did not say "load": true cannot:
 * PGCB_ERR_UNSUPPORTED, and the section stays usable with open(). */
static int br_pool_open(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                        uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen)
{
    if (nconns < 1) {
        *out = NULL;
        snprintf(err, errlen, "pool_open: nconns must be >= 1");
        return PGCB_ERR_CONFIG;
    }
    return br_open_pool(conninfo, opts, nopts, nconns, out, err, errlen);
}

/* What a section with these options is, before any connection: an adapter
 * started and asked hello, then closed -- the one path instance() and
 * protocol() share (the runner calls both at load time). *hello is what it
 * answered. PGCB_OK; PGCB_ERR_UNSUPPORTED with err when the client's
 * release did not install or build here (br_release.h); else
 * PGCB_ERR_CONFIG with err. */
static int br_probe(const struct pgcb_option *opts, size_t nopts, struct br_hello *hello,
                    char *err, size_t errlen)
{
    struct pgcb_conn *c;
    int rc = br_new(opts, nopts, &c, err, errlen);
    if (rc != PGCB_OK)
        return rc == PGCB_ERR_UNSUPPORTED ? rc : PGCB_ERR_CONFIG;
    *hello = c->hello;
    br_close(c);
    return PGCB_OK;
}

static int br_instance(const struct pgcb_option *opts, size_t nopts, struct pgcb_instance *out,
                       char *err, size_t errlen)
{
    struct br_hello h;
    int rc = br_probe(opts, nopts, &h, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    out->caps = PGCB_CAP_SELF_TIMED | (h.pipeline ? PGCB_CAP_PIPELINE : 0) |
                (h.no_io ? PGCB_CAP_NO_IO | PGCB_CAP_REFERENCE : 0);
    snprintf(out->links, sizeof out->links, "%.170s [adapter %.24s %.16s, bridge protocol %d]",
             h.links, h.adapter, h.adapter_version, BR_PROTOCOL);
    return PGCB_OK;
}

/* ABI 1.3: what the adapter's hello says its client sends ("wire"), never
 * the request echoed: a client that cannot give the result_format asked
 * for reports the one it uses, and the runner compares. */
static int br_protocol(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                       char *err, size_t errlen)
{
    struct br_hello h;
    int rc = br_probe(opts, nopts, &h, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    *out = h.wire;
    return PGCB_OK;
}

static int br_prepare(struct pgcb_conn *c, const char *name, const char *sql,
                      struct pgcb_stmt **out, char *err, size_t errlen)
{
    *out = NULL;
    struct pgcb_stmt *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    s->id = c->next_id++;
    /* The server infers the parameters; the adapter is told how many the
     * SQL has, the highest $N in it, for clients that want the count. */
    uint32_t nparams = 0;
    for (const char *p = sql; *p; p++)
        if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
            uint32_t k = (uint32_t)strtoul(p + 1, NULL, 10);
            nparams = k > nparams ? k : nparams;
        }
    s->nparams = nparams;
    if (!(s->sql = strdup(sql))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    json_t *r;
    int rc = br_call(c, json_pack("{s:s, s:I, s:s, s:s, s:I}", "op", "prepare", "stmt",
                                  (json_int_t)s->id, "name", name, "sql", sql, "nparams",
                                  (json_int_t)nparams),
                     c->cfg.timeout_ms, &r, err, errlen);
    json_decref(r);
    if (rc != PGCB_OK) {
        free(s->sql);
        free(s);
        return rc;
    }
    s->next = c->stmts;
    c->stmts = s;
    *out = s;
    return PGCB_OK;
}

static int br_run_batch_op(struct pgcb_conn *c, struct pgcb_stmt *s, uint32_t depth,
                           struct pgcb_sum *sum, char *err, size_t errlen)
{
    return br_run_batch(c, s, depth, NULL, sum, err, errlen);
}

static int br_run_batch_params_op(struct pgcb_conn *c, struct pgcb_stmt *s, uint32_t depth,
                                  const struct pgcb_params *params, struct pgcb_sum *sum,
                                  char *err, size_t errlen)
{
    return br_run_batch(c, s, depth, params, sum, err, errlen);
}

static int br_phase(struct pgcb_conn *c, enum pgcb_phase phase, char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    if (br_proc_pin(&c->proc, why, sizeof why) != 0)
        return br_conn_fail(c, err, errlen, "%s", why);
    json_t *r;
    int rc = br_call(c, json_pack("{s:s, s:s}", "op", "phase", "phase",
                                  phase == PGCB_PHASE_WARMUP ? "warmup" : "order"),
                     c->cfg.timeout_ms, &r, err, errlen);
    json_decref(r);
    return rc;
}

/* ABI 1.4: what the client made of the converted types in the statement's
 * last dump (br_dump's note). */
static void br_note(struct pgcb_conn *c, struct pgcb_stmt *s, char *buf, size_t len)
{
    (void)c;
    snprintf(buf, len, "%s", s ? s->note : "");
}

const struct pgcb_driver *pgcb_driver_entry(void)
{
    static char links[160];
    static struct pgcb_driver d = {
        .magic = PGCB_DRIVER_MAGIC,
        .abi_major = PGCB_ABI_MAJOR,
        .abi_minor = PGCB_ABI_MINOR,
        .struct_size = sizeof(struct pgcb_driver),
        .caps = PGCB_CAP_SELF_TIMED,
        .name = "bridge",
        .version = "1.0.0",
        .links = links,
        .description = "a client of another language in an adapter process per connection "
                       "(docs/bridge-protocol.md), timing its own blocks of batches",
        .options = br_options,
        .open = br_open,
        .close = br_close,
        .prepare = br_prepare,
        .run_batch = br_run_batch_op,
        .run_batch_params = br_run_batch_params_op,
        .instance = br_instance,
        .run_block = br_run_block,
        .phase = br_phase,
        .protocol = br_protocol,
        .note = br_note,
        .pool_open = br_pool_open,
        .run_load = br_run_load,
        .run_stream = br_run_stream,
    };
    if (!links[0]) {
        int v = PQlibVersion();
        snprintf(links, sizeof links, "bridge protocol %d; jansson %s; libpq %d.%d (conninfo)",
                 BR_PROTOCOL, JANSSON_VERSION, v / 10000, v % 100);
    }
    return &d;
}
