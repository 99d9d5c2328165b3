/*
 * br_ref.h -- the bridge's own reading of a streamed statement's result
 * (docs/bridge-protocol.md, "stream"): libpq, text format, single-row mode,
 * on a connection of its own, outside any timing, so that an adapter's
 * per-column [kind, nulls, sum] can be checked whatever kind it chose, and
 * the checksum libpq_sync would fold stands for an adapter that agrees.
 * Private to drivers/bridge/.
 *
 * Ownership: a struct br_ref owns its columns and its key; the statement
 * that caches it (br_conn.h) frees it with br_ref_free.
 */
#ifndef BR_REF_H
#define BR_REF_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* One result column, over every row: its type, its nulls, and what each
 * kind would contribute (mod 2^32): the integers of an integer column, the
 * trues of a boolean one, every value's text length in the three units. */
struct br_ref_col {
    uint32_t oid;
    uint32_t nulls, sum_int, sum_bool;
    uint32_t sum_len[3];        /* [enum br_textlen] */
};

struct br_ref {
    char *key;                  /* the parameters it was read with (their bytes); owned */
    size_t keylen;
    uint64_t rows;
    uint32_t ncols;
    struct br_ref_col *cols;    /* ncols; owned */
    struct pgcb_sum sum;        /* every value folded as libpq_sync folds the server's text */
};

/* Read statement `sql` once with the parameters of `p` (NULL: none) on a
 * new libpq connection of `conninfo` (the runner's), into *out (emptied
 * first). PGCB_OK; or the status with err: PGCB_ERR_CONNECT, the server's
 * PGCB_ERR_QUERY, PGCB_ERR_UNSUPPORTED (a column the fold does not take). */
int br_ref_read(const char *conninfo, const char *sql, const struct pgcb_params *p,
                locale_t c_locale, struct br_ref *out, char *err, size_t errlen);

/* Whether *r was read with the parameters of p. */
int br_ref_matches(const struct br_ref *r, const struct pgcb_params *p);

void br_ref_free(struct br_ref *r);

#endif
