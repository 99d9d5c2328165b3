/*
 * journal.h -- the run's journal: every finished group appended as it
 * finishes, so that a run killed hard (SIGKILL, the OOM killer, a lost CI
 * runner) keeps what it measured, and `runner --resume JOURNAL` finishes it.
 *
 * The journal is RESULT.journal, JSON Lines, each line one compact jansson
 * object followed by '\n' and fdatasync():
 *
 *   {"journal": 1, "runner_version": V, "config_file": F, "config_sha256": H,
 *    "result": RESULT, "started_at": T, "ngroups": N, "norders": K}
 *   {"group": g, "data": GROUP}        one per finished group, g from 0;
 *                                      GROUP = pgcb_result_group_json()
 *   {"end": true, "complete": B}       once the result file is written
 *
 * A kill can cut only the last line: the reader drops a last line that has
 * no '\n' or is not JSON (and says so); any other bad line is refused.
 *
 * Writing never ends the run: the first error is reported once on stderr
 * and the journal is given up (the result at the end still matters).
 */
#ifndef PGCB_JOURNAL_H
#define PGCB_JOURNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "result.h"

#define PGCB_JOURNAL_FORMAT 1
#define PGCB_JOURNAL_SUFFIX ".journal"

/* What a journal's first line says about its run. */
struct pgcb_journal_head {
    const char *runner_version;
    const char *config_file;
    const char *config_sha256; /* pgcb_journal_config_hash() */
    const char *result;        /* the result file's path */
    const char *started_at;
    size_t ngroups, norders;
};

/* An open journal being written. fd < 0: none (never opened, or given up). */
struct pgcb_journal {
    int fd;
    char *path; /* owned */
};

/* The SHA-256 (hex, 64 characters + NUL) of the INI file's bytes and of the
 * overrides the environment applies to it: BENCH_TIME_MS, BENCH_QUERIES and
 * PGCB_CONNINFO (the latter without its password, pgcb_conninfo_redact()),
 * each hashed as set or unset. Returns 0, or -1 with "FILE: reason" in err. */
int pgcb_journal_config_hash(const char *ini_path, char out[65], char *err, size_t n);

/* The same, with `extra` hashed after the overrides unless NULL or "": the
 * command line's additions, selection and budget
 * (pgcb_config_cli_digest()), so that --resume refuses a run resumed with
 * others. */
int pgcb_journal_config_hash_with(const char *ini_path, const char *extra, char out[65],
                                  char *err, size_t n);

/* Create (or truncate) the journal at path, write the head line and sync it
 * (and the directory). Returns 0, or -1 with "PATH: reason" in err and
 * j->fd = -1. */
int pgcb_journal_create(struct pgcb_journal *j, const char *path,
                        const struct pgcb_journal_head *h, char *err, size_t n);

/* Reopen an existing journal (runner --resume) to append to it, first cut
 * to valid_len bytes (pgcb_journal_state.valid_len: a last line cut by the
 * interruption goes). Returns 0, or -1 with "PATH: reason" in err. */
int pgcb_journal_reopen(struct pgcb_journal *j, const char *path, off_t valid_len, char *err,
                        size_t n);

/* Append group g of r, synced. On failure: one line on stderr, the journal
 * given up. */
void pgcb_journal_group(struct pgcb_journal *j, const struct pgcb_result *r, size_t g);

/* Append the end line (the result file is written), synced. */
void pgcb_journal_end(struct pgcb_journal *j, int complete);

/* Close the journal (safe when it is not open). */
void pgcb_journal_close(struct pgcb_journal *j);

/* A journal as read back. Owns every string and groups[]. */
struct pgcb_journal_state {
    char *runner_version, *config_file, *config_sha256, *result, *started_at;
    size_t ngroups, norders;
    struct json_t **groups;  /* [ngroups]: group g's "data", or NULL: not journaled */
    size_t *group_line;      /* [ngroups]: its line number (1-based), 0 if none */
    size_t nkept;            /* groups journaled */
    int ended, complete;     /* an end line was read; what it said */
    off_t valid_len;         /* bytes of the lines kept (every complete line) */
    size_t dropped_line;     /* the last line's number when it was dropped, else 0 */
};

/* Read the journal at path into *st (the caller frees it with
 * pgcb_journal_state_free(), also on failure). Returns 0, or -1 with one
 * line in err naming the file (and the line where there is one): not a
 * journal, a corrupt line that is not the last. A cut last line is no
 * error: st->dropped_line says which, warn gets the sentence to print
 * ("" otherwise). Checks nothing against the runner or config
 * (pgcb_journal_check()). */
int pgcb_journal_read(const char *path, struct pgcb_journal_state *st, char *warn, size_t wn,
                      char *err, size_t n);

/* Whether st can be resumed by this runner with this config: the same
 * runner version and config hash, and no end line. Returns 0, or -1 with
 * one line in err naming `path`. */
int pgcb_journal_check(const struct pgcb_journal_state *st, const char *path,
                       const char *runner_version, const char *config_sha256, char *err,
                       size_t n);

/* Put the journaled groups into r (built from the same config: ngroups,
 * norders and each group's suite, query and depth must agree), replacing
 * what r had for them, and r->started_at by the journal's. Returns 0, or -1
 * with "PATH:LINE: corrupt line: why" in err. */
int pgcb_journal_restore(const struct pgcb_journal_state *st, const char *path,
                         struct pgcb_result *r, char *err, size_t n);

void pgcb_journal_state_free(struct pgcb_journal_state *st);

#endif
