/*
 * pq_shared.c -- the libpq drivers' error formatting (one source), compiled
 * into the runner too: its own libpq session checks a conninfo and words
 * libpq's messages exactly as the drivers do, never quoting a password.
 */
#include "../drivers/libpq_sync/pq_errmsg.c"
