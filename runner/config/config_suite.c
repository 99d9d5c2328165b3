/*
 * config_suite.c -- [suite.NAME] sections: depths (or rows_per_txn),
 * threads, ops, warm-up, transports and extra connection keys, connect and
 * connections, and the names of its queries and background loads, resolved
 * into indices once the whole file is read. See config_int.h for the
 * contracts.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const pgcb_cfgi_suite_keys[] = {"depth", "queries", "threads", "rows_per_txn",
                                            "ops", "warmup_ms", "background", "transport",
                                            "conninfo", "connect", "connections",
                                            "concurrency", "pool", "mode", "rate",
                                            "stream", "fetch_rows", "reads", "rtt_ms", NULL};

void pgcb_cfgi_suite_begin(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    size_t n = cfg->nsuites;
    cfg->suites = pgcb_xrealloc(cfg->suites, (n + 1) * sizeof *cfg->suites);
    cfg->suites[n] = (struct pgcb_cfg_suite){
        .name = pgcb_xstrdup(name), .threads = 1, .warmup_ms = -1,
        .connections = PGCB_DEFAULT_CONNECTIONS, .fetch_rows = PGCB_DEFAULT_FETCH_ROWS,
        .reads = PGCB_DEFAULT_READS, .line = c->lineno};
    c->suite_seen = pgcb_xrealloc(c->suite_seen, (n + 1) * sizeof *c->suite_seen);
    c->suite_seen[n] = 0;
    c->suite_names = pgcb_xrealloc(c->suite_names, (n + 1) * sizeof *c->suite_names);
    c->suite_names[n] = (struct pgcb_cfgi_names){0};
    c->suite_bgs = pgcb_xrealloc(c->suite_bgs, (n + 1) * sizeof *c->suite_bgs);
    c->suite_bgs[n] = (struct pgcb_cfgi_names){0};
    c->idx = cfg->nsuites++;
}

long pgcb_cfgi_find_suite(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (strcmp(cfg->suites[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* depth = / rows_per_txn = : distinct integers from 1 to 1000000. */
static int parse_depths(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                        const char *v)
{
    unsigned both = (1u << pgcb_cfgi_key_index(pgcb_cfgi_suite_keys, "depth")) |
                    (1u << pgcb_cfgi_key_index(pgcb_cfgi_suite_keys, "rows_per_txn"));
    if ((c->suite_seen[c->idx] & both) == both) {
        pgcb_cfgi_fail(c, "[%s] %s: give either depth or rows_per_txn, not both", c->section,
                       key);
        return 0;
    }
    free(s->depths);
    s->depths = NULL;
    s->ndepths = 0;
    char *copy = pgcb_xstrdup(v), *save = NULL;
    for (char *tok = strtok_r(copy, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
        uint64_t d;
        if (pgcb_parse_u64(tok, 1, 1000000, &d)) {
            pgcb_cfgi_fail(c, "[%s] %s: '%s' is not an integer from 1 to 1000000", c->section,
                           key, tok);
            free(copy);
            return 0;
        }
        for (size_t i = 0; i < s->ndepths; i++)
            if (s->depths[i] == d) {
                pgcb_cfgi_fail(c, "[%s] %s: %s listed twice", c->section, key, tok);
                free(copy);
                return 0;
            }
        s->depths = pgcb_xrealloc(s->depths, (s->ndepths + 1) * sizeof *s->depths);
        s->depths[s->ndepths++] = (uint32_t)d;
    }
    free(copy);
    if (s->ndepths == 0) {
        pgcb_cfgi_fail(c, "[%s] %s: empty", c->section, key);
        return 0;
    }
    return 1;
}

/* transport = : distinct transport words, one group each. */
static int parse_transports(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *v)
{
    free(s->transports);
    s->transports = NULL;
    s->ntransports = 0;
    s->transport_line = c->lineno;
    char *copy = pgcb_xstrdup(v), *save = NULL;
    int ok = 1;
    for (char *tok = strtok_r(copy, ", \t\n", &save); tok && ok;
         tok = strtok_r(NULL, ", \t\n", &save)) {
        enum pgcb_transport t;
        if (pgcb_transport_parse(tok, &t) != 0) {
            pgcb_cfgi_fail(c, "[%s] transport: '%s' is not one of unix, tcp, tls", c->section,
                           tok);
            ok = 0;
            break;
        }
        for (size_t i = 0; i < s->ntransports && ok; i++)
            if (s->transports[i] == t) {
                pgcb_cfgi_fail(c, "[%s] transport: %s listed twice", c->section, tok);
                ok = 0;
            }
        s->transports = pgcb_xrealloc(s->transports, (s->ntransports + 1) * sizeof *s->transports);
        s->transports[s->ntransports++] = t;
    }
    free(copy);
    if (ok && s->ntransports == 0) {
        pgcb_cfgi_fail(c, "[%s] transport: empty (give unix, tcp and/or tls, or leave the key "
                          "out)", c->section);
        ok = 0;
    }
    return ok;
}

/* Keep the names of `key` for finish (a later line replaces them). */
static void pend(struct pgcb_cfgi_ctx *c, struct pgcb_cfgi_names *pn, const char *value)
{
    free(pn->names);
    pn->names = pgcb_xstrdup(value);
    pn->line = c->lineno;
}

int pgcb_cfgi_suite_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_cfg_suite *s = &c->cfg->suites[c->idx];
    uint64_t u;
    if (strcmp(key, "depth") == 0) {
        s->depth_line = c->lineno;
        return parse_depths(c, s, key, value);
    }
    if (strcmp(key, "rows_per_txn") == 0) {
        s->transaction = 1;
        s->depth_line = c->lineno;
        return parse_depths(c, s, key, value);
    }
    if (strcmp(key, "ops") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, UINT32_MAX, &u))
            return 0;
        s->ops = u;
        s->ops_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "connect") == 0) {
        int b = pgcb_cfgi_parse_bool(value);
        if (b < 0) {
            pgcb_cfgi_fail(c, "[%s] connect: '%s' is not yes or no", c->section, value);
            return 0;
        }
        s->connect = b;
        s->connect_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "connections") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, 1000000, &u))
            return 0;
        s->connections = u;
        s->connections_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "warmup_ms") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 0, 3600000ull, &u))
            return 0;
        s->warmup_ms = (int64_t)u;
        return 1;
    }
    if (strcmp(key, "background") == 0) {
        pend(c, &c->suite_bgs[c->idx], value);
        return 1;
    }
    if (strcmp(key, "threads") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, PGCB_MAX_THREADS, &u))
            return 0;
        s->threads = (uint32_t)u;
        return 1;
    }
    if (strcmp(key, "transport") == 0)
        return parse_transports(c, s, value);
    if (strcmp(key, "rtt_ms") == 0)
        return pgcb_cfgi_net_apply(c, &s->rtt, value);
    if (strcmp(key, "concurrency") == 0 || strcmp(key, "pool") == 0 ||
        strcmp(key, "mode") == 0 || strcmp(key, "rate") == 0)
        return pgcb_cfgi_conc_apply(c, s, key, value);
    if (strcmp(key, "stream") == 0 || strcmp(key, "fetch_rows") == 0 ||
        strcmp(key, "reads") == 0)
        return pgcb_cfgi_stream_apply(c, s, key, value);
    if (strcmp(key, "conninfo") == 0) {
        free(s->conninfo);
        s->conninfo = NULL;
        s->conninfo_line = c->lineno;
        if (!pgcb_cfgi_conninfo_key(c, key, value))
            return 0;
        s->conninfo = value[0] ? pgcb_xstrdup(value) : NULL;
        return 1;
    }
    if (strcmp(key, "queries") == 0)
        pend(c, &c->suite_names[c->idx], value);
    return 1;
}

/* background = names into s->backgrounds. */
static int resolve_backgrounds(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s,
                               struct pgcb_cfgi_names *bn)
{
    const struct pgcb_config *cfg = c->cfg;
    char *bsave = NULL;
    for (char *tok = bn->names ? strtok_r(bn->names, ", \t\n", &bsave) : NULL; tok;
         tok = strtok_r(NULL, ", \t\n", &bsave)) {
        long b = pgcb_cfgi_find_bg(cfg, tok);
        if (b < 0)
            PGCB_CFGI_FAIL_AT(c, bn->line, "[suite.%s] background: no [background.%s] section",
                              s->name, tok);
        for (size_t k = 0; k < s->nbackgrounds; k++)
            if (s->backgrounds[k] == (size_t)b)
                PGCB_CFGI_FAIL_AT(c, bn->line, "[suite.%s] background: %s listed twice",
                                  s->name, tok);
        s->backgrounds = pgcb_xrealloc(s->backgrounds,
                                       (s->nbackgrounds + 1) * sizeof *s->backgrounds);
        s->backgrounds[s->nbackgrounds++] = (size_t)b;
    }
    return 0;
}

/* queries = names into s->queries; none given: every query, in file order. */
static int resolve_queries(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s,
                           struct pgcb_cfgi_names *pn)
{
    const struct pgcb_config *cfg = c->cfg;
    if (!pn->names) {
        s->queries = pgcb_xmalloc(cfg->nqueries * sizeof *s->queries);
        for (size_t q = 0; q < cfg->nqueries; q++)
            s->queries[q] = q;
        s->nqueries = cfg->nqueries;
        return 0;
    }
    char *save = NULL;
    for (char *tok = strtok_r(pn->names, ", \t\n", &save); tok;
         tok = strtok_r(NULL, ", \t\n", &save)) {
        long q = pgcb_config_find_query(cfg, tok);
        if (q < 0)
            PGCB_CFGI_FAIL_AT(c, pn->line, "[suite.%s] queries: no [query.%s] section",
                              s->name, tok);
        for (size_t k = 0; k < s->nqueries; k++)
            if (s->queries[k] == (size_t)q)
                PGCB_CFGI_FAIL_AT(c, pn->line, "[suite.%s] queries: %s listed twice", s->name,
                                  tok);
        s->queries = pgcb_xrealloc(s->queries, (s->nqueries + 1) * sizeof *s->queries);
        s->queries[s->nqueries++] = (size_t)q;
    }
    if (s->nqueries == 0)
        PGCB_CFGI_FAIL_AT(c, pn->line, "[suite.%s] queries: empty", s->name);
    return 0;
}

/* A connection suite's sample is one connection running its query once:
 * depth 1, no transaction, no fixed operation count. `connections` without
 * connect = yes would be ignored: refused. */
static int check_connect(struct pgcb_cfgi_ctx *c, const struct pgcb_cfg_suite *s)
{
    if (!s->connect) {
        if (s->connections_line)
            PGCB_CFGI_FAIL_AT(c, s->connections_line, "[suite.%s] connections: only with "
                              "connect = yes (a connection suite's count floor)", s->name);
        return 0;
    }
    if (s->transaction)
        PGCB_CFGI_FAIL_AT(c, s->depth_line, "[suite.%s] rows_per_txn: not with connect = yes "
                          "(line %d): each sample of a connection suite is one connection "
                          "running its query once", s->name, s->connect_line);
    if (s->ndepths > 1 || s->depths[0] != 1)
        PGCB_CFGI_FAIL_AT(c, s->depth_line, "[suite.%s] depth: must be 1 with connect = yes "
                          "(line %d): each sample of a connection suite is one connection "
                          "running its query once", s->name, s->connect_line);
    if (s->ops)
        PGCB_CFGI_FAIL_AT(c, s->ops_line, "[suite.%s] ops: not with connect = yes (line %d): a "
                          "connection suite's budget is time_ms and connections", s->name,
                          s->connect_line);
    return 0;
}

/* A COPY query's sample is one COPY on one connection, the table emptied
 * after it (bulk.h): depth 1, one thread, no transaction, no connection
 * suite. */
static int check_copy(struct pgcb_cfgi_ctx *c, const struct pgcb_cfg_suite *s)
{
    for (size_t k = 0; k < s->nqueries; k++) {
        const struct pgcb_cfg_query *q = &c->cfg->queries[s->queries[k]];
        if (!q->copy)
            continue;
        const char *bad = s->transaction ? "rows_per_txn" : s->threads > 1 ? "threads > 1"
                          : s->ndepths > 1 || s->depths[0] != 1 ? "a depth other than 1"
                          : s->connect ? "connect = yes" : NULL;
        if (bad)
            PGCB_CFGI_FAIL_AT(c, s->line, "[suite.%s] runs COPY query %s with %s: a COPY "
                              "suite has depth 1, one thread, no rows_per_txn and no connect",
                              s->name, q->name, bad);
    }
    return 0;
}

int pgcb_cfgi_suite_finish(struct pgcb_cfgi_ctx *c)
{
    struct pgcb_config *cfg = c->cfg;
    if (cfg->nsuites == 0)
        PGCB_CFGI_FAIL_AT(c, 0, "no [suite.NAME] section: say which queries to run at which "
                          "depth");
    for (size_t i = 0; i < cfg->nsuites; i++) {
        struct pgcb_cfg_suite *s = &cfg->suites[i];
        if (s->ndepths == 0) {
            s->depths = pgcb_xmalloc(sizeof *s->depths);
            s->depths[0] = 1;
            s->ndepths = 1;
        }
        if (check_connect(c, s) != 0)
            return -1;
        if (s->ops && s->ops % ((uint64_t)s->threads * s->depths[0]) != 0)
            PGCB_CFGI_FAIL_AT(c, s->line, "[suite.%s] ops = %llu is not a multiple of threads "
                              "x %s (%u x %u)", s->name, (unsigned long long)s->ops,
                              s->transaction ? "rows_per_txn" : "depth", s->threads,
                              s->depths[0]);
        if (s->ops && s->ndepths > 1)
            PGCB_CFGI_FAIL_AT(c, s->line, "[suite.%s] ops: give one %s with ops", s->name,
                              s->transaction ? "rows_per_txn" : "depth");
        if (resolve_backgrounds(c, s, &c->suite_bgs[i]) != 0 ||
            resolve_queries(c, s, &c->suite_names[i]) != 0)
            return -1;
        if (check_copy(c, s) != 0 || pgcb_cfgi_conc_check(c, s) != 0 ||
            pgcb_cfgi_stream_check(c, s) != 0 || pgcb_cfgi_net_check(c, s) != 0)
            return -1;
    }
    return pgcb_cfgi_stream_exclusive(c);
}

void pgcb_cfgi_suite_free(struct pgcb_cfg_suite *s)
{
    free(s->name);
    free(s->depths);
    free(s->queries);
    free(s->backgrounds);
    free(s->transports);
    free(s->rtt.rtts);
    free(s->conninfo);
}
