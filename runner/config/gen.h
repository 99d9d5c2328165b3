/*
 * gen.h -- parameter generators: the values bound to $1, $2 ... of a
 * parameterized query, drawn outside the timed section.
 *
 * A generator is configured in the INI as `paramN = KIND ARGS`:
 *   seq START [STEP]   START, START+STEP, ... one sequence per query
 *                      parameter, shared by every thread, driver, order and
 *                      background connection of the run (an atomic counter
 *                      in memory shared with the driver hosts), so that rows
 *                      inserted in key order never collide;
 *   uniform LO HI      an integer uniformly in [LO, HI] (unbiased);
 *   list V1 V2 ...     one of the words, uniformly;
 *   text LEN           LEN random letters a-z;
 *   (rows)             not written in the INI: [query] params_from makes one
 *                      per column of its rows (bulk.h); the i-th execution of
 *                      a draw binds row i mod nrows, so a batch of depth
 *                      nrows binds every row once, in order.
 * Random generators draw from a per-stream xoshiro256** state seeded from
 * ([bench] seed, stream numbers): the same seed and the same stream give the
 * same values, so every driver of an execution order sees the same keys and
 * a run can be repeated.
 *
 * Ownership: a struct pgcb_gen owns its list words; pgcb_gen_free() frees
 * them. Values written by pgcb_gen_fill() point into the caller's arena or
 * into the generator's words; they stay valid while both do.
 */
#ifndef PGCB_GEN_H
#define PGCB_GEN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum pgcb_gen_kind { PGCB_GEN_SEQ, PGCB_GEN_UNIFORM, PGCB_GEN_LIST, PGCB_GEN_TEXT,
                     PGCB_GEN_ROWS };

/* The rows a `params_from` query gave (bulk.h: fetched once, outside any
 * timing, in the server's text form; owned by the query's struct
 * pgcb_bulk): value j of row r at values[r * ncols + j] (NULL: SQL NULL),
 * lengths[...] bytes. */
struct pgcb_gen_rows {
    size_t nrows, ncols;
    const char *const *values;
    const int *lengths;
};

/* Longest value of `text LEN`. */
#define PGCB_GEN_TEXT_MAX 65536
/* Longest value of a `list` word. */
#define PGCB_GEN_WORD_MAX 1024

struct pgcb_gen {
    enum pgcb_gen_kind kind;
    int64_t a, b;           /* seq: start, step; uniform: lo, hi; text: length */
    char **words;           /* list */
    int *word_len;
    size_t nwords;
    size_t seq_slot;        /* seq: index of its counter in the shared array */
    const struct pgcb_gen_rows *rows; /* rows: the rows (not owned); column a */
};

/* A random stream (xoshiro256**). */
struct pgcb_rng {
    uint64_t s[4];
};

/* Parse `spec` ("uniform 1 100"). Returns 0, or -1 with a message in err
 * (without the key or line, which the caller adds). */
int pgcb_gen_parse(const char *spec, struct pgcb_gen *g, char *err, size_t errlen);

void pgcb_gen_free(struct pgcb_gen *g);

/* Seed a stream from a seed and up to four stream numbers (splitmix64). */
void pgcb_rng_seed(struct pgcb_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c,
                   uint64_t d);
uint64_t pgcb_rng_next(struct pgcb_rng *r);
/* Uniform in [0, n) without modulo bias (Lemire); n >= 1. */
uint64_t pgcb_rng_below(struct pgcb_rng *r, uint64_t n);

/* The most bytes one value of g takes in an arena. */
size_t pgcb_gen_max_len(const struct pgcb_gen *g);

/* Draw `n` rows of values for the `ngens` generators: row i, parameter j
 * goes to values[i * ngens + j] / lengths[...]. Text is written into
 * `arena`, which must hold n x sum of pgcb_gen_max_len(); list words are not
 * copied. `seqs` is the shared counter array (seq generators take
 * n values at once with one atomic add each). */
void pgcb_gen_fill(const struct pgcb_gen *gens, size_t ngens, struct pgcb_rng *r,
                   _Atomic int64_t *seqs, size_t n, const char **values, int *lengths,
                   char *arena);

#endif
