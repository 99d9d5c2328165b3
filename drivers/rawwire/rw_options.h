/*
 * rw_options.h -- the driver options rawwire and floor accept: what their
 * connections ask of the server. The defaults are libpq's (text results, a
 * Describe of the portal with every execution, a Sync after every query),
 * so that rawwire and libpq give the server the same work unless a config
 * asks otherwise (the runner passes the run's [bench] choices as these
 * options).
 */
#ifndef RW_OPTIONS_H
#define RW_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* What one connection asks of the server. */
struct rw_options {
    int binary;           /* result_format = binary: binary for the converted types */
    int describe_each;    /* describe = per_execution: Describe (portal) before every Execute */
    int sync_per_batch;   /* sync = per_batch: one Sync after the batch's last Execute */
    uint32_t spin_us;     /* spin_us: poll without sleeping this long before a blocking read */
};

/* The largest spin_us. */
#define RW_SPIN_US_MAX 100000u

extern const struct pgcb_option_spec rw_option_specs[];

/* The options into *o (defaults for what is not given). `driver` names the
 * driver in messages. PGCB_OK or PGCB_ERR_CONFIG with err set (an unknown
 * key, a value not among the choices). */
int rw_parse_options(const char *driver, const struct pgcb_option *opts, size_t nopts,
                     struct rw_options *o, char *err, size_t errlen);

/* The ABI 1.3 protocol() of both drivers: what such connections ask for. */
int rw_protocol(const char *driver, const struct pgcb_option *opts, size_t nopts,
                struct pgcb_protocol *out, char *err, size_t errlen);

#endif /* RW_OPTIONS_H */
