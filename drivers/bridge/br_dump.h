/*
 * br_dump.h -- what the bridge makes of a dump: the values an adapter's
 * client delivered for one batch (docs/bridge-protocol.md, "Dumps").
 *
 * From the dumped values, in C:
 *   - the batch's checksum, folded as libpq_sync folds the server's text
 *     (pgcb/value.h), by column type;
 *   - per execution and column, what the protocol's fold needs, so that the
 *     fold of the batch can be computed for any kinds (br_dump_fold);
 *   - the kinds the bridge sends with later runs of the statement.
 *
 * Ownership: a struct br_dump owns its arrays; br_dump_free() releases
 * them. Nothing here prints.
 */
#ifndef BR_DUMP_H
#define BR_DUMP_H

#include <jansson.h>
#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

/* The kinds of the fold ("kinds" in a run request). Part of the protocol. */
enum br_kind { BR_KIND_ANY = 0, BR_KIND_BOOL = 1, BR_KIND_INT = 2, BR_KIND_STR = 3 };

/* The unit of a string's length in the fold (hello's text_length). */
enum br_textlen { BR_LEN_UTF16 = 0, BR_LEN_CODEPOINTS = 1, BR_LEN_BYTES = 2 };

/* One column of one execution's result: what each kind contributes. */
struct br_colstat {
    uint32_t nulls;
    uint32_t sum_bool;  /* true values, mod 2^32 */
    uint32_t sum_int;   /* JSON integers, mod 2^32 */
    uint32_t sum_len;   /* lengths of the strings, in the adapter's unit, mod 2^32 */
};

struct br_dump {
    uint32_t nresults;       /* executions */
    uint32_t ncols;          /* columns of every result (they agree) */
    uint64_t *rows;          /* rows of each result */
    uint64_t total_rows;
    struct br_colstat *cols; /* [result * ncols + column] */
    unsigned char *kinds;    /* ncols: the kind each column's values allow (enum br_kind) */
    struct pgcb_sum sum;     /* the checksum of the batch (every result, in order) */
    /* What the client made of the columns of converted types, for a message
     * when the checksum disagrees with the C drivers': e.g. `column 4 "ts"
     * (timestamptz): the client delivered Date` ("; " between columns, each
     * column once, truncated at the end). "" when every value came as the
     * server's text or as its exact value. */
    char note[256];
    uint64_t noted;          /* the columns (of the first 64) already in note */
};

/* The fold's step and start (the protocol's mix). */
#define BR_FOLD_START 2166136261u
static inline uint32_t br_fold_mix(uint32_t h, uint32_t x)
{
    return (h ^ x) * 16777619u;
}

/* Read the dump `results` (the reply's array) of a batch of `depth`
 * executions: every value folded into out->sum -- which starts as *start,
 * the checksum the batch continues -- as libpq_sync would fold the server's
 * text of it, per column type; the statistics; the kinds. `c_locale` is the
 * "C" locale, for text floats. Returns 0, or -1 with err naming what is
 * malformed (out is then empty), or -2 with err naming the column and row
 * of a value the fold does not take (an array of more than one dimension,
 * which the C drivers refuse too: PGCB_ERR_UNSUPPORTED). */
int br_dump_read(const json_t *results, uint32_t depth, enum br_textlen tl, locale_t c_locale,
                 const struct pgcb_sum *start, struct br_dump *out, char *err, size_t errlen);

/* The fold of the dumped batch with `kinds` (ncols of them; NULL: every
 * column BR_KIND_ANY), as the protocol defines it. */
uint32_t br_dump_fold(const struct br_dump *d, const unsigned char *kinds);

void br_dump_free(struct br_dump *d);

/* The protocol's name of kind k ("int"). */
const char *br_kind_name(unsigned k);

#endif
