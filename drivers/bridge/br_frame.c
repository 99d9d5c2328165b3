/* br_frame.c -- see br_frame.h. */
#include "br_frame.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int br_frame_send(struct br_proc *p, const char *json, size_t len, char *err, size_t errlen)
{
    unsigned char head[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16),
                             (unsigned char)(len >> 8), (unsigned char)len};
    const char *parts[2] = {(const char *)head, json};
    size_t sizes[2] = {sizeof head, len};
    if (len == 0 || len > BR_FRAME_MAX) {
        snprintf(err, errlen, "request of %zu bytes is over the %u-byte frame limit", len,
                 BR_FRAME_MAX);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        size_t done = 0;
        while (done < sizes[k]) {
            /* MSG_NOSIGNAL: an adapter that died is an error, not SIGPIPE. */
            ssize_t n = send(p->sock, parts[k] + done, sizes[k] - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                snprintf(err, errlen, "cannot send to the adapter: %s",
                         n < 0 ? strerror(errno) : "nothing written");
                return -1;
            }
            done += (size_t)n;
        }
    }
    return 0;
}

static uint64_t br_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Read exactly n bytes into dst, draining the output pipe meanwhile.
 * Returns 1, 0 on EOF before the first byte, -1 on EOF or an error after
 * some bytes, -3 on timeout. */
static int br_read_full(struct br_proc *p, char *dst, size_t n, uint64_t deadline, int limited)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd fds[2] = {{.fd = p->sock, .events = POLLIN},
                                {.fd = p->out, .events = POLLIN}};
        int wait = -1;
        if (limited) {
            uint64_t now = br_now_ms();
            if (now >= deadline)
                return -3;
            wait = (int)(deadline - now);
        }
        int r = poll(fds, p->out >= 0 ? 2 : 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return got ? -1 : 0;
        if (r == 0)
            continue;
        if (p->out >= 0 && fds[1].revents)
            br_proc_drain(p);
        if (!fds[0].revents)
            continue;
        ssize_t k = recv(p->sock, dst + got, n - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return got ? -1 : 0;
        got += (size_t)k;
    }
    return 1;
}

long br_frame_recv(struct br_proc *p, char **buf, size_t *cap, int timeout_ms, char *err,
                   size_t errlen)
{
    uint64_t deadline = timeout_ms >= 0 ? br_now_ms() + (uint64_t)timeout_ms : 0;
    unsigned char head[4];
    int r = br_read_full(p, (char *)head, sizeof head, deadline, timeout_ms >= 0);
    if (r == -3)
        return BR_FRAME_TIMEOUT;
    if (r == 0) {
        snprintf(err, errlen, "the adapter closed its socket");
        return BR_FRAME_EOF;
    }
    if (r < 0) {
        snprintf(err, errlen, "end of file inside a frame's length");
        return BR_FRAME_BAD;
    }
    uint32_t len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 |
                   head[3];
    if (len == 0 || len > BR_FRAME_MAX) {
        snprintf(err, errlen, "frame length %u (0x%02x%02x%02x%02x) is %s", (unsigned)len,
                 head[0], head[1], head[2], head[3],
                 len == 0 ? "zero" : "over the 64 MiB limit: not a frame");
        return BR_FRAME_BAD;
    }
    if (*cap < (size_t)len + 1) {
        char *nb = realloc(*buf, (size_t)len + 1);
        if (!nb) {
            snprintf(err, errlen, "out of memory for a %u-byte frame", (unsigned)len);
            return BR_FRAME_BAD;
        }
        *buf = nb;
        *cap = (size_t)len + 1;
    }
    r = br_read_full(p, *buf, len, deadline, timeout_ms >= 0);
    if (r == -3)
        return BR_FRAME_TIMEOUT;
    if (r != 1) {
        snprintf(err, errlen, "end of file inside a frame: %u bytes announced", (unsigned)len);
        return BR_FRAME_BAD;
    }
    (*buf)[len] = '\0';
    return (long)len;
}
