/*
 * config_query.c -- [query.NAME] sections: the SQL (continued over lines,
 * joined with newlines), expected rows, what is checked, whether it is
 * primed, and the generators of its parameters (param1 .. param64, gen.h).
 * Also pgcb_config_read_only() and pgcb_config_find_query(). See
 * config_int.h for the contracts.
 */
#include "config_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/bulk.h"
#include "util.h"

const char *const pgcb_cfgi_query_keys[] = {"sql", "rows", "check", "prime", "versus", "copy",
                                            "copy_from", "copy_format", "params_from",
                                            "read_back", NULL};

void pgcb_cfgi_query_begin(struct pgcb_cfgi_ctx *c, const char *name)
{
    struct pgcb_config *cfg = c->cfg;
    size_t n = cfg->nqueries;
    cfg->queries = pgcb_xrealloc(cfg->queries, (n + 1) * sizeof *cfg->queries);
    cfg->queries[n] = (struct pgcb_cfg_query){
        .name = pgcb_xstrdup(name), .rows = -1, .prime = -1, .line = c->lineno};
    c->query_seen = pgcb_xrealloc(c->query_seen, (n + 1) * sizeof *c->query_seen);
    c->query_seen[n] = 0;
    c->query_check_line = pgcb_xrealloc(c->query_check_line,
                                        (n + 1) * sizeof *c->query_check_line);
    c->query_check_line[n] = 0;
    c->query_prime_line = pgcb_xrealloc(c->query_prime_line,
                                        (n + 1) * sizeof *c->query_prime_line);
    c->query_prime_line[n] = 0;
    c->query_versus_line = pgcb_xrealloc(c->query_versus_line,
                                         (n + 1) * sizeof *c->query_versus_line);
    c->query_versus_line[n] = 0;
    c->idx = cfg->nqueries++;
}

unsigned pgcb_cfgi_param_number(const char *key)
{
    uint64_t n;
    if (strncmp(key, "param", 5) != 0 || key[5] == '0' ||
        pgcb_parse_u64(key + 5, 1, PGCB_MAX_PARAMS, &n))
        return 0;
    return (unsigned)n;
}

int pgcb_cfgi_query_param_repeated(const struct pgcb_cfgi_ctx *c, const char *key)
{
    const struct pgcb_cfg_query *q = &c->cfg->queries[c->idx];
    unsigned n = pgcb_cfgi_param_number(key);
    return n <= q->nparams && (int)q->params[n - 1].kind != -1;
}

static int apply_param(struct pgcb_cfgi_ctx *c, struct pgcb_cfg_query *q, const char *key,
                       const char *value)
{
    unsigned n = pgcb_cfgi_param_number(key);
    if (n == 0)
        return 1; /* unknown keys were refused by the handler */
    if (n > q->nparams) {
        q->params = pgcb_xrealloc(q->params, n * sizeof *q->params);
        memset(q->params + q->nparams, 0, (n - q->nparams) * sizeof *q->params);
        for (size_t i = q->nparams; i < n; i++)
            q->params[i].kind = (enum pgcb_gen_kind)-1; /* not given (yet) */
        q->nparams = n;
    }
    struct pgcb_gen *g = &q->params[n - 1];
    if ((int)g->kind != -1)
        pgcb_gen_free(g);
    char e[160];
    if (pgcb_gen_parse(value, g, e, sizeof e) != 0) {
        g->kind = (enum pgcb_gen_kind)-1;
        pgcb_cfgi_fail(c, "[%s] %s: %s", c->section, key, e);
        return 0;
    }
    return 1;
}

int pgcb_cfgi_query_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_cfg_query *q = &c->cfg->queries[c->idx];
    uint64_t u;
    if (strcmp(key, "sql") == 0) {
        free(q->sql);
        q->sql = pgcb_xstrdup(value);
    } else if (strcmp(key, "rows") == 0) {
        if (pgcb_parse_u64(value, 0, INT32_MAX, &u)) {
            pgcb_cfgi_fail(c, "[%s] rows: '%s' is not a non-negative integer", c->section,
                           value);
            return 0;
        }
        q->rows = (int64_t)u;
    } else if (strcmp(key, "check") == 0) {
        if (strcmp(value, "checksum") == 0)
            q->check = PGCB_CHECK_CHECKSUM;
        else if (strcmp(value, "rows") == 0)
            q->check = PGCB_CHECK_ROWS;
        else if (strcmp(value, "none") == 0)
            q->check = PGCB_CHECK_NONE;
        else {
            pgcb_cfgi_fail(c, "[%s] check: '%s' is not 'checksum', 'rows' or 'none'",
                           c->section, value);
            return 0;
        }
        c->query_check_line[c->idx] = c->lineno;
    } else if (strcmp(key, "prime") == 0) {
        q->prime = pgcb_cfgi_parse_bool(value);
        if (q->prime < 0) {
            pgcb_cfgi_fail(c, "[%s] prime: '%s' is not yes or no", c->section, value);
            return 0;
        }
        c->query_prime_line[c->idx] = c->lineno;
    } else if (strcmp(key, "versus") == 0) {
        if (!pgcb_cfgi_valid_name(value)) {
            pgcb_cfgi_fail(c, "[%s] versus: '%s' is not a query name ([a-z0-9_], at most 63 "
                           "characters)", c->section, value);
            return 0;
        }
        free(q->versus);
        q->versus = pgcb_xstrdup(value);
        c->query_versus_line[c->idx] = c->lineno;
    } else if (strcmp(key, "copy") == 0 || strcmp(key, "read_back") == 0) {
        if (!pgcb_bulk_valid_table(value)) {
            pgcb_cfgi_fail(c, "[%s] %s: '%s' is not a table name (NAME or SCHEMA.NAME of "
                           "letters, digits and _)", c->section, key, value);
            return 0;
        }
        char **dst = key[0] == 'c' ? &q->copy : &q->read_back;
        free(*dst);
        *dst = pgcb_xstrdup(value);
        *(key[0] == 'c' ? &q->copy_line : &q->read_back_line) = c->lineno;
    } else if (strcmp(key, "copy_from") == 0 || strcmp(key, "params_from") == 0) {
        if (!pgcb_config_read_only(value)) {
            pgcb_cfgi_fail(c, "[%s] %s: '%s' is not a query that only reads (SELECT, WITH, "
                           "VALUES or TABLE)", c->section, key, value);
            return 0;
        }
        char **dst = key[0] == 'c' ? &q->copy_from : &q->params_from;
        free(*dst);
        *dst = pgcb_xstrdup(value);
        if (key[0] == 'p')
            q->params_from_line = c->lineno;
    } else if (strcmp(key, "copy_format") == 0) {
        if (strcmp(value, "text") == 0)
            q->copy_format = PGCB_COPY_TEXT;
        else if (strcmp(value, "binary") == 0)
            q->copy_format = PGCB_COPY_BINARY;
        else {
            pgcb_cfgi_fail(c, "[%s] copy_format: '%s' is not 'text' or 'binary'", c->section,
                           value);
            return 0;
        }
    } else {
        return apply_param(c, q, key, value);
    }
    return 1;
}

/* The bulk keys of query i go together: copy with copy_from (and no sql, no
 * parameters), read_back with params_from, params_from with sql and no
 * paramN. A COPY query's sql is the runner's COPY statement. */
static int bulk_finish(struct pgcb_cfgi_ctx *c, size_t i)
{
    struct pgcb_cfg_query *q = &c->cfg->queries[i];
    unsigned seen = c->query_seen[i];
#define SEEN(k) (seen & (1u << pgcb_cfgi_key_index(pgcb_cfgi_query_keys, (k))))
    if (!q->copy && (SEEN("copy_from") || SEEN("copy_format")))
        PGCB_CFGI_FAIL_AT(c, q->line, "[query.%s] has copy_from or copy_format but no 'copy = "
                          "TABLE'", q->name);
    if (q->copy) {
        if (!q->copy_from)
            PGCB_CFGI_FAIL_AT(c, q->copy_line, "[query.%s] copy: needs 'copy_from = SELECT "
                              "...' (the rows to copy)", q->name);
        if (q->sql)
            PGCB_CFGI_FAIL_AT(c, q->copy_line, "[query.%s] copy: give no 'sql =' (the runner "
                              "writes the COPY statement)", q->name);
        if (q->nparams || q->params_from || q->read_back)
            PGCB_CFGI_FAIL_AT(c, q->copy_line, "[query.%s] copy: a COPY takes no parameters "
                              "(paramN, params_from, read_back)", q->name);
        q->sql = pgcb_xasprintf("COPY %s FROM STDIN (FORMAT %s)", q->copy,
                                q->copy_format == PGCB_COPY_BINARY ? "binary" : "text");
        if (!c->query_prime_line[i])
            q->prime = 0; /* the COPY is checked by reading back (bulk.h), not primed */
    }
    if (q->params_from && q->nparams)
        PGCB_CFGI_FAIL_AT(c, q->params_from_line, "[query.%s] params_from: give either "
                          "params_from or param1 ..., not both", q->name);
    if (q->read_back && !q->params_from)
        PGCB_CFGI_FAIL_AT(c, q->read_back_line, "[query.%s] read_back: needs 'params_from = "
                          "SELECT ...' (the rows inserted, to compare with)", q->name);
#undef SEEN
    return 0;
}

int pgcb_cfgi_query_finish(struct pgcb_cfgi_ctx *c)
{
    struct pgcb_config *cfg = c->cfg;
    if (cfg->nqueries == 0)
        PGCB_CFGI_FAIL_AT(c, 0, "no [query.NAME] section: nothing to run");
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (bulk_finish(c, i) != 0)
            return -1;
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (!cfg->queries[i].sql || !cfg->queries[i].sql[0])
            PGCB_CFGI_FAIL_AT(c, cfg->queries[i].line, "[query.%s] has no 'sql ='",
                              cfg->queries[i].name);
    for (size_t i = 0; i < cfg->nqueries; i++) {
        struct pgcb_cfg_query *q = &cfg->queries[i];
        for (size_t j = 0; j < q->nparams; j++) {
            if ((int)q->params[j].kind == -1)
                PGCB_CFGI_FAIL_AT(c, q->line, "[query.%s] has param%zu but no param%zu: "
                                  "number the parameters from 1 without gaps", q->name,
                                  q->nparams, j + 1);
            if (q->params[j].kind == PGCB_GEN_SEQ)
                q->params[j].seq_slot = cfg->nseqs++;
        }
        /* Random keys give different rows each batch: the checksum cannot be
         * compared, the row count only when the file gives it. */
        if (q->nparams && !q->params_from && !c->query_check_line[i])
            q->check = q->rows >= 0 ? PGCB_CHECK_ROWS : PGCB_CHECK_NONE;
        /* Primed at connect time, before any suite has run: a query whose
         * keys come from generators may look for rows a write step has not
         * made yet, so only a read-only query without parameters is. */
        if (q->prime < 0)
            q->prime = !q->nparams && pgcb_config_read_only(q->sql);
        /* The twin is a query of the file (whether a suite runs both beside
         * each other is the result's to find: a selection may leave one out). */
        if (q->versus && strcmp(q->versus, q->name) == 0)
            PGCB_CFGI_FAIL_AT(c, c->query_versus_line[i], "[query.%s] versus: a query cannot "
                              "be its own twin: name the query of the same shape with its "
                              "columns cast to text", q->name);
        if (q->versus && pgcb_config_find_query(cfg, q->versus) < 0)
            PGCB_CFGI_FAIL_AT(c, c->query_versus_line[i], "[query.%s] versus: no [query.%s] "
                              "in the file", q->name, q->versus);
    }
    return 0;
}

long pgcb_config_find_query(const struct pgcb_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nqueries; i++)
        if (strcmp(cfg->queries[i].name, name) == 0)
            return (long)i;
    return -1;
}

int pgcb_config_read_only(const char *sql)
{
    static const char *const words[] = {"select", "with", "values", "table", "show", NULL};
    while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r' || *sql == '(')
        sql++;
    int ro = 0;
    for (int i = 0; words[i] && !ro; i++) {
        size_t n = strlen(words[i]);
        ro = strncasecmp(sql, words[i], n) == 0 && !isalnum((unsigned char)sql[n]) &&
             sql[n] != '_';
    }
    if (!ro || strncasecmp(sql, "with", 4) != 0)
        return ro;
    /* A WITH that names a writing verb anywhere (a data-modifying CTE), to
     * be safe. */
    static const char *const verbs[] = {"insert", "update", "delete", "merge", NULL};
    for (const char *p = sql; *p; p++) {
        if (p != sql && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        for (int i = 0; verbs[i]; i++) {
            size_t n = strlen(verbs[i]);
            if (strncasecmp(p, verbs[i], n) == 0 && !isalnum((unsigned char)p[n]) &&
                p[n] != '_')
                return 0;
        }
    }
    return 1;
}

void pgcb_cfgi_query_free(struct pgcb_cfg_query *q)
{
    free(q->name);
    free(q->sql);
    free(q->versus);
    for (size_t j = 0; j < q->nparams; j++)
        if ((int)q->params[j].kind != -1)
            pgcb_gen_free(&q->params[j]);
    free(q->params);
    free(q->copy);
    free(q->copy_from);
    free(q->params_from);
    free(q->read_back);
    pgcb_bulk_free(q->bulk);
}
