/*
 * fuzz_config.c -- libFuzzer target for the INI loader (runner/config*.c:
 * our line reader, inih, the handler, finish() and the environment
 * overrides). Built with clang -fsanitize=fuzzer,address,undefined by
 * mk/fuzz_inputs.mk (`make fuzz-inputs`), from the loader's sources.
 *
 * Input: the bytes of an INI file, written to a memfd and loaded through
 * its /proc/self/fd path, twice: with BENCH_TIME_MS, BENCH_QUERIES and
 * PGCB_CONNINFO unset, then with one of a few settings of them (good, empty,
 * bad) chosen by a hash of the input. Beyond what the sanitizers catch
 * (overflows, leaks, undefined behaviour), every outcome is checked against
 * config.h's contract, and a breach is an abort():
 *   - failure: -1, a one-line message that names the file (or the variable)
 *     and fits the caller's buffer, which is exactly sized on the heap;
 *   - success: what finish() promises (drivers with a path, queries with
 *     SQL, suites with depths and query indices, values within their ranges);
 *     and the same file loaded with a selection of one driver, suite and
 *     query from it (--only, --suite, --query, -T, --queries) holds exactly
 *     those.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_fd = -1;
static char fz_path[64];

#define FZ_CHECK(cond) do { if (!(cond)) fz_fail(#cond, __LINE__); } while (0)

static void fz_fail(const char *what, int line)
{
    fprintf(stderr, "fuzz_config: contract broken at line %d: %s\n", line, what);
    abort();
}

static int fz_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 63)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

/* A driver's name: a name as above, or NAME@RELEASE (docs/clients.md,
 * "Releases side by side"): the release of a-z, 0-9 and . _ - +, a digit or
 * v first; 63 characters in all at most. */
static int fz_driver_name_ok(const char *s)
{
    const char *at = s ? strchr(s, '@') : NULL;
    if (!at)
        return fz_name_ok(s);
    char head[64];
    size_t base = (size_t)(at - s);
    if (base == 0 || base >= sizeof head || strlen(s) > 63)
        return 0;
    memcpy(head, s, base);
    head[base] = '\0';
    if (!fz_name_ok(head) || !((at[1] >= '0' && at[1] <= '9') || at[1] == 'v'))
        return 0;
    for (const char *p = at + 1; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
              *p == '-' || *p == '+'))
            return 0;
    return 1;
}

static size_t measured_of(const struct pgcb_config *cfg)
{
    size_t measured = 0;
    for (size_t i = 0; i < cfg->ndrivers; i++)
        measured += cfg->drivers[i].measure == 1;
    return measured;
}

static void fz_check_ok(const struct pgcb_config *cfg)
{
    FZ_CHECK(cfg->file && strcmp(cfg->file, fz_path) == 0);
    FZ_CHECK(cfg->dir);
    FZ_CHECK(cfg->time_ms <= 86400000ull);
    FZ_CHECK(cfg->min_queries >= 1 && cfg->min_queries <= UINT32_MAX);
    FZ_CHECK(cfg->warmup_ms <= 3600000ull);
    FZ_CHECK(cfg->batch_timeout_ms >= 1 && cfg->batch_timeout_ms <= 86400000ull);
    FZ_CHECK(cfg->ncpus >= 1 && cfg->ncpus <= PGCB_MAX_CPUS);
    for (size_t i = 0; i < cfg->ncpus; i++) {
        FZ_CHECK(cfg->cpus[i] >= 0 && cfg->cpus[i] < PGCB_MAX_CPUS);
        for (size_t k = 0; k < i; k++)
            FZ_CHECK(cfg->cpus[k] != cfg->cpus[i]);
    }
    FZ_CHECK(cfg->orders <= PGCB_ORDERS_COUNT);
    FZ_CHECK(cfg->orders != PGCB_ORDERS_COUNT ||
             (cfg->orders_n >= 1 && cfg->orders_n <= PGCB_ORDERS_MAX));
    FZ_CHECK(cfg->time_source && cfg->queries_source);
    FZ_CHECK(cfg->conninfo && cfg->conninfo_source);

    FZ_CHECK(cfg->ndrivers >= 1);
    for (size_t i = 0; i < cfg->ndrivers; i++) {
        const struct pgcb_cfg_driver *d = &cfg->drivers[i];
        FZ_CHECK(fz_driver_name_ok(d->name));
        FZ_CHECK(d->path && d->path_line > 0 && d->line > 0);
        for (size_t k = 0; k < d->nopts; k++) {
            FZ_CHECK(d->opts[k].key && d->opts[k].value && d->opts[k].line > 0);
            FZ_CHECK(strcmp(d->opts[k].key, "path") != 0);
            for (size_t j = 0; j < k; j++)
                FZ_CHECK(strcmp(d->opts[j].key, d->opts[k].key) != 0);
        }
        FZ_CHECK(pgcb_config_find_driver(cfg, d->name) == (long)i);
    }
    FZ_CHECK(cfg->nqueries >= 1);
    for (size_t i = 0; i < cfg->nqueries; i++) {
        const struct pgcb_cfg_query *q = &cfg->queries[i];
        FZ_CHECK(fz_name_ok(q->name));
        FZ_CHECK(q->sql && q->sql[0]);
        FZ_CHECK(q->rows >= -1 && q->rows <= INT32_MAX);
        FZ_CHECK(q->check == PGCB_CHECK_CHECKSUM || q->check == PGCB_CHECK_ROWS ||
                 q->check == PGCB_CHECK_NONE);
        FZ_CHECK(q->prime == 0 || q->prime == 1);
        FZ_CHECK(q->nparams <= PGCB_MAX_PARAMS && (q->nparams == 0) == (q->params == NULL));
        for (size_t j = 0; j < q->nparams; j++) {
            const struct pgcb_gen *g = &q->params[j];
            FZ_CHECK(g->kind == PGCB_GEN_SEQ || g->kind == PGCB_GEN_UNIFORM ||
                     g->kind == PGCB_GEN_LIST || g->kind == PGCB_GEN_TEXT);
            FZ_CHECK(g->kind != PGCB_GEN_SEQ || (g->b != 0 && g->seq_slot < cfg->nseqs));
            FZ_CHECK(g->kind != PGCB_GEN_UNIFORM || g->a <= g->b);
            FZ_CHECK(g->kind != PGCB_GEN_TEXT || (g->a >= 0 && g->a <= PGCB_GEN_TEXT_MAX));
            FZ_CHECK(g->kind != PGCB_GEN_LIST || g->nwords >= 1);
            for (size_t w = 0; w < g->nwords; w++)
                FZ_CHECK(g->words[w] && (size_t)g->word_len[w] == strlen(g->words[w]) &&
                         g->word_len[w] > 0 && g->word_len[w] <= PGCB_GEN_WORD_MAX);
        }
        FZ_CHECK(pgcb_config_find_query(cfg, q->name) == (long)i);
    }
    FZ_CHECK(measured_of(cfg) >= 1);
    for (size_t i = 0; i < cfg->nbackgrounds; i++) {
        const struct pgcb_cfg_background *b = &cfg->backgrounds[i];
        FZ_CHECK(fz_name_ok(b->name));
        FZ_CHECK(b->driver < cfg->ndrivers && b->query < cfg->nqueries);
        FZ_CHECK(b->rate > 0 && b->rate <= 1e7);
        FZ_CHECK(b->connections >= 1 && b->connections <= PGCB_MAX_THREADS);
        FZ_CHECK(b->ncpus >= 1 && b->ncpus <= PGCB_MAX_CPUS);
        FZ_CHECK(b->sla > 0 && b->sla <= 1);
    }
    FZ_CHECK(cfg->nsuites >= 1);
    for (size_t i = 0; i < cfg->nsuites; i++) {
        const struct pgcb_cfg_suite *s = &cfg->suites[i];
        FZ_CHECK(fz_name_ok(s->name));
        FZ_CHECK(s->ndepths >= 1 && s->depths);
        for (size_t k = 0; k < s->ndepths; k++) {
            FZ_CHECK(s->depths[k] >= 1 && s->depths[k] <= 1000000);
            for (size_t j = 0; j < k; j++)
                FZ_CHECK(s->depths[j] != s->depths[k]);
        }
        FZ_CHECK(s->nqueries >= 1 && s->queries);
        for (size_t k = 0; k < s->nqueries; k++) {
            FZ_CHECK(s->queries[k] < cfg->nqueries);
            for (size_t j = 0; j < k; j++)
                FZ_CHECK(s->queries[j] != s->queries[k]);
        }
        FZ_CHECK(s->threads >= 1 && s->threads <= PGCB_MAX_THREADS);
        FZ_CHECK(s->transaction == 0 || s->transaction == 1);
        FZ_CHECK(s->warmup_ms >= -1 && s->warmup_ms <= 3600000);
        FZ_CHECK(s->ops == 0 || (s->ndepths == 1 && s->ops % ((uint64_t)s->threads *
                                                              s->depths[0]) == 0));
        for (size_t k = 0; k < s->nbackgrounds; k++)
            FZ_CHECK(s->backgrounds[k] < cfg->nbackgrounds);
        for (size_t j = 0; j < i; j++)
            FZ_CHECK(strcmp(cfg->suites[j].name, s->name) != 0);
    }
}

/* A failure: one line, naming the file (or the environment variable). */
static void fz_check_err(const char *err, size_t errlen, const char *env_var)
{
    size_t n = strnlen(err, errlen);
    FZ_CHECK(n < errlen);
    FZ_CHECK(n > 0 || errlen == 1);
    FZ_CHECK(!strchr(err, '\n') && !strchr(err, '\r'));
    size_t plen = strlen(fz_path);
    int names_file = strncmp(err, fz_path, plen) == 0 && err[plen] == ':';
    int names_var = env_var && strncmp(err, env_var, strlen(env_var)) == 0;
    FZ_CHECK(names_file || names_var || n == errlen - 1); /* or cut short */
}

/* The same file with a selection from what it loaded as (issue 17): its first
 * measured driver, its last suite and that suite's first query, -T 1 and
 * --queries 5. Every name exists and the query is in the suite, so it must
 * load, and hold exactly that. */
static void fz_select(const struct pgcb_config *cfg)
{
    char drv[64] = "", suite[64], query[64];
    for (size_t i = 0; i < cfg->ndrivers && !drv[0]; i++)
        if (cfg->drivers[i].measure)
            snprintf(drv, sizeof drv, "%s", cfg->drivers[i].name);
    const struct pgcb_cfg_suite *ls = &cfg->suites[cfg->nsuites - 1];
    snprintf(suite, sizeof suite, "%s", ls->name);
    snprintf(query, sizeof query, "%s", cfg->queries[ls->queries[0]].name);
    struct pgcb_config_cli cli = {0};
    char err[512];
    FZ_CHECK(pgcb_config_cli_arg(&cli, PGCB_CLI_ONLY, drv, err, sizeof err) == 0);
    FZ_CHECK(pgcb_config_cli_arg(&cli, PGCB_CLI_SUITE, suite, err, sizeof err) == 0);
    FZ_CHECK(pgcb_config_cli_arg(&cli, PGCB_CLI_QUERY, query, err, sizeof err) == 0);
    FZ_CHECK(pgcb_config_cli_arg(&cli, PGCB_CLI_TIME_S, "1", err, sizeof err) == 0);
    FZ_CHECK(pgcb_config_cli_arg(&cli, PGCB_CLI_QUERIES, "5", err, sizeof err) == 0);
    struct pgcb_config sel;
    FZ_CHECK(pgcb_config_load_cli(fz_path, &cli, &sel, err, sizeof err) == 0);
    fz_check_ok(&sel);
    size_t measured = 0;
    for (size_t i = 0; i < sel.ndrivers; i++)
        measured += sel.drivers[i].measure == 1;
    FZ_CHECK(measured == 1 && sel.drivers[pgcb_config_find_driver(&sel, drv)].measure);
    FZ_CHECK(sel.nsuites == 1 && strcmp(sel.suites[0].name, suite) == 0);
    FZ_CHECK(sel.suites[0].nqueries == 1 &&
             strcmp(sel.queries[sel.suites[0].queries[0]].name, query) == 0);
    FZ_CHECK(sel.time_ms == 1000 && sel.min_queries == 5);
    FZ_CHECK(sel.sel.dropped_drivers.n + 1 == measured_of(cfg));
    pgcb_config_free(&sel);
}

/* One load with errlen bytes for the message; returns the load's result.
 * select: then load it again with a selection (fz_select()). */
static int fz_load(size_t errlen, const char *env_var, int select)
{
    struct pgcb_config cfg;
    char *err = malloc(errlen); /* exactly sized: ASan sees a byte too many */
    if (!err)
        abort();
    memset(err, 'x', errlen);
    int rc = pgcb_config_load(fz_path, &cfg, err, errlen);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        fz_check_ok(&cfg);
        if (select)
            fz_select(&cfg);
        pgcb_config_free(&cfg);
    } else {
        fz_check_err(err, errlen, env_var);
        /* the config was freed and zeroed: freeing it again is harmless */
        FZ_CHECK(cfg.file == NULL && cfg.drivers == NULL && cfg.ndrivers == 0);
        pgcb_config_free(&cfg);
    }
    free(err);
    return rc;
}

/* Settings of the variables for the second load: {BENCH_TIME_MS,
 * BENCH_QUERIES, PGCB_CONNINFO, the variable whose error is expected}. */
static const char *const fz_envs[][4] = {
    {"250", "40", "host=/tmp port=5433", NULL},
    {"", "", "", NULL},
    {"0", "1", NULL, NULL},
    {"86400000", "4294967295", "password=x", NULL},
    {"86400001", NULL, NULL, "BENCH_TIME_MS"},
    {"12ms", "10", NULL, "BENCH_TIME_MS"},
    {NULL, "0", NULL, "BENCH_QUERIES"},
    {"-1", "4294967296", NULL, "BENCH_TIME_MS"},
    {NULL, "99999999999999999999999", NULL, "BENCH_QUERIES"},
};

static void fz_setenv(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fz_fd < 0) {
        fz_fd = memfd_create("fuzz_config.ini", MFD_CLOEXEC);
        if (fz_fd < 0) {
            perror("fuzz_config: memfd_create");
            abort();
        }
        snprintf(fz_path, sizeof fz_path, "/proc/self/fd/%d", fz_fd);
    }
    if (ftruncate(fz_fd, 0) != 0 || (size && pwrite(fz_fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz_config: writing the memfd");
        abort();
    }

    /* 1. The file alone. */
    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    unsetenv("PGCB_CONNINFO");
    int rc = fz_load(512, NULL, 1);

    /* 2. With the environment set, and a message buffer that may be small. */
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    const char *const *env = fz_envs[h % (sizeof fz_envs / sizeof fz_envs[0])];
    fz_setenv("BENCH_TIME_MS", env[0]);
    fz_setenv("BENCH_QUERIES", env[1]);
    fz_setenv("PGCB_CONNINFO", env[2]);
    size_t errlen = (h >> 8) % 4 == 0 ? 1 + (h >> 12) % 48 : 512;
    int rc2 = fz_load(errlen, env[3], 0);
    /* The variables are read only after a file that loads. */
    FZ_CHECK(rc != 0 ? rc2 != 0 : (rc2 == 0) == (env[3] == NULL));

    unsetenv("BENCH_TIME_MS");
    unsetenv("BENCH_QUERIES");
    unsetenv("PGCB_CONNINFO");
    return 0;
}
