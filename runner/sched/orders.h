/*
 * orders.h -- execution orders of the drivers within a group.
 *
 * An order is a permutation of the driver indices 0..n-1: the drivers run
 * one after another in that order, and each keeps one median per order for
 * the sign test. Three ways to choose the orders:
 *
 *   all       every permutation, lexicographic (n! orders; n <= 8).
 *   balanced  a Williams square: each driver exactly once in each position
 *             per Latin square, and immediately after each other driver
 *             equally often (first-order carry-over balance). n orders when
 *             n is even, 2n when n is odd (one Latin square cannot balance
 *             carry-over for odd n; the second is the mirror of the first).
 *   N         the first N orders of the "balanced sequence" below.
 *   auto      all for up to 4 drivers (<= 24 orders), balanced from 5 on;
 *             the session repeats that set when it is too short for a
 *             verdict to reach alpha (session.c).
 *
 * The balanced sequence (what balanced and N take from): the permutations
 * are grouped into cyclic classes {p + i mod n : i = 0..n-1}, one class per
 * permutation p with p[0] = 0; the n members of a class form a Latin square
 * (each driver once in each position) and member i starts with driver i.
 * The sequence is: the class of the Williams row w = 0, 1, n-1, 2, n-2, ...;
 * for odd n the class of w reversed; then every other class, its p in
 * lexicographic order; after all n! permutations it starts over. So its
 * first n (even) or 2n (odd) orders are the Williams square, every complete
 * block of n consecutive orders is position-balanced, N a multiple of n
 * gives exact position balance, and no order repeats before n! of them.
 *
 * Allocation: every function returning orders returns an array of *count
 * arrays of n indices; free it with pgcb_orders_free().
 */
#ifndef PGCB_ORDERS_H
#define PGCB_ORDERS_H

#include <stddef.h>

/* Most drivers `all` accepts (8! = 40320 orders), and most orders `N` may ask for. */
#define PGCB_ORDERS_ALL_MAX_DRIVERS 8
#define PGCB_ORDERS_MAX 40320

enum pgcb_orders_mode {
    PGCB_ORDERS_AUTO = 0, /* all up to 4 drivers, balanced from 5 */
    PGCB_ORDERS_ALL,      /* every permutation */
    PGCB_ORDERS_BALANCED, /* a Williams square */
    PGCB_ORDERS_COUNT,    /* the first n_requested orders of the balanced sequence */
};

/*
 * The orders of `mode` for ndrivers (>= 1) drivers; n_requested is used by
 * PGCB_ORDERS_COUNT only (1..PGCB_ORDERS_MAX). Returns the orders and sets
 * *count, or NULL with a one-line message in err (ndrivers == 0, `all` with
 * more than PGCB_ORDERS_ALL_MAX_DRIVERS drivers, a bad count or mode).
 */
size_t **pgcb_orders_make(enum pgcb_orders_mode mode, size_t n_requested, size_t ndrivers,
                          size_t *count, char *err, size_t errlen);

/*
 * Parse the INI value: "auto", "all", "balanced" or a decimal count
 * 1..PGCB_ORDERS_MAX (no sign, no junk). Returns 0 and sets *mode (and *n
 * for a count, else 0), or -1 with a one-line message in err.
 */
int pgcb_orders_parse(const char *s, enum pgcb_orders_mode *mode, size_t *n, char *err,
                      size_t errlen);

/* "auto", "all", "balanced", "count": the name recorded in the result. */
const char *pgcb_orders_mode_str(enum pgcb_orders_mode mode);

/* Every permutation of 0..n-1 in lexicographic order (n! of them; n <= 8). */
size_t **pgcb_orders_all(size_t n, size_t *count);

/* The Williams square for n >= 1 drivers: n orders (n even) or 2n (n odd),
 * the first orders of the balanced sequence. Hand-checked for n = 4:
 * 0132, 1203, 2310, 3021. */
size_t **pgcb_orders_williams(size_t n, size_t *count);

/* The first `count` (>= 1) orders of the balanced sequence for n >= 1. */
size_t **pgcb_orders_sequence(size_t n, size_t count);

/* orders[0..count-1] repeated `times` (>= 1) times, one after another, as a
 * new array of count x times orders (orders is left alone): the same block
 * balance in every repetition. */
size_t **pgcb_orders_repeat(size_t *const *orders, size_t count, size_t n, size_t times);

void pgcb_orders_free(size_t **orders, size_t count);

#endif
