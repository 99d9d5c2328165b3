/*
 * rw_io.c -- see rw_io.h.
 */
#include "rw_io.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rw_err.h"
#include "rw_tls.h"

static int64_t rw_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Milliseconds left before the deadline (-1: none; 0: passed). */
static int rw_ms_left(const struct pgcb_conn *c)
{
    int64_t left;

    if (!c->deadline_ns)
        return -1;
    left = c->deadline_ns - rw_now_ns();
    if (left <= 0)
        return 0;
    return left / 1000000 > 1000000000 ? 1000000000 : (int)(left / 1000000) + 1;
}

/* Wait for `events` on c->fd within the deadline. PGCB_OK, or an error. */
static int rw_wait(struct pgcb_conn *c, short events, char *err, size_t errlen)
{
    struct pollfd pfd = {.fd = c->fd, .events = events};
    int ms = rw_ms_left(c), n;

    if (ms < 0)
        return PGCB_OK; /* blocking socket: the call itself waits */
    for (;;) {
        if (ms == 0) { /* passed (during a long computation, say): even if ready */
            rw_errf(err, errlen, "timeout expired (connect_timeout)");
            return PGCB_ERR_CONNECT;
        }
        n = poll(&pfd, 1, ms);
        if (n > 0)
            return PGCB_OK;
        if (n == 0) {
            rw_errf(err, errlen, "timeout expired (connect_timeout)");
            return PGCB_ERR_CONNECT;
        }
        if (errno != EINTR) {
            rw_errf(err, errlen, "poll on %s: %s", c->peer, strerror(errno));
            return PGCB_ERR_IO;
        }
        ms = rw_ms_left(c);
    }
}

int rw_io_poll(struct pgcb_conn *c, short events, char *err, size_t errlen)
{
    struct pollfd pfd = {.fd = c->fd, .events = events};
    int n;

    if (c->deadline_ns)
        return rw_wait(c, events, err, errlen);
    do
        n = poll(&pfd, 1, -1);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        rw_errf(err, errlen, "poll on %s: %s", c->peer, strerror(errno));
        return PGCB_ERR_IO;
    }
    return PGCB_OK;
}

int rw_io_read_raw(struct pgcb_conn *c, void *p, size_t n, char *err, size_t errlen)
{
    char *b = p;

    while (n > 0) {
        ssize_t k;
        int rc = rw_io_poll(c, POLLIN, err, errlen); /* not in recv(): see rw_recv */
        if (rc != PGCB_OK)
            return rc;
        k = recv(c->fd, b, n, 0);
        if (k > 0) {
            b += k;
            n -= (size_t)k;
        } else if (k == 0) {
            rw_errf(err, errlen, "server closed the connection unexpectedly (%s)", c->peer);
            return PGCB_ERR_IO;
        } else if (errno != EINTR) {
            rw_errf(err, errlen, "could not receive data from the server (%s): %s", c->peer,
                    strerror(errno));
            return PGCB_ERR_IO;
        }
    }
    return PGCB_OK;
}

/* ---- connect ------------------------------------------------------------ */

/* connect() fd to addr within the deadline. 0 or an errno value. */
static int rw_connect_fd(struct pgcb_conn *c, const struct sockaddr *addr, socklen_t len)
{
    int flags = fcntl(c->fd, F_GETFL), e = 0;
    socklen_t elen = sizeof e;

    if (!c->deadline_ns)
        return connect(c->fd, addr, len) == 0 ? 0 : errno;
    if (flags < 0 || fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return errno;
    if (connect(c->fd, addr, len) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN)
            e = errno;
        else {
            struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
            int n;
            do
                n = poll(&pfd, 1, rw_ms_left(c));
            while (n < 0 && errno == EINTR);
            if (n == 0)
                e = ETIMEDOUT;
            else if (n < 0)
                e = errno;
            else if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0)
                e = errno;
        }
    }
    if (fcntl(c->fd, F_SETFL, flags) < 0 && !e)
        e = errno;
    return e;
}

static int rw_connect_unix(struct pgcb_conn *c, const struct rw_target *t, char *err, size_t errlen)
{
    const char *dir = *t->host ? t->host : RW_DEFAULT_SOCKET_DIR;
    struct sockaddr_un sun;
    socklen_t len;
    int n, e;

    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    n = snprintf(sun.sun_path, sizeof sun.sun_path, "%s/.s.PGSQL.%s", dir, t->port);
    snprintf(c->peer, sizeof c->peer, "socket \"%s/.s.PGSQL.%s\"", dir, t->port);
    if (n < 0 || (size_t)n >= sizeof sun.sun_path) {
        rw_errf(err, errlen, "unix socket path \"%s/.s.PGSQL.%s\" is too long", dir, t->port);
        return PGCB_ERR_CONNECT;
    }
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
    if (dir[0] == '@') { /* Linux abstract namespace, as libpq 14+ */
        sun.sun_path[0] = '\0';
        len--;
    }
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        rw_errf(err, errlen, "could not create a socket: %s", strerror(errno));
        return PGCB_ERR_CONNECT;
    }
    if ((e = rw_connect_fd(c, (struct sockaddr *)&sun, len)) != 0) {
        rw_errf(err, errlen, "connection to server on %s failed: %s", c->peer,
                e == ETIMEDOUT ? "timeout expired" : strerror(e));
        close(c->fd);
        c->fd = -1;
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

static int rw_connect_tcp(struct pgcb_conn *c, const struct rw_target *t, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    const char *node = *t->hostaddr ? t->hostaddr : t->host;
    int rc, e = 0, one = 1;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (*t->hostaddr)
        hints.ai_flags = AI_NUMERICHOST;
    snprintf(c->peer, sizeof c->peer, "\"%s\" port %s", node, t->port);
    if ((rc = getaddrinfo(node, t->port, &hints, &res)) != 0) {
        rw_errf(err, errlen, "could not translate host name %s to address: %s", c->peer,
                gai_strerror(rc));
        return PGCB_ERR_CONNECT;
    }
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (c->fd < 0) {
            e = errno;
            continue;
        }
        /* Small messages go out at once: the batch is one write anyway. */
        if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
            (e = rw_connect_fd(c, ai->ai_addr, ai->ai_addrlen)) != 0) {
            if (!e)
                e = errno;
            close(c->fd);
            c->fd = -1;
            continue;
        }
        break;
    }
    freeaddrinfo(res);
    if (c->fd < 0) {
        rw_errf(err, errlen, "connection to server at %s failed: %s", c->peer,
                e == ETIMEDOUT ? "timeout expired" : strerror(e ? e : ECONNREFUSED));
        return PGCB_ERR_CONNECT;
    }
    return PGCB_OK;
}

int rw_io_connect(struct pgcb_conn *c, const struct rw_target *t, char *err, size_t errlen)
{
    if (!*t->hostaddr && (!*t->host || t->host[0] == '/' || t->host[0] == '@'))
        return rw_connect_unix(c, t, err, errlen);
    return rw_connect_tcp(c, t, err, errlen);
}

/* ---- write -------------------------------------------------------------- */

int rw_io_send_buf(struct pgcb_conn *c, const struct rw_buf *b, char *err, size_t errlen)
{
    if (b->failed) {
        rw_errf(err, errlen, "out of memory");
        return PGCB_ERR_NOMEM;
    }
    return rw_io_write_all(c, b->data, b->len, err, errlen);
}

int rw_io_write_all(struct pgcb_conn *c, const char *p, size_t n, char *err, size_t errlen)
{
    while (c->ssl && n > 0) {
        long k = rw_tls_write(c, p, n, 0, err, errlen);
        if (k < 0)
            return PGCB_ERR_IO;
        p += k;
        n -= (size_t)k;
    }
    while (n > 0) {
        ssize_t k;
        int rc = rw_wait(c, POLLOUT, err, errlen);
        if (rc != PGCB_OK)
            return rc;
        k = send(c->fd, p, n, MSG_NOSIGNAL);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (k < 0 && errno != EINTR && errno != EAGAIN) {
            rw_errf(err, errlen, "could not send data to the server (%s): %s", c->peer, strerror(errno));
            return PGCB_ERR_IO;
        }
    }
    return PGCB_OK;
}

/* ---- read --------------------------------------------------------------- */

/* Room for `need` unread bytes and at least some free space after them.
 * Before growing the buffer for the message the unread bytes start with,
 * its length is checked against libpq's limit for its type
 * (rw_msg_len_ok, in c->msg_phase): PGCB_ERR_PROTOCOL if over it. */
static int rw_rbuf_reserve(struct pgcb_conn *c, size_t need, char *err, size_t errlen)
{
    size_t unread = c->rend - c->rpos, cap;
    char *p;

    if (c->rpos > 0) { /* the unread tail is at most one partial message */
        memmove(c->rbuf, c->rbuf + c->rpos, unread);
        c->rpos = 0;
        c->rend = unread;
    }
    if (need < unread + 4096)
        need = unread + 4096;
    if (c->rcap >= need)
        return PGCB_OK;
    if (unread >= 5 && !rw_msg_len_ok(c->rbuf[0], rw_be32(c->rbuf + 1), c->msg_phase)) {
        /* the buffer would grow for the message it starts with: libpq's
         * limit for its type first (rw_codec.h) */
        rw_errf(err, errlen, "invalid length %u for a message of type 0x%02x from the server "
                             "(refused before reading it)", rw_be32(c->rbuf + 1),
                (unsigned char)c->rbuf[0]);
        return PGCB_ERR_PROTOCOL;
    }
    cap = c->rcap ? c->rcap : RW_RBUF_INITIAL;
    while (cap < need)
        cap *= 2;
    if (!(p = realloc(c->rbuf, cap))) {
        rw_errf(err, errlen, "out of memory (a %zu-byte message)", need);
        return PGCB_ERR_NOMEM;
    }
    c->rbuf = p;
    c->rcap = cap;
    return PGCB_OK;
}

/* One recv into the free space (flags: 0 or MSG_DONTWAIT). PGCB_OK (maybe
 * nothing read, with MSG_DONTWAIT), or PGCB_ERR_IO on error or EOF.
 *
 * Without MSG_DONTWAIT it waits in poll(POLLIN) first, never in recv(): a
 * thread asleep in a unix socket's recv() is woken by every wake-up of the
 * socket's wait queue, and the server's read of our request is one (its
 * consume frees our skb: sock_wfree -> unix_write_space, EPOLLOUT), so a
 * blocking recv() sleeps twice per reply, the first time for nothing.
 * poll's wait entry ignores wake-ups that are not for POLLIN, as libpq's
 * pqWait does. (TLS reads wait in poll already: rw_tls.c.) */
static int rw_recv(struct pgcb_conn *c, int flags, char *err, size_t errlen)
{
    if (c->ssl) {
        long k = rw_tls_read(c, c->rbuf + c->rend, c->rcap - c->rend, flags != 0, err, errlen);
        if (k < 0)
            return PGCB_ERR_IO;
        c->rend += (size_t)k;
        return PGCB_OK;
    }
    for (;;) {
        ssize_t k;
        int rc;
        if (!flags && (rc = rw_io_poll(c, POLLIN, err, errlen)) != PGCB_OK)
            return rc;
        k = recv(c->fd, c->rbuf + c->rend, c->rcap - c->rend, flags);
        if (k > 0) {
            c->rend += (size_t)k;
            return PGCB_OK;
        }
        if (k == 0) {
            rw_errf(err, errlen, "server closed the connection unexpectedly (%s)", c->peer);
            return PGCB_ERR_IO;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN && flags)
            return PGCB_OK;
        rw_errf(err, errlen, "could not receive data from the server (%s): %s", c->peer, strerror(errno));
        return PGCB_ERR_IO;
    }
}

/* One read of at least a byte: with c->opt.spin_us, non-blocking reads for
 * up to that long first (the thread spins instead of sleeping, so neither it
 * nor the server's send pays a wake-up while replies stream in), then a
 * blocking one. */
static int rw_recv_spin(struct pgcb_conn *c, char *err, size_t errlen)
{
    if (c->opt.spin_us) {
        const size_t had = c->rend;
        const int64_t until = rw_now_ns() + (int64_t)c->opt.spin_us * 1000;
        do {
            int rc = rw_recv(c, MSG_DONTWAIT, err, errlen);
            if (rc != PGCB_OK || c->rend > had)
                return rc;
        } while (rw_now_ns() < until);
    }
    return rw_recv(c, 0, err, errlen);
}

int rw_io_fill(struct pgcb_conn *c, size_t need, char *err, size_t errlen)
{
    int rc = rw_rbuf_reserve(c, need, err, errlen);

    /* rw_recv waits (in poll, within the deadline); TLS reads wait themselves
     * (OpenSSL may hold bytes) */
    if (rc == PGCB_OK)
        rc = rw_recv(c, 0, err, errlen);
    return rc;
}

int rw_io_read_msg(struct pgcb_conn *c, char *type, const char **body, size_t *n, char *err,
                   size_t errlen)
{
    for (;;) {
        uint32_t len;
        int h = rw_dec_header(c->rbuf + c->rpos, c->rend - c->rpos, type, &len), rc;

        if (h == RW_HDR_BAD) {
            rw_errf(err, errlen, "invalid message length %u from the server (type 0x%02x)", len,
                    (unsigned char)*type);
            return PGCB_ERR_PROTOCOL;
        }
        if (h == RW_HDR_OK && !rw_msg_len_ok(*type, len, c->msg_phase)) {
            rw_errf(err, errlen, "invalid length %u for a message of type 0x%02x from the "
                                 "server%s (refused before reading it)", len, (unsigned char)*type,
                    c->msg_phase == RW_PHASE_AUTH ? " during authentication" : "");
            return PGCB_ERR_PROTOCOL;
        }
        if (h == RW_HDR_OK && c->rend - c->rpos >= (size_t)len + 1) {
            *body = c->rbuf + c->rpos + 5;
            *n = len - 4;
            c->rpos += (size_t)len + 1;
            return PGCB_OK;
        }
        if ((rc = rw_io_fill(c, h == RW_HDR_OK ? (size_t)len + 1 : 5, err, errlen)) != PGCB_OK)
            return rc;
    }
}

/* ---- the pipelined exchange --------------------------------------------- */

/* Hand the unread bytes to feed; consume what it used. */
static int rw_feed(struct pgcb_conn *c, rw_feed_fn feed, void *ctx, size_t *need, char *err,
                   size_t errlen)
{
    size_t used = 0;
    int r;

    *need = 0;
    r = feed(ctx, c->rbuf + c->rpos, c->rend - c->rpos, &used, need, err, errlen);
    c->rpos += used;
    if (c->rpos == c->rend)
        c->rpos = c->rend = 0;
    return r;
}

/* The replies held a FATAL error: the session is over. */
__attribute__((noinline, cold)) static int rw_fatal(const struct pgcb_conn *c, char *err,
                                                     size_t errlen)
{
    rw_errf(err, errlen, "the server ends the session (FATAL) (%s)", c->peer);
    return PGCB_ERR_IO;
}

/* A read failed with rc (err says why) while bytes read before it wait
 * unparsed: a backend that ends the session sends its FATAL ErrorResponse,
 * then closes; that message can come in with an earlier read (after the
 * last reply, or on an idle connection), and the next read then fails
 * (ECONNRESET, end of file) before anything fed it. Feed them: a FATAL among
 * them is what the failure is (the parser keeps its message); else rc. */
__attribute__((noinline, cold)) static int rw_read_failed(struct pgcb_conn *c, int rc,
                                                          rw_feed_fn feed, void *ctx,
                                                          size_t *need, char *err, size_t errlen)
{
    if (!feed || c->rend == c->rpos)
        return rc;
    char why[PGCB_ERRLEN];
    if (rw_feed(c, feed, ctx, need, why, sizeof why) == RW_FEED_FATAL)
        return rw_fatal(c, err, errlen);
    return rc;
}

/* A send failed with rc (err says why). A backend that ends the session
 * (pg_terminate_backend, a shutdown) sends its FATAL ErrorResponse, then
 * closes; a send after the close fails (EPIPE, ECONNRESET) while that
 * message waits unread in the socket. As libpq does, read what the socket
 * still holds, without waiting, then as rw_read_failed: a FATAL among it is
 * what the failure is; else rc and err as they were. */
__attribute__((noinline, cold)) static int rw_send_failed(struct pgcb_conn *c, int rc,
                                                          rw_feed_fn feed, void *ctx,
                                                          size_t *need, char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    if (!feed)
        return rc;
    for (int reads = 0; reads < 64; reads++) { /* bounded: what is there, not a stream */
        const size_t had = c->rend;
        if (rw_rbuf_reserve(c, *need, why, sizeof why) != PGCB_OK ||
            rw_recv(c, MSG_DONTWAIT, why, sizeof why) != PGCB_OK || c->rend == had)
            break;
    }
    return rw_read_failed(c, rc, feed, ctx, need, err, errlen);
}

int rw_io_send_failed(struct pgcb_conn *c, int rc, rw_feed_fn feed, void *ctx, size_t *need,
                      char *err, size_t errlen)
{
    return rc == PGCB_ERR_IO ? rw_send_failed(c, rc, feed, ctx, need, err, errlen) : rc;
}

/* Both exchanges; early_ok a constant, so each public function is its own
 * specialised copy (rw_io_pipeline's code is what it was). */
static inline __attribute__((always_inline)) int
pipeline(struct pgcb_conn *c, const char *out, size_t n, rw_feed_fn feed, void *ctx, int early_ok,
         char *err, size_t errlen)
{
    size_t sent = 0, need = 0;
    int r, rc;

    if (!c->rbuf && (rc = rw_rbuf_reserve(c, RW_RBUF_INITIAL, err, errlen)) != PGCB_OK)
        return rc;
    while (sent < n) {
        ssize_t k;
        struct pollfd pfd = {.fd = c->fd, .events = POLLIN | POLLOUT};

        if (c->ssl) { /* one SSL_write of the whole batch: records of up to 16 kB */
            k = rw_tls_write(c, out + sent, n - sent, 1, err, errlen);
            if (k < 0)
                return PGCB_ERR_IO;
            if (k == 0)
                errno = EAGAIN;
        } else {
            k = send(c->fd, out + sent, n - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        if (k > 0) {
            sent += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno != EAGAIN) {
            rw_errf(err, errlen, "could not send data to the server (%s): %s", c->peer, strerror(errno));
            return rw_send_failed(c, PGCB_ERR_IO, feed, ctx, &need, err, errlen);
        }
        /* The socket is full: the server may be waiting for us to read.
         * (Bytes OpenSSL already holds are read without waiting.) */
        if (rw_tls_pending(c))
            pfd.revents = POLLIN;
        else if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
            rw_errf(err, errlen, "poll on %s: %s", c->peer, strerror(errno));
            return PGCB_ERR_IO;
        }
        if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
            if ((rc = rw_rbuf_reserve(c, need, err, errlen)) != PGCB_OK ||
                (rc = rw_recv(c, MSG_DONTWAIT, err, errlen)) != PGCB_OK)
                return rc;
            r = rw_feed(c, feed, ctx, &need, err, errlen);
            if (r == RW_FEED_ERROR)
                return PGCB_ERR_PROTOCOL;
            if (r == RW_FEED_FATAL)
                return rw_fatal(c, err, errlen);
            if (r == RW_FEED_DONE && early_ok) /* the server drops the rest */
                return rw_io_write_all(c, out + sent, n - sent, err, errlen);
            if (r == RW_FEED_DONE) {
                rw_errf(err, errlen, "the server answered every query before it was sent");
                return PGCB_ERR_PROTOCOL;
            }
        }
    }
    /* Everything is sent: whatever is buffered first, then reads: blocking,
     * or (spin_us) non-blocking for up to spin_us before each blocking one. */
    r = c->rend > c->rpos ? rw_feed(c, feed, ctx, &need, err, errlen) : RW_FEED_MORE;
    while (r == RW_FEED_MORE) {
        if ((rc = rw_rbuf_reserve(c, need, err, errlen)) != PGCB_OK ||
            (rc = rw_recv_spin(c, err, errlen)) != PGCB_OK)
            return rc;
        r = rw_feed(c, feed, ctx, &need, err, errlen);
    }
    if (r == RW_FEED_DONE)
        return PGCB_OK;
    return r == RW_FEED_FATAL ? rw_fatal(c, err, errlen) : PGCB_ERR_PROTOCOL;
}

int rw_io_pipeline(struct pgcb_conn *c, const char *out, size_t n, rw_feed_fn feed, void *ctx,
                   char *err, size_t errlen)
{
    return pipeline(c, out, n, feed, ctx, 0, err, errlen);
}

int rw_io_pipeline_rest(struct pgcb_conn *c, const char *out, size_t n, rw_feed_fn feed,
                        void *ctx, char *err, size_t errlen)
{
    return pipeline(c, out, n, feed, ctx, 1, err, errlen);
}

int rw_io_send_nb(struct pgcb_conn *c, const char *out, size_t n, size_t *sent, char *err,
                  size_t errlen)
{
    while (*sent < n) {
        ssize_t k;
        if (c->ssl) {
            k = rw_tls_write(c, out + *sent, n - *sent, 1, err, errlen);
            if (k < 0)
                return PGCB_ERR_IO;
            if (k == 0)
                return PGCB_OK; /* would block */
        } else {
            k = send(c->fd, out + *sent, n - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        if (k > 0) {
            *sent += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EAGAIN)
            return PGCB_OK;
        rw_errf(err, errlen, "could not send data to the server (%s): %s", c->peer,
                k < 0 ? strerror(errno) : "nothing sent");
        return PGCB_ERR_IO;
    }
    return PGCB_OK;
}

int rw_io_read_nb(struct pgcb_conn *c, rw_feed_fn feed, void *ctx, size_t *need, int *done,
                  char *err, size_t errlen)
{
    int rc, full;
    *done = 0;
    do {
        if ((rc = rw_rbuf_reserve(c, *need, err, errlen)) != PGCB_OK)
            return rc;
        const size_t had = c->rend, room = c->rcap - c->rend;
        if ((rc = rw_recv(c, MSG_DONTWAIT, err, errlen)) != PGCB_OK)
            return rw_read_failed(c, rc, feed, ctx, need, err, errlen);
        /* A read that filled the free space may have left more behind. */
        full = c->rend - had == room;
        if (!feed)
            return PGCB_OK;
        if (c->rend == c->rpos)
            return PGCB_OK; /* nothing for now */
        int r = rw_feed(c, feed, ctx, need, err, errlen);
        if (r == RW_FEED_ERROR)
            return PGCB_ERR_PROTOCOL;
        if (r == RW_FEED_FATAL)
            return rw_fatal(c, err, errlen);
        if (r == RW_FEED_DONE) {
            *done = 1;
            return PGCB_OK;
        }
    } while (full || rw_tls_pending(c));
    return PGCB_OK;
}
