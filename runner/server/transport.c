/* transport.c -- see transport.h. */
#include "transport.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[PGCB_TRANSPORT_N] = {"unix", "tcp", "tls"};

const char *pgcb_transport_name(enum pgcb_transport t)
{
    return (unsigned)t < PGCB_TRANSPORT_N ? names[t] : "?";
}

int pgcb_transport_parse(const char *word, enum pgcb_transport *out)
{
    for (int t = 0; t < PGCB_TRANSPORT_N; t++)
        if (strcmp(word, names[t]) == 0) {
            *out = (enum pgcb_transport)t;
            return 0;
        }
    return -1;
}

/* The first entry of a comma-separated server setting, blanks trimmed, into
 * buf; "" when there is none. */
static void first_entry(const char *list, char *buf, size_t n)
{
    while (*list == ' ' || *list == '\t')
        list++;
    size_t len = strcspn(list, ",");
    while (len && (list[len - 1] == ' ' || list[len - 1] == '\t'))
        len--;
    snprintf(buf, n, "%.*s", (int)len, list);
}

/* 1 if s can be written as a bare libpq value (no quoting needed). */
static int bare(const char *s)
{
    return s[0] && !strpbrk(s, " \t\n'\\=");
}

int pgcb_transport_derive(enum pgcb_transport t, const struct pgcb_transport_facts *f, char *buf,
                          size_t n, char *why, size_t whylen)
{
    char host[512];
    buf[0] = '\0';
    if (!f->known) {
        snprintf(why, whylen, "the server's settings (port, listen_addresses, "
                              "unix_socket_directories, ssl) could not be read: set [server] %s",
                 pgcb_transport_name(t));
        return -1;
    }
    if (t == PGCB_TRANSPORT_UNIX) {
        first_entry(f->unix_socket_directories, host, sizeof host);
        if (!host[0]) {
            snprintf(why, whylen, "the server has no unix socket (unix_socket_directories is "
                                  "empty): set [server] unix");
            return -1;
        }
    } else {
        first_entry(f->listen_addresses, host, sizeof host);
        if (!host[0]) {
            snprintf(why, whylen, "the server does not listen on TCP (listen_addresses is "
                                  "empty): start it with scripts/pgserver.sh --tcp, or set "
                                  "[server] %s", pgcb_transport_name(t));
            return -1;
        }
        if (strcmp(host, "*") == 0 || strcmp(host, "0.0.0.0") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        else if (strcmp(host, "::") == 0)
            snprintf(host, sizeof host, "::1");
    }
    if (!bare(host)) {
        snprintf(why, whylen, "the server's %s entry '%s' cannot be used as a host here: set "
                              "[server] %s",
                 t == PGCB_TRANSPORT_UNIX ? "unix_socket_directories" : "listen_addresses", host,
                 pgcb_transport_name(t));
        return -1;
    }
    snprintf(buf, n, "host=%s port=%d%s", host, f->port,
             t == PGCB_TRANSPORT_TCP   ? " sslmode=disable"
             : t == PGCB_TRANSPORT_TLS ? " sslmode=require"
                                       : "");
    if (t == PGCB_TRANSPORT_TLS && !f->ssl) { /* the part stands, for [server] tls over it */
        snprintf(why, whylen, "the server has ssl = off: start it with scripts/pgserver.sh "
                              "--ssl, or set [server] tls");
        return -1;
    }
    return 0;
}

void pgcb_transport_unknown(struct pgcb_transport_seen *out, const char *fmt, ...)
{
    *out = (struct pgcb_transport_seen){.recorded = 1};
    snprintf(out->seen, sizeof out->seen, "unknown");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
}

static const char *conn_kind(const struct pgcb_transport_conn *c)
{
    return c->ssl ? "tls" : c->client_port == -1 ? "unix" : "tcp";
}

void pgcb_transport_classify(const struct pgcb_transport_conn *conns, size_t n,
                             struct pgcb_transport_seen *out)
{
    if (n == 0) {
        pgcb_transport_unknown(out, "the server lists no connection under the host's "
                                    "application_name");
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (conns[i].ssl < 0) {
            pgcb_transport_unknown(out, "the server does not show the runner's own session "
                                        "how backend %d is connected (it needs the same role, "
                                        "or pg_read_all_stats)", conns[i].pid);
            return;
        }
    *out = (struct pgcb_transport_seen){.recorded = 1, .bits = conns[0].bits};
    snprintf(out->seen, sizeof out->seen, "%s", conn_kind(&conns[0]));
    snprintf(out->version, sizeof out->version, "%s", conns[0].version);
    snprintf(out->cipher, sizeof out->cipher, "%s", conns[0].cipher);
    snprintf(out->client_addr, sizeof out->client_addr, "%s", conns[0].client_addr);
    for (size_t i = 1; i < n; i++)
        if (strcmp(conn_kind(&conns[i]), out->seen) != 0) {
            snprintf(out->why, sizeof out->why, "backend %d: %s, backend %d: %s", conns[0].pid,
                     out->seen, conns[i].pid, conn_kind(&conns[i]));
            snprintf(out->seen, sizeof out->seen, "mixed");
            return;
        }
}
