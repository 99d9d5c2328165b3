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

/* The floor's default spin_us: it polls through any gap of a batch's replies
 * without sleeping. Measured (2026-12-01, this project's 2-vCPU VM, server
 * on CPU 1): a reader that sleeps makes the server pay a wake-up for every
 * chunk it sends, ~10% of the backend's CPU in the pipelined groups
 * (LIMIT 500: 135.6 against 122.1 us per query), and its own wake-up is in
 * every sample: the blocking floor was slower than libpq_pipeline, which
 * reads slowly enough not to sleep as often (1.284 against 1.298 ms at
 * pipelined LIMIT 500 in the quiet run, 1.67 against 1.43 ms in a noisy
 * one), so it was no floor. rawwire keeps 0: it waits as libpq waits. */
#define RW_FLOOR_SPIN_US 1000u

/* rawwire's options, and the floor's (the same keys; spin_us defaults to
 * RW_FLOOR_SPIN_US). */
extern const struct pgcb_option_spec rw_option_specs[];
extern const struct pgcb_option_spec rw_floor_option_specs[];

/* The options into *o (defaults for what is not given: `driver` "floor"
 * gets the floor's). `driver` names the driver in messages. PGCB_OK or PGCB_ERR_CONFIG with err set (an unknown
 * key, a value not among the choices). */
int rw_parse_options(const char *driver, const struct pgcb_option *opts, size_t nopts,
                     struct rw_options *o, char *err, size_t errlen);

/* The ABI 1.3 protocol() of both drivers: what such connections ask for. */
int rw_protocol(const char *driver, const struct pgcb_option *opts, size_t nopts,
                struct pgcb_protocol *out, char *err, size_t errlen);

#endif /* RW_OPTIONS_H */
