/*
 * config_env.c -- what the environment overrides once the INI file is read:
 * BENCH_TIME_MS and BENCH_QUERIES (the budget, [bench] time_ms and
 * queries) and PGCB_CONNINFO ([server] conninfo). See config_int.h.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

int pgcb_cfgi_apply_env(struct pgcb_config *cfg, char *err, size_t errlen)
{
    const char *v = getenv("BENCH_TIME_MS");
    uint64_t u;
    if (v && *v) {
        if (pgcb_parse_u64(v, 0, 86400000ull, &u)) {
            snprintf(err, errlen, "BENCH_TIME_MS: '%s' is not an integer from 0 to 86400000", v);
            return -1;
        }
        cfg->time_ms = u;
        cfg->time_source = "BENCH_TIME_MS";
    }
    v = getenv("BENCH_QUERIES");
    if (v && *v) {
        if (pgcb_parse_u64(v, 1, UINT32_MAX, &u)) {
            snprintf(err, errlen, "BENCH_QUERIES: '%s' is not an integer from 1 to %u", v,
                     UINT32_MAX);
            return -1;
        }
        cfg->min_queries = u;
        cfg->queries_source = "BENCH_QUERIES";
    }
    v = getenv("PGCB_CONNINFO");
    if (v) {
        free(cfg->conninfo);
        cfg->conninfo = pgcb_xstrdup(v);
        cfg->conninfo_source = "PGCB_CONNINFO";
    } else if (!cfg->conninfo) {
        cfg->conninfo = pgcb_xstrdup("");
        cfg->conninfo_source = "environment";
    } else {
        cfg->conninfo_source = cfg->conninfo[0] ? "file" : "environment";
    }
    return 0;
}
