/*
 * px_loop.h -- the wire proxy's event loop: accepts client connections on a
 * listening socket, opens one upstream connection for each (TCP or a unix
 * socket), and carries every byte both ways, each chunk as it was read,
 * delivered `half_ns` after it was read (0: at once) -- so a client sees a
 * round trip `2 * half_ns` longer, every connection delayed on its own,
 * order and bytes unchanged. What crosses is counted into the shared block
 * (wt_count.h's rule: client bytes when read from the client, server bytes
 * just before they are written to it), with each delivery's lateness against its due time.
 *
 * One thread, one epoll set, a timer of nanosecond resolution
 * (epoll_pwait2; the caller sets the timer slack). A direction whose queue
 * holds more than PX_QUEUE_MAX bytes stops reading its source until it
 * drains. An upstream that refuses a connection closes that client's
 * connection (counted in the block's `refused`, with the reason); an I/O
 * error ends only its own connection (`errors`).
 */
#ifndef PX_LOOP_H
#define PX_LOOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "wiretap/wt_block.h"

#define PX_QUEUE_MAX (8u << 20)

struct px_opts {
    int listen_fd;                    /* bound and listening, non-blocking */
    struct sockaddr_storage up;       /* the upstream's address */
    socklen_t uplen;
    char up_name[160];                /* for messages: "127.0.0.1:5433" or the socket path */
    uint64_t half_ns;                 /* the delay each way */
    int count;                        /* count what crosses (0: --no-count: carry it only) */
    struct wt_block *blk;             /* not owned */
};

/* Run until *stop is set (a signal handler's flag). Returns 0, or -1 with
 * why in err when the loop itself fails (epoll); a connection's failure
 * never ends the loop. Frees every connection before it returns. */
int px_run(const struct px_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
