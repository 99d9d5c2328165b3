/*
 * run.h -- one run of the runner: the config and its drivers loaded, the
 * server prepared, every group measured and reported, the JSON result (and
 * the --html page) written. main.c parses the command line into a struct
 * pgcb_run_opts and calls pgcb_run; the run prints its tables on stdout
 * and its errors on stderr, one line each.
 */
#ifndef PGCB_RUN_H
#define PGCB_RUN_H

#include <stdint.h>

#include "config/config.h"

/* What the command line asked of a run (all of it owned by the caller,
 * pointing into argv). */
struct pgcb_run_opts {
    const char *version;            /* the runner's (git describe), for the result */
    const char *config_path;        /* -c */
    const struct pgcb_config_cli *cli; /* the selection and budget flags */
    const char *output_arg;         /* -o, or NULL: [bench] output, else the default */
    const char *resume;             /* --resume JOURNAL, or NULL */
    const char *html;               /* --html FILE or "auto", or NULL */
    int list;                       /* --list-drivers: load, describe, exit */
    int quiet, detail;              /* -q, --detail */
    unsigned progress_s;            /* -P SEC (0: the default progress) */
    uint64_t t0_ns;                 /* when the runner started (CLOCK_MONOTONIC) */
};

/* Run it. Returns the exit status (docs/cli.md): 0 every driver measured
 * and valid in every group; 1 an error before anything was measured (no
 * result written); 2 written, but a driver failed or was invalid somewhere,
 * or the run was interrupted; 3 measured, but the result or the page could
 * not be written. Installs SIGINT/SIGTERM handlers once measuring starts. */
int pgcb_run(const struct pgcb_run_opts *o);

#endif
