/*
 * base_rawwire.c -- rawwire's connection, authentication, prepare and I/O
 * code, compiled into the floor driver (one source, no copy): everything
 * but rawwire's descriptor (rawwire.c) and its decoding batch (rw_batch.c,
 * rw_reply.c). The floor thus connects, authenticates, prepares and writes
 * exactly as rawwire does; only the reading of replies differs (floor.c).
 */
#include "../rawwire/rw_err.c"
#include "../rawwire/rw_codec.c"
#include "../rawwire/rw_conninfo.c"
#include "../rawwire/rw_passfile.c"
#include "../rawwire/rw_scram.c"
#include "../rawwire/rw_auth.c"
#include "../rawwire/rw_io.c"
#include "../rawwire/rw_conn.c"
#include "../rawwire/rw_prepare.c"
#include "../rawwire/rw_options.c"
/* Build note: each .c of a driver is compiled on its own with its own
 * dependency file, so this object is rebuilt when any file above changes. */
