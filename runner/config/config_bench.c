/*
 * config_bench.c -- the run-wide sections of the INI file: [bench] (budget,
 * CPUs, output, orders, verdicts, protocol choices, driver_dir) and
 * [server] (conninfo, setup script, the transports' connection keys). See
 * config_int.h for the contracts.
 */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

const char *const pgcb_cfgi_bench_keys[] = {"time_ms", "queries", "warmup_ms", "cpus",
                                            "output", "orders", "batch_timeout_ms", "seed",
                                            "alpha", "interval_level", "until",
                                            "until_max_orders", "until_width", "noise_warn_pct",
                                            "result_format", "describe", "sync", "driver_dir",
                                            "checksum_reference", "profile", "max_rss_mb", "memory", "wire", "rtt_ms",
                                            "respawn", "cpu_idle",
                                            NULL};
const char *const pgcb_cfgi_server_keys[] = {"conninfo", "setup", "unix", "tcp", "tls", NULL};

/* result_format, describe, sync: the run's protocol choices. */
static int apply_proto(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    for (int f = 0; f < PGCB_PROTO_STATEMENTS; f++) {
        if (strcmp(key, pgcb_proto_key((enum pgcb_proto_field)f)) != 0)
            continue;
        uint32_t v = pgcb_proto_parse((enum pgcb_proto_field)f, value);
        if (!v) {
            pgcb_cfgi_fail(c, "[bench] %s: '%s' is not one of %s", key, value,
                           pgcb_proto_choices((enum pgcb_proto_field)f));
            return 0;
        }
        pgcb_proto_set(&c->cfg->proto, (enum pgcb_proto_field)f, v);
    }
    return 1;
}

/* until, until_max_orders, until_width: a group that stops once decided. */
static int apply_until(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_config *cfg = c->cfg;
    uint64_t u;
    if (strcmp(key, "until") == 0) {
        if (strcmp(value, "budget") == 0)
            cfg->until_decided = 0;
        else if (strcmp(value, "decided") == 0)
            cfg->until_decided = 1;
        else {
            pgcb_cfgi_fail(c, "[bench] until: '%s' is not budget or decided", value);
            return 0;
        }
        cfg->until_line = c->lineno;
    } else if (strcmp(key, "until_max_orders") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, PGCB_ORDERS_MAX, &u))
            return 0;
        cfg->until_max_orders = (size_t)u;
        cfg->until_max_line = c->lineno;
    } else {
        if (pgcb_cfgi_parse_fraction(value, &cfg->until_width) != 0 ||
            !(cfg->until_width > 0) || !(cfg->until_width <= 1)) {
            pgcb_cfgi_fail(c, "[bench] until_width: '%s' is not a relative width in (0, 1] "
                           "(e.g. 0.05: every ratio interval within 5%% of its ratio)", value);
            return 0;
        }
        cfg->until_width_line = c->lineno;
    }
    return 1;
}

int pgcb_cfgi_bench_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_config *cfg = c->cfg;
    uint64_t u;
    if (strcmp(key, "time_ms") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 0, 86400000ull, &u))
            return 0;
        cfg->time_ms = u;
        cfg->time_source = "file";
    } else if (strcmp(key, "queries") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, UINT32_MAX, &u))
            return 0;
        cfg->min_queries = u;
        cfg->queries_source = "file";
    } else if (strcmp(key, "warmup_ms") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 0, 3600000ull, &u))
            return 0;
        cfg->warmup_ms = u;
    } else if (strcmp(key, "rtt_ms") == 0) {
        return pgcb_cfgi_net_apply(c, &cfg->rtt, value);
    } else if (strcmp(key, "wire") == 0 || strcmp(key, "memory") == 0) {
        int b = pgcb_cfgi_parse_bool(value);
        if (b < 0) {
            pgcb_cfgi_fail(c, "[bench] %s: '%s' is not on or off", key, value);
            return 0;
        }
        *(strcmp(key, "wire") == 0 ? &cfg->wire : &cfg->memory) = b;
    } else if (strcmp(key, "respawn") == 0) {
        if (strcmp(value, "order") == 0)
            cfg->respawn_order = 1;
        else if (strcmp(value, "as_needed") == 0)
            cfg->respawn_order = 0;
        else {
            pgcb_cfgi_fail(c, "[bench] respawn: '%s' is not as_needed or order", value);
            return 0;
        }
    } else if (strcmp(key, "cpu_idle") == 0) {
        int m = pgcb_idle_parse(value);
        if (m < 0) {
            pgcb_cfgi_fail(c, "[bench] cpu_idle: '%s' is not auto, poll or system", value);
            return 0;
        }
        cfg->cpu_idle = (enum pgcb_cpu_idle)m;
        cfg->cpu_idle_line = c->lineno;
    } else if (strcmp(key, "max_rss_mb") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, 16777216ull, &u))
            return 0;
        cfg->max_rss_mb = u;
        cfg->max_rss_mb_line = c->lineno;
    } else if (strcmp(key, "batch_timeout_ms") == 0) {
        if (!pgcb_cfgi_int_key(c, key, value, 1, 86400000ull, &u))
            return 0;
        cfg->batch_timeout_ms = u;
    } else if (strcmp(key, "cpus") == 0) {
        char e[160];
        int n = pgcb_parse_cpus(value, cfg->cpus, PGCB_MAX_CPUS, e, sizeof e);
        if (n < 0) {
            pgcb_cfgi_fail(c, "[bench] cpus: %s", e);
            return 0;
        }
        cfg->ncpus = (size_t)n;
    } else if (strcmp(key, "output") == 0) {
        free(cfg->output);
        cfg->output = value[0] ? pgcb_cfgi_resolve_path(cfg, value) : NULL;
    } else if (strcmp(key, "driver_dir") == 0) {
        free(cfg->driver_dir); /* read once the file is (config_dir.c) */
        cfg->driver_dir = value[0] ? pgcb_cfgi_resolve_path(cfg, value) : NULL;
        cfg->driver_dir_line = c->lineno;
    } else if (strcmp(key, "seed") == 0) {
        if (pgcb_parse_u64(value, 0, UINT64_MAX, &u)) {
            pgcb_cfgi_fail(c, "[bench] seed: '%s' is not a non-negative integer", value);
            return 0;
        }
        cfg->seed = u;
    } else if (strcmp(key, "alpha") == 0) {
        if (pgcb_cfgi_parse_fraction(value, &cfg->alpha) != 0 || !(cfg->alpha > 0) ||
            !(cfg->alpha <= 0.5)) {
            pgcb_cfgi_fail(c, "[bench] alpha: '%s' is not a level in (0, 0.5] (e.g. 1/64 or "
                           "0.01)", value);
            return 0;
        }
    } else if (strcmp(key, "interval_level") == 0) {
        if (pgcb_cfgi_parse_fraction(value, &cfg->interval_level) != 0 ||
            !(cfg->interval_level > 0) || !(cfg->interval_level < 1)) {
            pgcb_cfgi_fail(c, "[bench] interval_level: '%s' is not a level in (0, 1) (e.g. "
                           "0.95)", value);
            return 0;
        }
    } else if (strncmp(key, "until", 5) == 0) {
        return apply_until(c, key, value);
    } else if (strcmp(key, "orders") == 0) {
        char e[160];
        if (pgcb_orders_parse(value, &cfg->orders, &cfg->orders_n, e, sizeof e) != 0) {
            pgcb_cfgi_fail(c, "[bench] orders: %s", e);
            return 0;
        }
    } else if (strcmp(key, "checksum_reference") == 0) {
        if (value[0] && !pgcb_cfgi_valid_name(value)) {
            pgcb_cfgi_fail(c, "[bench] checksum_reference: '%s' is not a driver name ([a-z0-9_])",
                           value);
            return 0;
        }
        free(cfg->checksum_reference);
        cfg->checksum_reference = value[0] ? pgcb_xstrdup(value) : NULL;
        cfg->checksum_reference_line = c->lineno;
    } else if (strcmp(key, "profile") == 0) {
        if (pgcb_profile_mode_parse(value, &cfg->profile) != 0) {
            pgcb_cfgi_fail(c, "[bench] profile: '%s' is not off, on or try (on: sample every "
                           "driver's measured orders with perf, or stop if perf cannot; try: "
                           "the same, unprofiled without perf)", value);
            return 0;
        }
        cfg->profile_source = "file";
        cfg->profile_line = c->lineno;
    } else if (strcmp(key, "noise_warn_pct") == 0) {
        return pgcb_cfgi_real_key(c, key, value, 1000, "a percentage above 0 and up to 1000 "
                                  "(the robust CV of the per-order medians, e.g. 10)",
                                  &cfg->noise_warn_pct);
    } else {
        return apply_proto(c, key, value);
    }
    return 1;
}

const char *pgcb_profile_mode_name(enum pgcb_profile_mode m)
{
    return m == PGCB_PROFILE_ON ? "on" : m == PGCB_PROFILE_TRY ? "try" : "off";
}

int pgcb_profile_mode_parse(const char *s, enum pgcb_profile_mode *out)
{
    static const enum pgcb_profile_mode all[] = {PGCB_PROFILE_OFF, PGCB_PROFILE_ON,
                                                 PGCB_PROFILE_TRY};
    for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, pgcb_profile_mode_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

int pgcb_cfgi_server_apply(struct pgcb_cfgi_ctx *c, const char *key, const char *value)
{
    struct pgcb_config *cfg = c->cfg;
    if (strcmp(key, "conninfo") == 0) {
        free(cfg->conninfo);
        cfg->conninfo = pgcb_xstrdup(value);
    } else if (strcmp(key, "setup") == 0) {
        free(cfg->setup);
        cfg->setup = value[0] ? pgcb_cfgi_resolve_path(cfg, value) : NULL;
    } else {
        enum pgcb_transport t;
        if (pgcb_transport_parse(key, &t) != 0)
            return 1; /* not a key of [server]: handled before apply */
        free(cfg->transport_conninfo[t]);
        cfg->transport_conninfo[t] = NULL;
        cfg->transport_line[t] = c->lineno;
        if (!pgcb_cfgi_conninfo_key(c, key, value))
            return 0;
        if (value[0]) /* empty: the default alone */
            cfg->transport_conninfo[t] = pgcb_xstrdup(value);
    }
    return 1;
}

int pgcb_cfgi_bench_reference(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    if (!cfg->checksum_reference)
        return 0;
    long d = pgcb_config_find_driver(cfg, cfg->checksum_reference);
    if (d < 0)
        PGCB_CFGI_FAIL_AT(c, cfg->checksum_reference_line, "[bench] checksum_reference: no "
                          "driver %s", cfg->checksum_reference);
    return 0;
}

int pgcb_cfgi_bench_finish(struct pgcb_cfgi_ctx *c)
{
    const struct pgcb_config *cfg = c->cfg;
    if (cfg->until_decided && !cfg->until_max_orders)
        PGCB_CFGI_FAIL_AT(c, cfg->until_line, "[bench] until = decided needs until_max_orders, "
                          "the most execution orders a group may run (its cap)");
    if (!cfg->until_decided && cfg->until_max_orders)
        PGCB_CFGI_FAIL_AT(c, cfg->until_max_line, "[bench] until_max_orders is the cap of "
                          "until = decided; this file has no until = decided");
    if (!cfg->until_decided && cfg->until_width_line)
        PGCB_CFGI_FAIL_AT(c, cfg->until_width_line, "[bench] until_width belongs to until = "
                          "decided; this file has no until = decided");
    return 0;
}
