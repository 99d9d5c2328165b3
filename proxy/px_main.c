/*
 * px_main.c -- pgcb-proxy, the wire proxy between clients and a PostgreSQL
 * server: it counts what crosses (wiretap/wt_count.h) and can add a delay
 * of half a round-trip time each way (px_loop.h).
 *
 *   pgcb-proxy --upstream HOST:PORT|/PATH/.s.PGSQL.NNNN [--listen HOST:PORT]
 *              [--rtt-ms X] [--block-fd N] [--ready-fd N] [--no-count]
 *
 * It listens (default 127.0.0.1 on a port the kernel picks), writes the
 * port it got and a newline to --ready-fd (default 1), and carries
 * connections until SIGTERM or SIGINT, or until its parent dies (it asks
 * the kernel for SIGKILL then: a runner killed with SIGKILL leaves no
 * proxy behind). --block-fd is a counter block the starter made
 * (wiretap/wt_block.h); without it the proxy keeps its own and prints the
 * counts on stderr when it ends. --no-count: carry the bytes without
 * counting them (bytes, messages and round trips stay 0; the deliveries'
 * lateness is still recorded). Exit status 0, 1 for a failure after
 * start, 2 for bad arguments (one line naming the option).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "px_loop.h"
#include "wiretap/wt_block.h"
#include "wiretap/wt_count.h"

static volatile sig_atomic_t px_stop;

static void on_signal(int sig)
{
    (void)sig;
    px_stop = 1;
}

static int usage(const char *why)
{
    fprintf(stderr, "pgcb-proxy: %s\nusage: pgcb-proxy --upstream HOST:PORT|/PATH/.s.PGSQL.NNNN "
                    "[--listen HOST:PORT] [--rtt-ms X] [--block-fd N] [--ready-fd N] [--no-count]\n",
            why);
    return 2;
}

/* "host:port", "[v6]:port" or an absolute unix socket path into *ss. */
static int parse_addr(const char *opt, const char *s, struct sockaddr_storage *ss, socklen_t *len,
                      char *why, size_t whylen)
{
    memset(ss, 0, sizeof *ss);
    if (s[0] == '/') {
        struct sockaddr_un *un = (struct sockaddr_un *)ss;
        if (strlen(s) >= sizeof un->sun_path) {
            snprintf(why, whylen, "%s '%s': a unix socket path is at most %zu bytes", opt, s,
                     sizeof un->sun_path - 1);
            return -1;
        }
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, s);
        *len = sizeof *un;
        return 0;
    }
    char host[256];
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1] || (size_t)(colon - s) >= sizeof host) {
        snprintf(why, whylen, "%s '%s': expected HOST:PORT, [IPV6]:PORT or /PATH", opt, s);
        return -1;
    }
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai = NULL;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc != 0) {
        snprintf(why, whylen, "%s '%s': %s", opt, s, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

static void print_counts(const struct wt_block *b)
{
    struct wt_block r;
    wt_block_read(b, &r);
    fprintf(stderr, "pgcb-proxy: %llu connections, %llu round trips\n",
            (unsigned long long)r.tot.connections, (unsigned long long)r.tot.round_trips);
    static const char *const dirs[2] = {"to server", "to client"};
    for (int d = 0; d < 2; d++) {
        fprintf(stderr, "pgcb-proxy: %s: %llu bytes, %llu messages", dirs[d],
                (unsigned long long)r.tot.bytes[d], (unsigned long long)r.tot.msgs[d]);
        for (unsigned t = 0; t < WT_NTYPES; t++) {
            if (r.tot.by_type[d][t]) {
                const char *nm = wt_type_name((enum wt_dir)d, t);
                fprintf(stderr, ", %s %llu", nm ? nm : "?", (unsigned long long)r.tot.by_type[d][t]);
            }
        }
        fprintf(stderr, "\n");
    }
    if (r.delay.chunks)
        fprintf(stderr, "pgcb-proxy: %llu deliveries, late by %.1f us on average, %.1f us at most\n",
                (unsigned long long)r.delay.chunks, r.delay.late_sum_ns / 1e3 / (double)r.delay.chunks,
                r.delay.late_max_ns / 1e3);
    if (r.refused || r.errors)
        fprintf(stderr, "pgcb-proxy: %llu refused, %llu errors; the last: %s\n",
                (unsigned long long)r.refused, (unsigned long long)r.errors, r.last_error);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"upstream", required_argument, NULL, 'u'}, {"listen", required_argument, NULL, 'l'},
        {"rtt-ms", required_argument, NULL, 'r'},   {"block-fd", required_argument, NULL, 'b'},
        {"ready-fd", required_argument, NULL, 'f'}, {"no-count", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    const char *upstream = NULL, *listen_at = "127.0.0.1:0";
    double rtt_ms = 0;
    int block_fd = -1, ready_fd = 1, count = 1, c;
    char why[512];
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'u': upstream = optarg; break;
        case 'l': listen_at = optarg; break;
        case 'n': count = 0; break;
        case 'r':
            errno = 0;
            rtt_ms = strtod(optarg, &end);
            if (errno || end == optarg || *end || !isfinite(rtt_ms) || rtt_ms < 0 ||
                rtt_ms > 10000) {
                snprintf(why, sizeof why, "--rtt-ms '%s': expected milliseconds from 0 to 10000",
                         optarg);
                return usage(why);
            }
            break;
        case 'b':
        case 'f': {
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 0 || v > 65535) {
                snprintf(why, sizeof why, "--%s '%s': expected a file descriptor",
                         c == 'b' ? "block-fd" : "ready-fd", optarg);
                return usage(why);
            }
            *(c == 'b' ? &block_fd : &ready_fd) = (int)v;
            break;
        }
        default: return usage("unknown option");
        }
    }
    if (optind != argc)
        return usage("unexpected argument");
    if (!upstream)
        return usage("--upstream is required");

    /* Die with the parent; a parent already gone is noticed here. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return 1;
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake when a chunk is due, not up to 50 us after */
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct px_opts o = {.half_ns = (uint64_t)llround(rtt_ms * 1e6 / 2), .count = count};
    if (parse_addr("--upstream", upstream, &o.up, &o.uplen, why, sizeof why) != 0)
        return usage(why);
    snprintf(o.up_name, sizeof o.up_name, "%s", upstream);
    struct sockaddr_storage la;
    socklen_t lalen;
    if (parse_addr("--listen", listen_at, &la, &lalen, why, sizeof why) != 0)
        return usage(why);

    int own_fd = -1;
    struct wt_block *blk = block_fd >= 0 ? wt_block_map(block_fd, why, sizeof why)
                                         : wt_block_create(&own_fd, why, sizeof why);
    if (!blk) {
        fprintf(stderr, "pgcb-proxy: %s\n", why);
        return 1;
    }
    int lfd = socket(la.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (lfd >= 0)
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&la, lalen) != 0 || listen(lfd, 512) != 0) {
        fprintf(stderr, "pgcb-proxy: listen on %s: %s\n", listen_at, strerror(errno));
        return 1;
    }
    struct sockaddr_storage got;
    socklen_t gotlen = sizeof got;
    getsockname(lfd, (struct sockaddr *)&got, &gotlen);
    unsigned port = got.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
                                              : ntohs(((struct sockaddr_in *)&got)->sin_port);
    __atomic_store_n(&blk->port, port, __ATOMIC_RELAXED);
    __atomic_store_n(&blk->half_rtt_ns, o.half_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&blk->magic, WT_BLOCK_MAGIC, __ATOMIC_RELEASE);
    o.listen_fd = lfd;
    o.blk = blk;
    dprintf(ready_fd, "%u\n", port);
    if (ready_fd != 1 && ready_fd != 2)
        close(ready_fd);

    int rc = px_run(&o, &px_stop, why, sizeof why);
    if (rc != 0)
        fprintf(stderr, "pgcb-proxy: %s\n", why);
    if (block_fd < 0)
        print_counts(blk);
    close(lfd);
    wt_block_unmap(blk);
    return rc != 0;
}
