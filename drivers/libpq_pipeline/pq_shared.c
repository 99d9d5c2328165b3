/*
 * pq_shared.c -- libpq_sync's value decoding, error formatting, result
 * folding and parameter copies, compiled into this driver too (one source,
 * no copy), so that both libpq drivers convert and fold every value
 * identically.
 */
#include "../libpq_sync/pq_decode.c"
#include "../libpq_sync/pq_errmsg.c"
#include "../libpq_sync/pq_fold.c"
#include "../libpq_sync/pq_params.c"
