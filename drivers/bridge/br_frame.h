/*
 * br_frame.h -- the frames of the bridge protocol on the adapter's socket:
 * a 4-byte big-endian length, then that many bytes of JSON text
 * (docs/bridge-protocol.md, "Frames"). While waiting for a frame, what the
 * adapter prints is drained into its tail (br_proc.h), so that it never
 * blocks on a full pipe.
 */
#ifndef BR_FRAME_H
#define BR_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "br_proc.h"

/* The largest frame either side may send. */
#define BR_FRAME_MAX (64u * 1024u * 1024u)

/* What br_frame_recv returns besides a length. */
enum br_frame_rc {
    BR_FRAME_EOF = -1,      /* the socket reached end of file or failed */
    BR_FRAME_BAD = -2,      /* a length of 0 or over BR_FRAME_MAX, or EOF inside a frame */
    BR_FRAME_TIMEOUT = -3   /* nothing complete within the timeout */
};

/* Send `len` bytes of JSON text as one frame. 0, or -1 with err (the
 * socket failed: the adapter is gone). */
int br_frame_send(struct br_proc *p, const char *json, size_t len, char *err, size_t errlen);

/* Receive one frame into *buf (of capacity *cap, grown with realloc as
 * needed; the caller owns it), NUL-terminated. Waits at most timeout_ms
 * (< 0: without limit). Returns the payload length (>= 1) or a
 * br_frame_rc, with err set for BR_FRAME_EOF and BR_FRAME_BAD. */
long br_frame_recv(struct br_proc *p, char **buf, size_t *cap, int timeout_ms, char *err,
                   size_t errlen);

#endif
