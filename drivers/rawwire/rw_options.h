/*
 * rw_options.h -- the driver options rawwire and floor accept.
 */
#ifndef RW_OPTIONS_H
#define RW_OPTIONS_H

#include <stddef.h>

#include <pgcb/driver.h>

/* The default result format, measured (2026-11-30, 2 vCPUs, PG 15, server
 * on CPU 1, runner on CPU 0): the reply parser folds the benchmark rows in
 * ~31 ns/row in binary vs ~43 ns/row in text (int parsing); end to end,
 * binary had the lower client CPU per query in 4 of 6 groups (LIMIT 500:
 * 43.7 vs 47.2 us at depth 1, 33.1 vs 38.0 us at depth 10) and medians
 * within the run's noise otherwise. numeric and other unconverted types
 * are asked for in text either way (per-column format codes in Bind). */
#define RW_DEFAULT_FORMAT "binary"

extern const struct pgcb_option_spec rw_option_specs[];

/* result_format = text | binary into *binary. `driver` names the driver in
 * messages. PGCB_OK or PGCB_ERR_CONFIG with err set. */
int rw_parse_options(const char *driver, const struct pgcb_option *opts, size_t nopts, int *binary,
                     char *err, size_t errlen);

#endif /* RW_OPTIONS_H */
