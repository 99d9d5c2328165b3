/*
 * rw_io.h -- the socket: connecting (unix or TCP), writing, reading into the
 * connection's buffer, and the pipelined exchange of a batch; through TLS
 * (rw_tls.h) once the connection has it, the same code path otherwise.
 *
 * Every function returns a pgcb_status and writes err on failure. A socket
 * error or EOF is PGCB_ERR_IO; a message header that cannot be valid is
 * PGCB_ERR_PROTOCOL. While c->deadline_ns is set (connecting), every wait
 * is bounded by it (PGCB_ERR_CONNECT "timeout").
 */
#ifndef RW_IO_H
#define RW_IO_H

#include <stddef.h>

#include "rw_codec.h"
#include "rw_conn.h"
#include "rw_conninfo.h"

/* Connect c->fd to target t (a unix socket when t has no hostaddr and its
 * host is empty, starts with '/' or '@'; else TCP with TCP_NODELAY, each
 * address getaddrinfo gives in turn). Sets c->peer. */
int rw_io_connect(struct pgcb_conn *c, const struct rw_target *t, char *err, size_t errlen);

/* Wait until c->fd is ready for `events` (POLLIN / POLLOUT), bounded by
 * c->deadline_ns when set, for ever otherwise: for a non-blocking socket
 * (TLS, rw_tls.h). PGCB_OK, PGCB_ERR_CONNECT (timeout) or PGCB_ERR_IO. */
int rw_io_poll(struct pgcb_conn *c, short events, char *err, size_t errlen);

/* Read exactly n bytes from the socket itself, past the read buffer and any
 * TLS (the one-byte answer to SSLRequest). Blocking, bounded by the
 * deadline if set. */
int rw_io_read_raw(struct pgcb_conn *c, void *p, size_t n, char *err, size_t errlen);

/* Write all n bytes (through TLS once it is up; blocking; bounded by the
 * deadline if set). */
int rw_io_write_all(struct pgcb_conn *c, const char *p, size_t n, char *err, size_t errlen);

/* Write the messages encoded in b (rw_codec.h), or PGCB_ERR_NOMEM if
 * encoding them failed. b stays the caller's to free. */
int rw_io_send_buf(struct pgcb_conn *c, const struct rw_buf *b, char *err, size_t errlen);

/* Make room for `need` unread bytes in the read buffer (compacting, growing
 * if a message is larger than it), then read once (blocking). */
int rw_io_fill(struct pgcb_conn *c, size_t need, char *err, size_t errlen);

/* The next whole message: *type, *body (n bytes), consumed from the
 * buffer; *body stays valid until the next read on c. */
int rw_io_read_msg(struct pgcb_conn *c, char *type, const char **body, size_t *n, char *err,
                   size_t errlen);

/* A consumer of replies: parses the whole messages in p[0..n), sets *used
 * to the bytes it consumed and *need to the bytes of the message it stopped
 * at when that is incomplete (header included; 0 if unknown). Returns
 * RW_FEED_MORE (wants more bytes), RW_FEED_DONE (every reply it waited for
 * arrived), RW_FEED_FATAL (a FATAL/PANIC error came: the server ends the
 * session; rw_io_pipeline returns PGCB_ERR_IO at once) or RW_FEED_ERROR
 * (malformed; err written). */
enum { RW_FEED_MORE = 0, RW_FEED_DONE = 1, RW_FEED_FATAL = 2, RW_FEED_ERROR = -1 };
typedef int (*rw_feed_fn)(void *ctx, const char *p, size_t n, size_t *used, size_t *need, char *err,
                          size_t errlen);

/* Send out[0..n) and hand every reply to feed until it returns DONE. One
 * send() when the socket takes it all; otherwise polls for POLLIN|POLLOUT
 * and reads (and feeds) while writing, so a server blocked on its own
 * output cannot deadlock us. Then blocking reads into the buffer. */
int rw_io_pipeline(struct pgcb_conn *c, const char *out, size_t n, rw_feed_fn feed, void *ctx,
                   char *err, size_t errlen);

/* rw_io_pipeline for an exchange whose replies may all arrive before
 * everything is sent (a COPY the server refused: it answers ErrorResponse +
 * ReadyForQuery and drops the CopyData and CopyDone still to come): then the
 * rest is written (blocking) and the result is PGCB_OK. */
int rw_io_pipeline_rest(struct pgcb_conn *c, const char *out, size_t n, rw_feed_fn feed,
                        void *ctx, char *err, size_t errlen);

/* The non-blocking exchange of a load over many connections on one event
 * loop (rawwire's run_load, lib/pgload): send what the socket takes of
 * out[*sent..n), advancing *sent (PGCB_OK when it would block), and read
 * what the socket has (MSG_DONTWAIT, until it has nothing more), handing it
 * to feed (NULL: only read: an idle connection, whose EOF is the error);
 * *done = 1 when feed returned RW_FEED_DONE. *need is feed's last word on the
 * message it stopped at (0 to start). PGCB_OK, PGCB_ERR_IO (EOF, a socket
 * error, a FATAL error from the server) or PGCB_ERR_PROTOCOL. */
int rw_io_send_nb(struct pgcb_conn *c, const char *out, size_t n, size_t *sent, char *err,
                  size_t errlen);
int rw_io_read_nb(struct pgcb_conn *c, rw_feed_fn feed, void *ctx, size_t *need, int *done,
                  char *err, size_t errlen);
/* After rw_io_send_nb failed with rc: a backend that ended the session may
 * have sent its FATAL ErrorResponse before closing, and a send after the
 * close fails (EPIPE) with that message unread. Reads what the socket holds
 * without waiting and hands it to feed (with *need as for rw_io_read_nb):
 * PGCB_ERR_IO with "the server ends the session (FATAL)" in err when a FATAL
 * was among it (feed's parser keeps the server's message), else rc with err
 * unchanged. rc other than PGCB_ERR_IO is returned as it is. */
int rw_io_send_failed(struct pgcb_conn *c, int rc, rw_feed_fn feed, void *ctx, size_t *need,
                      char *err, size_t errlen);

#endif /* RW_IO_H */
