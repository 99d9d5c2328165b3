/*
 * br_call.c -- starting an adapter, one request and its reply, and what
 * the bridge says when the adapter dies or breaks the protocol. See
 * br_conn.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "br_conn.h"
#include "br_frame.h"

void br_conn_scrub(const struct pgcb_conn *c, char *s, size_t size)
{
    /* A password shorter than 3 bytes would garble every message; libpq's
     * and the clients' messages do not quote it anyway. */
    const char *pw = c->password;
    size_t pl = pw ? strlen(pw) : 0;
    if (pl < 3)
        return;
    for (char *at; (at = strstr(s, pw)) != NULL;) {
        size_t rest = strlen(at + pl);
        memcpy(at, "***", 3);
        memmove(at + 3, at + pl, rest + 1);
        (void)size;
    }
}

void br_conn_stop(struct pgcb_conn *c)
{
    br_proc_stop(&c->proc, 2000);
    c->broken = 1;
}

int br_conn_fail(struct pgcb_conn *c, char *err, size_t errlen, const char *fmt, ...)
{
    char why[PGCB_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    br_conn_stop(c);
    snprintf(err, errlen, "%s: %s", c->cfg.what, why);
    br_conn_scrub(c, err, errlen);
    return PGCB_ERR_PROTOCOL;
}

/* The adapter went away (EOF, a failed send): how it ended and the last
 * line it printed. Returns PGCB_ERR_IO. */
static int br_dead(struct pgcb_conn *c, const char *op, char *err, size_t errlen)
{
    char how[96], line[256];
    br_proc_stop(&c->proc, 1000);
    c->broken = 1;
    br_proc_how(&c->proc, how, sizeof how);
    br_proc_last_line(&c->proc, line, sizeof line);
    snprintf(err, errlen, "%s %s while answering %s%s%s", c->cfg.what, how, op,
             line[0] ? ": " : " (it printed nothing)", line);
    br_conn_scrub(c, err, errlen);
    return PGCB_ERR_IO;
}

static int br_status_of(const char *kind)
{
    static const struct {
        const char *kind;
        int status;
    } kinds[] = {{"config", PGCB_ERR_CONFIG},   {"connect", PGCB_ERR_CONNECT},
                 {"query", PGCB_ERR_QUERY},     {"io", PGCB_ERR_IO},
                 {"protocol", PGCB_ERR_PROTOCOL}, {"unsupported", PGCB_ERR_UNSUPPORTED}};
    for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i].kind) == 0)
            return kinds[i].status;
    return -1;
}

int br_call(struct pgcb_conn *c, json_t *req, int timeout_ms, json_t **reply, char *err,
            size_t errlen)
{
    *reply = NULL;
    char op[32];
    snprintf(op, sizeof op, "%s", json_string_value(json_object_get(req, "op")));
    if (c->broken) {
        json_decref(req);
        snprintf(err, errlen, "%s is gone (it failed earlier): nothing more can run on this "
                 "connection", c->cfg.what);
        return PGCB_ERR_IO;
    }
    char why[PGCB_ERRLEN];
    size_t len = 0;
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory encoding %s", c->cfg.what, op);
        return PGCB_ERR_NOMEM;
    }
    len = strlen(text);
    int sent = br_frame_send(&c->proc, text, len, why, sizeof why);
    /* A connect request holds the password: leave no copy behind. */
    explicit_bzero(text, len);
    free(text);
    if (sent != 0)
        return br_dead(c, op, err, errlen);

    long n = br_frame_recv(&c->proc, &c->buf, &c->cap, timeout_ms, why, sizeof why);
    if (n == BR_FRAME_TIMEOUT)
        return br_conn_fail(c, err, errlen, "no answer to %s within %d ms (%s): "
                            "it was stopped", op, timeout_ms,
                            strcmp(op, "load") == 0 ? "the load's duration + start_timeout_ms"
                                                    : "start_timeout_ms");
    if (n == BR_FRAME_EOF)
        return br_dead(c, op, err, errlen);
    if (n == BR_FRAME_BAD)
        return br_conn_fail(c, err, errlen, "bad frame answering %s: %s", op, why);
    json_error_t je;
    json_t *r = json_loadb(c->buf, (size_t)n, JSON_ALLOW_NUL, &je);
    if (!r || !json_is_object(r)) {
        char start[48];
        size_t k = 0;
        for (long i = 0; i < n && k + 1 < sizeof start; i++)
            start[k++] = (unsigned char)c->buf[i] < 0x20 ? ' ' : c->buf[i];
        start[k] = '\0';
        json_decref(r);
        return br_conn_fail(c, err, errlen, "answered %s with a frame that is not a JSON "
                            "object (%s; it starts \"%s\")", op, r ? "not an object" : je.text,
                            start);
    }
    const json_t *ok = json_object_get(r, "ok");
    if (!json_is_boolean(ok)) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its answer to %s has no boolean \"ok\"", op);
    }
    /* The arrays of a run in a frame of their own, after the reply. */
    c->arr_len = 0;
    const json_t *arrays = json_object_get(r, "arrays");
    if (arrays) {
        if (!json_is_string(arrays) || strcmp(json_string_value(arrays), "frame") != 0) {
            json_decref(r);
            return br_conn_fail(c, err, errlen, "its answer to %s has \"arrays\" other than "
                                "\"frame\"", op);
        }
        n = br_frame_recv(&c->proc, &c->arr, &c->arr_cap, timeout_ms, why, sizeof why);
        if (n < 0) {
            json_decref(r);
            if (n == BR_FRAME_EOF)
                return br_dead(c, op, err, errlen);
            return br_conn_fail(c, err, errlen, "%s the arrays frame answering %s%s%s",
                                n == BR_FRAME_TIMEOUT ? "no" : "bad", op,
                                n == BR_FRAME_BAD ? ": " : "", n == BR_FRAME_BAD ? why : "");
        }
        c->arr_len = (size_t)n;
    }
    if (json_is_true(ok)) {
        *reply = r;
        return PGCB_OK;
    }
    const char *kind = json_string_value(json_object_get(r, "kind"));
    const char *msg = json_string_value(json_object_get(r, "error"));
    const char *state = json_string_value(json_object_get(r, "sqlstate"));
    int status = br_status_of(kind);
    if (status < 0 || !msg || (status == PGCB_ERR_QUERY && (!state || strlen(state) != 5))) {
        /* kind and msg live in r: say what is wrong before releasing it. */
        if (status < 0 || !msg)
            snprintf(why, sizeof why, "its failure answering %s lacks a known \"kind\" or an "
                     "\"error\" (kind %.40s)", op, kind ? kind : "missing");
        else
            snprintf(why, sizeof why, "a query failure answering %s without a 5-character "
                     "\"sqlstate\": %.300s", op, msg);
        json_decref(r);
        return br_conn_fail(c, err, errlen, "%s", why);
    }
    if (status == PGCB_ERR_QUERY)
        snprintf(err, errlen, "%s: %s", state, msg);
    else
        snprintf(err, errlen, "%s: %s", c->cfg.what, msg);
    /* One line. */
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    br_conn_scrub(c, err, errlen);
    *reply = r;
    if (status == PGCB_ERR_IO || status == PGCB_ERR_PROTOCOL)
        br_conn_stop(c);
    return status;
}

/* A required string of the hello reply into dst (n bytes). 0, or -1. */
static int br_hello_str(const json_t *r, const char *key, char *dst, size_t n)
{
    const char *v = json_string_value(json_object_get(r, key));
    if (!v || !*v)
        return -1;
    snprintf(dst, n, "%s", v);
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
    return 0;
}

int br_conn_start(struct pgcb_conn *c, char *err, size_t errlen)
{
    char why[PGCB_ERRLEN];
    if (br_proc_start(&c->proc, c->cfg.argv, BR_PROTOCOL, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", c->cfg.what, why);
        c->broken = 1;
        return PGCB_ERR_CONFIG;
    }
    json_t *req = json_pack("{s:s, s:i, s:s, s:O, s:s}", "op", "hello", "protocol", BR_PROTOCOL,
                            "client", c->cfg.client, "options", c->cfg.options,
                            "result_format", br_format_name(c->cfg.result_format));
    if (req && c->cfg.module_dir)
        json_object_set_new(req, "module_dir", json_string(c->cfg.module_dir));
    json_t *r;
    int rc = br_call(c, req, c->cfg.timeout_ms, &r, err, errlen);
    if (rc != PGCB_OK) {
        json_decref(r);
        br_conn_stop(c);
        return rc == PGCB_ERR_IO || rc == PGCB_ERR_PROTOCOL ? rc : PGCB_ERR_CONFIG;
    }
    struct br_hello *h = &c->hello;
    const json_t *proto = json_object_get(r, "protocol");
    const char *tl = json_string_value(json_object_get(r, "text_length"));
    const json_t *pipe = json_object_get(r, "pipeline"), *noio = json_object_get(r, "no_io");
    if (!json_is_integer(proto) || json_integer_value(proto) != BR_PROTOCOL) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its hello answers protocol %s; this bridge speaks "
                            "protocol %d", json_is_integer(proto) ? "another version" : "nothing",
                            BR_PROTOCOL);
    }
    if (br_hello_str(r, "adapter", h->adapter, sizeof h->adapter) ||
        br_hello_str(r, "adapter_version", h->adapter_version, sizeof h->adapter_version) ||
        br_hello_str(r, "runtime", h->runtime, sizeof h->runtime) ||
        br_hello_str(r, "client", h->client, sizeof h->client) ||
        br_hello_str(r, "client_version", h->client_version, sizeof h->client_version) ||
        br_hello_str(r, "links", h->links, sizeof h->links) || !json_is_boolean(pipe) ||
        !json_is_boolean(noio) || !tl) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its hello lacks a required field (adapter, "
                            "adapter_version, runtime, client, client_version, links, pipeline, "
                            "no_io, text_length)");
    }
    /* From here on, messages name the adapter as it names itself. */
    char *what = NULL;
    if (asprintf(&what, "adapter %s (client %s)", h->adapter, c->cfg.client) >= 0) {
        free(c->cfg.what);
        c->cfg.what = what;
    }
    h->pipeline = json_is_true(pipe);
    h->no_io = json_is_true(noio);
    /* Optional (the load section of the protocol): absent is false. */
    const json_t *load = json_object_get(r, "load");
    if (load && !json_is_boolean(load)) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its hello's \"load\" is not a boolean");
    }
    h->load = json_is_true(load);
    /* Optional too (the stream section): absent is false. */
    const json_t *stream = json_object_get(r, "stream");
    if (stream && !json_is_boolean(stream)) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its hello's \"stream\" is not a boolean");
    }
    h->stream = json_is_true(stream);
    if (strcmp(tl, "utf16") == 0)
        h->text_length = BR_LEN_UTF16;
    else if (strcmp(tl, "codepoints") == 0)
        h->text_length = BR_LEN_CODEPOINTS;
    else if (strcmp(tl, "bytes") == 0)
        h->text_length = BR_LEN_BYTES;
    else {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "its hello's text_length '%s' is none of utf16, "
                            "codepoints, bytes", tl);
    }
    if (br_wire_read(r, &h->wire, why, sizeof why) != 0) {
        json_decref(r);
        return br_conn_fail(c, err, errlen, "%s", why);
    }
    json_decref(r);
    return PGCB_OK;
}
