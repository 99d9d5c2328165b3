/*
 * orders.h -- execution orders of the drivers within a group.
 */
#ifndef PGCB_ORDERS_H
#define PGCB_ORDERS_H

#include <stddef.h>

/* Every permutation of 0..n-1 in lexicographic order (n! of them; n <= 8).
 * Returns an array of *count arrays of n indices, allocated as one block:
 * free the outer array and each inner one (pgcb_orders_free). */
size_t **pgcb_orders_all(size_t n, size_t *count);

void pgcb_orders_free(size_t **orders, size_t count);

#endif
