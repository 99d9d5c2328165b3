/*
 * rw_options.c -- see rw_options.h.
 */
#include "rw_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rw_err.h"

/* The protocol choices, the same for both drivers. */
#define RW_PROTOCOL_SPECS                                                                          \
    {"result_format", "text",                                                                      \
     "result format asked of the server: text | binary (numeric and unconverted types always "     \
     "text)"},                                                                                     \
    {"describe", "per_execution",                                                                  \
     "per_execution: a Describe of the portal with every execution, as libpq | once: at prepare"}, \
    {"sync", "per_query",                                                                          \
     "per_query: a Sync after every query (an error aborts only that query) | per_batch: one per " \
     "batch"}

const struct pgcb_option_spec rw_option_specs[] = {
    RW_PROTOCOL_SPECS,
    {"spin_us", "0",
     "microseconds to poll for replies without sleeping before each blocking read (0..100000): "
     "client CPU for latency; not a server-visible choice"},
    {NULL, NULL, NULL},
};

const struct pgcb_option_spec rw_floor_option_specs[] = {
    RW_PROTOCOL_SPECS,
    {"spin_us", "1000",
     "microseconds to poll for replies without sleeping before each blocking read (0..100000): "
     "the floor waits without sleeping, so that no wake-up is in its latency"},
    {NULL, NULL, NULL},
};

/* One key's two words and where its choice goes. */
static int rw_choice(const char *v, const char *no, const char *yes, int *out)
{
    if (strcmp(v, no) == 0)
        *out = 0;
    else if (strcmp(v, yes) == 0)
        *out = 1;
    else
        return -1;
    return 0;
}

int rw_parse_options(const char *driver, const struct pgcb_option *opts, size_t nopts,
                     struct rw_options *o, char *err, size_t errlen)
{
    *o = (struct rw_options){.binary = 0, .describe_each = 1, .sync_per_batch = 0,
                             .spin_us = strcmp(driver, "floor") == 0 ? RW_FLOOR_SPIN_US : 0};
    for (size_t i = 0; i < nopts; i++) {
        const char *k = opts[i].key ? opts[i].key : "", *v = opts[i].value ? opts[i].value : "";
        int bad;
        if (strcmp(k, "result_format") == 0)
            bad = rw_choice(v, "text", "binary", &o->binary);
        else if (strcmp(k, "describe") == 0) {
            int once = 0;
            bad = rw_choice(v, "per_execution", "once", &once);
            o->describe_each = !once;
        } else if (strcmp(k, "sync") == 0)
            bad = rw_choice(v, "per_query", "per_batch", &o->sync_per_batch);
        else if (strcmp(k, "spin_us") == 0) {
            char *end;
            errno = 0;
            unsigned long n = strtoul(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || errno || n > RW_SPIN_US_MAX) {
                rw_errf(err, errlen, "spin_us = \"%s\": expected microseconds from 0 to %u", v,
                        RW_SPIN_US_MAX);
                return PGCB_ERR_CONFIG;
            }
            o->spin_us = (uint32_t)n;
            continue;
        } else {
            rw_errf(err, errlen, "unknown option \"%s\" (= \"%s\"); %s knows result_format, "
                    "describe, sync and spin_us", k, v, driver);
            return PGCB_ERR_CONFIG;
        }
        if (bad) {
            rw_errf(err, errlen, "%s = \"%s\": expected %s", k, v,
                    strcmp(k, "result_format") == 0 ? "text or binary"
                    : strcmp(k, "describe") == 0   ? "per_execution or once"
                                                   : "per_query or per_batch");
            return PGCB_ERR_CONFIG;
        }
    }
    return PGCB_OK;
}

int rw_protocol(const char *driver, const struct pgcb_option *opts, size_t nopts,
                struct pgcb_protocol *out, char *err, size_t errlen)
{
    struct rw_options o;
    int rc = rw_parse_options(driver, opts, nopts, &o, err, errlen);
    if (rc != PGCB_OK)
        return rc;
    out->result_format = o.binary ? PGCB_FORMAT_BINARY : PGCB_FORMAT_TEXT;
    out->describe = o.describe_each ? PGCB_DESCRIBE_PER_EXECUTION : PGCB_DESCRIBE_ONCE;
    out->sync = o.sync_per_batch ? PGCB_SYNC_PER_BATCH : PGCB_SYNC_PER_QUERY;
    out->statements = PGCB_STMT_NAMED;
    return PGCB_OK;
}
