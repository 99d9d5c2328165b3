/*
 * config_conc.c -- a [suite.NAME]'s concurrency keys (issue 27): how many
 * queries one driver instance keeps in flight (concurrency), over how many
 * connections (pool), in closed loops or at a fixed arrival rate (mode,
 * rate), and the combinations that make no sense, each refused naming
 * file:line and key. See config_int.h for the contracts.
 */
#include "config_int.h"

#include <string.h>

#include "pgcb/driver.h"

#define CONC_MAX 10000u

/* rate = N or N/s: queries per second, above 0. */
static int parse_rate(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                      const char *value)
{
    char buf[64];
    size_t n = strlen(value);
    if (n >= sizeof buf) {
        pgcb_cfgi_fail(c, "[%s] %s: '%s' is not a number of queries per second", c->section,
                       key, value);
        return 0;
    }
    memcpy(buf, value, n + 1);
    if (n > 2 && strcmp(buf + n - 2, "/s") == 0)
        buf[n - 2] = '\0';
    s->rate_line = c->lineno;
    return pgcb_cfgi_real_key(c, key, buf, 1e8, "a number of queries per second above 0 "
                              "(N or N/s)", &s->rate);
}

int pgcb_cfgi_conc_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                         const char *value)
{
    uint64_t u;
    if (strcmp(key, "concurrency") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, CONC_MAX, &u))
            return 0;
        s->concurrency = (uint32_t)u;
        s->concurrency_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "pool") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, CONC_MAX, &u))
            return 0;
        s->pool = (uint32_t)u;
        s->pool_line = c->lineno;
        return 1;
    }
    if (strcmp(key, "mode") == 0) {
        s->mode_line = c->lineno;
        if (strcmp(value, "closed") == 0)
            s->mode = PGCB_LOAD_CLOSED;
        else if (strcmp(value, "rate") == 0)
            s->mode = PGCB_LOAD_RATE;
        else {
            pgcb_cfgi_fail(c, "[%s] mode: '%s' is not closed or rate", c->section, value);
            return 0;
        }
        return 1;
    }
    return parse_rate(c, s, key, value);
}

int pgcb_cfgi_conc_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s)
{
    const char *name = s->name;
    if (!s->concurrency) {
        int line = s->pool_line ? s->pool_line : s->mode_line ? s->mode_line : s->rate_line;
        const char *key = s->pool_line ? "pool" : s->mode_line ? "mode" : "rate";
        if (line)
            PGCB_CFGI_FAIL_AT(c, line, "[suite.%s] %s: only with concurrency = N (the queries "
                              "one driver instance keeps in flight)", name, key);
        return 0;
    }
    if (!s->mode)
        s->mode = PGCB_LOAD_CLOSED;
    if (!s->pool)
        s->pool = s->concurrency;
    if (s->pool > s->concurrency)
        PGCB_CFGI_FAIL_AT(c, s->pool_line, "[suite.%s] pool = %u is more than concurrency = %u "
                          "(line %d): a connection would never have a query", name, s->pool,
                          s->concurrency, s->concurrency_line);
    if (s->rate_line && s->mode != PGCB_LOAD_RATE)
        PGCB_CFGI_FAIL_AT(c, s->rate_line, "[suite.%s] rate: only with mode = rate (an open "
                          "loop at that arrival rate); mode is closed", name);
    if (s->mode == PGCB_LOAD_RATE && !s->rate_line)
        PGCB_CFGI_FAIL_AT(c, s->mode_line, "[suite.%s] mode = rate needs rate = N (queries per "
                          "second over the instance's pool)", name);
    const char *bad = s->transaction ? "rows_per_txn" : s->connect ? "connect = yes"
                      : s->ops ? "ops" : s->ndepths > 1 || s->depths[0] != 1 ? "a depth other "
                      "than 1" : NULL;
    if (bad)
        PGCB_CFGI_FAIL_AT(c, s->concurrency_line, "[suite.%s] concurrency: not with %s: each "
                          "query of a concurrency suite is one execution, its own round trip",
                          name, bad);
    for (size_t k = 0; k < s->nqueries; k++)
        if (c->cfg->queries[s->queries[k]].copy)
            PGCB_CFGI_FAIL_AT(c, s->concurrency_line, "[suite.%s] concurrency: query %s is a "
                              "COPY, which a load (ABI 1.5 run_load) does not run yet", name,
                              c->cfg->queries[s->queries[k]].name);
    return 0;
}
