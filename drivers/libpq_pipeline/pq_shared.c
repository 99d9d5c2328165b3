/*
 * pq_shared.c -- libpq_sync's error formatting, result folding and parameter
 * copies, compiled into this driver too (one source, no copy), so that both
 * libpq drivers fold every value identically (with include/pgcb/value.h).
 */
#include "../libpq_sync/pq_errmsg.c"
#include "../libpq_sync/pq_fold.c"
#include "../libpq_sync/pq_params.c"
