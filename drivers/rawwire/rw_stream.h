/*
 * rw_stream.h -- rawwire's run_stream (ABI 1.6): one execution whose whole
 * result is read. rawwire never holds a result: its replies are parsed in
 * place from its read buffer as they arrive (rw_reply.c), so both modes
 * read the same way, and the idiom says so.
 */
#ifndef RW_STREAM_H
#define RW_STREAM_H

#include <stddef.h>

#include <pgcb/driver.h>

int rw_run_stream(struct pgcb_conn *c, const struct pgcb_stream *s, struct pgcb_stream_out *out,
                  char *err, size_t errlen);

#endif
