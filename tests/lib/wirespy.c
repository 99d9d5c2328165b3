/*
 * wirespy.c -- the tests' recording proxy (wirespy.h says what it promises).
 *
 * Threads: one accepts (polling the listener, so that wirespy_stop is seen
 * within 100 ms); each connection has two, one per direction, with blocking
 * reads and writes, so that neither direction can hold the other up. The
 * client-to-server thread parses what it forwards. Counts live in the
 * connection, under the proxy's one mutex.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wirespy.h"

#define WIRESPY_MAX_CONNS 256

/* The startup-phase request codes (protocol.h). */
#define WS_SSL_REQUEST 80877103u
#define WS_GSSENC_REQUEST 80877104u

struct ws_conn {
    struct wirespy *w;
    int cfd, sfd;                 /* client, server */
    pthread_t up, down;           /* client->server (parses), server->client */
    int started;                  /* threads running: join them */
    struct wirespy_counts counts; /* under w->mu */
    /* The parser's state (the up thread's only). */
    int startup;                  /* still before the startup message */
    unsigned char *buf;
    size_t len, cap;
};

struct wirespy {
    char host[512], port[16];
    int lfd, port_no;
    volatile int stop;
    pthread_t acceptor;
    pthread_mutex_t mu;
    struct ws_conn *conns[WIRESPY_MAX_CONNS];
    size_t nconns;
};

static uint32_t ws_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t ws_be16(const unsigned char *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The result format codes of a Bind's body (after type and length). */
static void ws_bind(struct wirespy_counts *c, const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    for (int s = 0; s < 2; s++) { /* portal, statement */
        const unsigned char *z = memchr(p, 0, (size_t)(end - p));
        if (!z)
            return;
        p = z + 1;
    }
    if (end - p < 2)
        return;
    uint16_t k = ws_be16(p);
    p += 2 + 2 * (size_t)k; /* parameter formats */
    if (end - p < 2)
        return;
    k = ws_be16(p);
    p += 2;
    for (uint16_t i = 0; i < k; i++) { /* parameter values */
        if (end - p < 4)
            return;
        uint32_t len = ws_be32(p);
        p += 4;
        if (len != 0xffffffffu) {
            if ((size_t)(end - p) < len)
                return;
            p += len;
        }
    }
    if (end - p < 2)
        return;
    k = ws_be16(p);
    p += 2;
    if (c->nbinds >= WIRESPY_MAX_BINDS)
        return;
    struct wirespy_bind *b = &c->binds[c->nbinds++];
    b->nformats = k;
    for (uint16_t i = 0; i < k && i < WIRESPY_MAX_FORMATS && end - p >= 2; i++, p += 2)
        b->formats[i] = (int16_t)ws_be16(p);
}

/* Count one frontend message. */
static void ws_count(struct ws_conn *c, unsigned char type, const unsigned char *body, size_t n)
{
    struct wirespy_counts *k = &c->counts;
    switch (type) {
    case 'P': k->parse++; break;
    case 'B': k->bind++; ws_bind(k, body, n); break;
    case 'D':
        if (n >= 1 && body[0] == 'P')
            k->describe_portal++;
        else
            k->describe_stmt++;
        break;
    case 'E': k->execute++; break;
    case 'S': k->sync++; break;
    case 'H': k->flush++; break;
    case 'Q': k->query++; break;
    default: k->other++; break;
    }
}

/* Parse every complete message in c->buf; keep the rest. */
static void ws_parse(struct ws_conn *c)
{
    size_t at = 0;
    for (;;) {
        unsigned char *p = c->buf + at;
        size_t left = c->len - at;
        if (c->startup) {
            if (left < 8)
                break;
            uint32_t len = ws_be32(p), code = ws_be32(p + 4);
            if (len < 8 || left < len)
                break;
            /* After an SSLRequest or GSSENCRequest (answered 'N') comes the
             * startup message proper. */
            if (code != WS_SSL_REQUEST && code != WS_GSSENC_REQUEST)
                c->startup = 0;
            at += len;
            continue;
        }
        if (left < 5)
            break;
        uint32_t len = ws_be32(p + 1);
        if (len < 4 || left < (size_t)len + 1)
            break;
        pthread_mutex_lock(&c->w->mu);
        ws_count(c, p[0], p + 5, len - 4);
        pthread_mutex_unlock(&c->w->mu);
        at += (size_t)len + 1;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
}

static int ws_write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void *ws_up(void *arg)
{
    struct ws_conn *c = arg;
    unsigned char chunk[16384];
    for (;;) {
        ssize_t n = recv(c->cfd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (c->len + (size_t)n > c->cap) {
            size_t cap = c->cap ? c->cap : 65536;
            while (cap < c->len + (size_t)n)
                cap *= 2;
            unsigned char *nb = realloc(c->buf, cap);
            if (!nb)
                break;
            c->buf = nb;
            c->cap = cap;
        }
        memcpy(c->buf + c->len, chunk, (size_t)n);
        c->len += (size_t)n;
        ws_parse(c);
        if (ws_write_all(c->sfd, chunk, (size_t)n) != 0)
            break;
    }
    pthread_mutex_lock(&c->w->mu);
    c->counts.closed = 1;
    pthread_mutex_unlock(&c->w->mu);
    shutdown(c->sfd, SHUT_WR);
    return NULL;
}

static void *ws_down(void *arg)
{
    struct ws_conn *c = arg;
    unsigned char chunk[16384];
    for (;;) {
        ssize_t n = recv(c->sfd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || ws_write_all(c->cfd, chunk, (size_t)n) != 0)
            break;
    }
    shutdown(c->cfd, SHUT_WR);
    return NULL;
}

static int ws_connect_server(const struct wirespy *w)
{
    int fd;
    if (w->host[0] == '/') {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        int n = snprintf(a.sun_path, sizeof a.sun_path, "%s/.s.PGSQL.%s", w->host, w->port);
        if (n < 0 || (size_t)n >= sizeof a.sun_path)
            return -1;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            fprintf(stderr, "wirespy: connect %s: %s\n", a.sun_path, strerror(errno));
            close(fd);
            fd = -1;
        }
        return fd;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(w->port))};
    if (inet_pton(AF_INET, w->host, &a.sin_addr) != 1)
        return -1;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        fprintf(stderr, "wirespy: connect %s:%s: %s\n", w->host, w->port, strerror(errno));
        close(fd);
        fd = -1;
    }
    return fd;
}

static void *ws_accept(void *arg)
{
    struct wirespy *w = arg;
    while (!w->stop) {
        struct pollfd p = {.fd = w->lfd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        int cfd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (cfd < 0)
            continue;
        int sfd = ws_connect_server(w);
        struct ws_conn *c = sfd >= 0 ? calloc(1, sizeof *c) : NULL;
        pthread_mutex_lock(&w->mu);
        int room = w->nconns < WIRESPY_MAX_CONNS;
        pthread_mutex_unlock(&w->mu);
        if (!c || !room) {
            fprintf(stderr, "wirespy: cannot serve a connection (%s)\n",
                    !room ? "too many" : sfd < 0 ? "no server" : "out of memory");
            free(c);
            close(cfd);
            if (sfd >= 0)
                close(sfd);
            continue;
        }
        *c = (struct ws_conn){.w = w, .cfd = cfd, .sfd = sfd, .startup = 1};
        if (pthread_create(&c->up, NULL, ws_up, c) == 0) {
            if (pthread_create(&c->down, NULL, ws_down, c) != 0) {
                shutdown(cfd, SHUT_RDWR);
                pthread_join(c->up, NULL);
                close(cfd);
                close(sfd);
                free(c);
                continue;
            }
            c->started = 1;
        }
        pthread_mutex_lock(&w->mu);
        w->conns[w->nconns++] = c;
        pthread_mutex_unlock(&w->mu);
    }
    return NULL;
}

struct wirespy *wirespy_start(const char *host, const char *port)
{
    struct wirespy *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    snprintf(w->host, sizeof w->host, "%s", host && *host ? host : "/tmp");
    snprintf(w->port, sizeof w->port, "%s", port && *port ? port : "5432");
    pthread_mutex_init(&w->mu, NULL);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    w->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (w->lfd < 0 || bind(w->lfd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(w->lfd, 64) != 0 || getsockname(w->lfd, (struct sockaddr *)&a, &alen) != 0) {
        fprintf(stderr, "wirespy: cannot listen on 127.0.0.1: %s\n", strerror(errno));
        if (w->lfd >= 0)
            close(w->lfd);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    w->port_no = ntohs(a.sin_port);
    if (pthread_create(&w->acceptor, NULL, ws_accept, w) != 0) {
        fprintf(stderr, "wirespy: cannot start its thread\n");
        close(w->lfd);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return NULL;
    }
    return w;
}

int wirespy_port(const struct wirespy *w)
{
    return w->port_no;
}

size_t wirespy_nconns(struct wirespy *w)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->nconns;
    pthread_mutex_unlock(&w->mu);
    return n;
}

int wirespy_snapshot(struct wirespy *w, size_t i, struct wirespy_counts *out)
{
    int rc = -1;
    pthread_mutex_lock(&w->mu);
    if (i < w->nconns) {
        *out = w->conns[i]->counts;
        rc = 0;
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

struct wirespy_counts wirespy_diff(const struct wirespy_counts *a, const struct wirespy_counts *b)
{
    struct wirespy_counts d = {
        .parse = b->parse - a->parse,
        .bind = b->bind - a->bind,
        .describe_portal = b->describe_portal - a->describe_portal,
        .describe_stmt = b->describe_stmt - a->describe_stmt,
        .execute = b->execute - a->execute,
        .sync = b->sync - a->sync,
        .flush = b->flush - a->flush,
        .query = b->query - a->query,
        .other = b->other - a->other,
        .closed = b->closed,
    };
    for (uint32_t i = a->nbinds; i < b->nbinds; i++)
        d.binds[d.nbinds++] = b->binds[i];
    return d;
}

int wirespy_settle(struct wirespy *w, size_t i, int timeout_ms)
{
    struct wirespy_counts last, now;
    if (wirespy_snapshot(w, i, &last) != 0)
        return -1;
    int still = 0;
    for (int waited = 0; waited < timeout_ms && still < 50; waited += 10) {
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        wirespy_snapshot(w, i, &now);
        if (memcmp(&now, &last, sizeof now) == 0) {
            still += 10;
        } else {
            still = 0;
            last = now;
        }
    }
    return 0;
}

void wirespy_stop(struct wirespy *w)
{
    if (!w)
        return;
    w->stop = 1;
    pthread_join(w->acceptor, NULL);
    close(w->lfd);
    for (size_t i = 0; i < w->nconns; i++) {
        struct ws_conn *c = w->conns[i];
        shutdown(c->cfd, SHUT_RDWR);
        shutdown(c->sfd, SHUT_RDWR);
        if (c->started) {
            pthread_join(c->up, NULL);
            pthread_join(c->down, NULL);
        }
        close(c->cfd);
        close(c->sfd);
        free(c->buf);
        free(c);
    }
    pthread_mutex_destroy(&w->mu);
    free(w);
}
