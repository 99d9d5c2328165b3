/*
 * config_stream.c -- a [suite.NAME]'s streaming keys (issue 42): stream =
 * buffered | streamed (each sample one whole result of the query, ABI 1.6
 * run_stream), fetch_rows (rows per round trip of an idiom that fetches in
 * chunks) and reads (the count floor per driver and order), and the
 * combinations that make no sense, each refused naming file:line and key.
 * See config_int.h for the contracts.
 */
#include "config_int.h"

#include <string.h>

#include "pgcb/driver.h"

int pgcb_cfgi_stream_apply(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s, const char *key,
                           const char *value)
{
    uint64_t u;
    if (strcmp(key, "stream") == 0) {
        s->stream_line = c->lineno;
        if (strcmp(value, "buffered") == 0)
            s->result_mode = PGCB_RESULT_BUFFERED;
        else if (strcmp(value, "streamed") == 0)
            s->result_mode = PGCB_RESULT_STREAMED;
        else {
            pgcb_cfgi_fail(c, "[%s] stream: '%s' is not buffered or streamed", c->section,
                           value);
            return 0;
        }
        return 1;
    }
    if (strcmp(key, "fetch_rows") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, 100000000ull, &u))
            return 0;
        s->fetch_rows = (uint32_t)u;
        s->fetch_rows_line = c->lineno;
        return 1;
    }
    if (!pgcb_cfgi_int_key(c, key, value, 1, 1000000ull, &u)) /* reads */
        return 0;
    s->reads = u;
    s->reads_line = c->lineno;
    return 1;
}

int pgcb_cfgi_stream_check(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_suite *s)
{
    if (!s->result_mode) {
        int line = s->fetch_rows_line ? s->fetch_rows_line : s->reads_line;
        if (line)
            PGCB_CFGI_FAIL_AT(c, line, "[suite.%s] %s: only with stream = buffered or "
                              "streamed (a streaming suite's key)", s->name,
                              s->fetch_rows_line ? "fetch_rows" : "reads");
        return 0;
    }
    const char *bad = s->transaction ? "rows_per_txn"
                      : s->ndepths > 1 || s->depths[0] != 1 ? "a depth other than 1"
                      : s->threads > 1 ? "threads > 1"
                      : s->connect ? "connect = yes"
                      : s->ops ? "ops"
                      : s->concurrency ? "concurrency" : NULL;
    if (bad)
        PGCB_CFGI_FAIL_AT(c, s->stream_line, "[suite.%s] stream: not with %s: each sample of a "
                          "streaming suite is one whole result on one connection (depth 1, "
                          "one thread; its count floor is reads)", s->name, bad);
    for (size_t k = 0; k < s->nqueries; k++) {
        struct pgcb_cfg_query *q = &c->cfg->queries[s->queries[k]];
        if (q->copy)
            PGCB_CFGI_FAIL_AT(c, s->stream_line, "[suite.%s] stream: query %s is a COPY, "
                              "which has no result to read", s->name, q->name);
        q->stream = 1;
    }
    return 0;
}

int pgcb_cfgi_stream_exclusive(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    for (size_t i = 0; i < cfg->nsuites; i++) {
        const struct pgcb_cfg_suite *s = &cfg->suites[i];
        if (s->result_mode)
            continue;
        for (size_t k = 0; k < s->nqueries; k++) {
            const struct pgcb_cfg_query *q = &cfg->queries[s->queries[k]];
            if (q->stream)
                PGCB_CFGI_FAIL_AT(c, s->line, "[suite.%s] reads query %s, which a streaming "
                                  "suite reads too: a streaming query (a result of 100,000 "
                                  "rows or more) belongs to streaming suites only (give the "
                                  "suite stream = buffered, or name its queries)", s->name,
                                  q->name);
        }
    }
    return 0;
}
