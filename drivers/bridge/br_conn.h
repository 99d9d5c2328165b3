/*
 * br_conn.h -- one bridge connection: its adapter process, what the adapter
 * said of itself, its statements; and the request/reply exchange with it
 * (docs/bridge-protocol.md). Private to drivers/bridge/.
 *
 * Ownership: a connection owns its adapter (br_proc), the hello reply, its
 * statements (a list, each with the last dump the bridge read for it), the
 * password it must scrub from messages, and its receive buffer.
 */
#ifndef BR_CONN_H
#define BR_CONN_H

#include <jansson.h>
#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include <pgcb/driver.h>

#include "br_arrays.h"
#include "br_dump.h"
#include "br_proc.h"
#include "br_ref.h"

/* The protocol version this bridge speaks. */
#define BR_PROTOCOL 1

/* What the [driver.NAME] options say (br_config). */
struct br_config {
    char **argv;            /* the adapter's command line, NULL-terminated; owned */
    char *what;             /* "adapter node (client pg)", for messages; owned */
    char *client;           /* owned */
    json_t *options;        /* the client's options, an object; owned */
    int timeout_ms;         /* for every request but run */
    enum pgcb_format result_format; /* asked of the client in hello (default text) */
    char *module_dir;       /* where the client is loaded from (hello's module_dir), an
                               absolute path; NULL: the adapter's own; owned */
};

/* What the adapter said in its hello reply. */
struct br_hello {
    char adapter[64], adapter_version[64], runtime[128], client[64], client_version[64];
    char links[PGCB_LINKS_LEN];
    int pipeline, no_io;
    int load;               /* hello's optional "load": true -- pools and loads (ABI 1.5) */
    int stream;             /* hello's optional "stream": true -- whole results (ABI 1.6) */
    enum br_textlen text_length;
    /* hello's optional "wire": what the client really sends the server;
     * 0 in a field: the adapter did not say (no "wire", a field absent). */
    struct pgcb_protocol wire;
};

struct pgcb_stmt {
    struct pgcb_stmt *next;   /* the connection's list */
    uint32_t id;              /* the protocol's statement number */
    uint32_t nparams;
    unsigned char *kinds;     /* ncols, from the last dump; NULL before it */
    uint32_t ncols;
    /* The last dump of a batch of this statement: what a timed batch at the
     * same depth must return, and the checksum it then stands for. */
    int have_expect;
    uint32_t expect_depth;
    uint64_t expect_rows;
    uint32_t expect_fold;     /* the fold of the dump with `kinds` */
    uint64_t expect_hash;
    /* What the client made of converted types in that dump (br_dump's
     * note): what a message about a disagreeing checksum would say. */
    char note[256];
    char *sql;                /* as prepared (the reference reads it); owned */
    int have_ref;             /* ref holds the bridge's reading of it (br_ref.h) */
    struct br_ref ref;
};

struct pgcb_conn {
    struct br_config cfg;
    struct br_proc proc;
    struct br_hello hello;
    char *password;           /* the one given to the adapter (to scrub); owned */
    struct pgcb_stmt *stmts;
    uint32_t next_id;
    locale_t c_locale;
    char *buf;                /* receive buffer */
    size_t cap;
    /* The arrays frame that followed the last reply ("arrays": "frame"):
     * samples, rows (u64) and folds (u32), little-endian; arr_len 0: none. */
    char *arr;
    size_t arr_cap, arr_len;
    int broken;               /* the adapter is gone: every call fails */
    uint32_t pool;            /* pool_open's nconns: the adapter holds a pool; 0: open() */
    char *conninfo;           /* the runner's, as open() got it (the reference reads with it);
                                 owned */
};

/* The keys a [driver.NAME] section of the bridge accepts (br_config.c). */
extern const struct pgcb_option_spec br_options[];

/* Parse the options into cfg (its argv from `adapter` or `command`).
 * PGCB_OK, or PGCB_ERR_CONFIG with err. */
int br_config_read(const struct pgcb_option *opts, size_t nopts, struct br_config *cfg,
                   char *err, size_t errlen);
void br_config_free(struct br_config *cfg);

/* Start the adapter of cfg into c (which takes cfg over) and exchange
 * hello (its "wire" read by br_wire_read). PGCB_OK, or a status with err
 * (the adapter is stopped then). */
int br_conn_start(struct pgcb_conn *c, char *err, size_t errlen);

/* The hello reply's optional "wire" object (br_wire.c) into *out (zeroed
 * first): absent, or a field absent, is 0 (unknown). Returns 0, or -1 with
 * `why` naming the field and the value that is not the protocol's (the
 * caller names the adapter). */
int br_wire_read(const json_t *hello, struct pgcb_protocol *out, char *why, size_t whylen);

/* The protocol's name of a result format ("text", "binary"). */
const char *br_format_name(enum pgcb_format f);

/* Send `req` (a JSON object, stolen) and read the reply into *reply (the
 * caller's reference, also set when the reply is a failure), and the
 * arrays frame after it when the reply says "arrays": "frame" (into
 * c->arr). timeout_ms < 0 waits without limit. Returns PGCB_OK for {"ok": true}; the failure's
 * status for {"ok": false} with err "SQLSTATE: message" (kind query) or the
 * message; PGCB_ERR_IO or PGCB_ERR_PROTOCOL when the adapter died, went
 * silent past the timeout or sent a bad frame -- then the adapter is
 * stopped, c->broken is set and *reply is NULL. */
int br_call(struct pgcb_conn *c, json_t *req, int timeout_ms, json_t **reply, char *err,
            size_t errlen);

/* The adapter broke the protocol: stop it, mark c broken, and write
 * "<what>: <why>" into err. Returns PGCB_ERR_PROTOCOL. */
int br_conn_fail(struct pgcb_conn *c, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Replace every occurrence of the connection's password in s with ***. */
void br_conn_scrub(const struct pgcb_conn *c, char *s, size_t size);

/* Stop the adapter: close, wait a little, kill. */
void br_conn_stop(struct pgcb_conn *c);

/* Resolve the runner's conninfo with libpq (br_conninfo.c): connect once,
 * and return the settings libpq connected with as the protocol's "conn"
 * object (new reference), the password it used in *password (malloc'd,
 * NULL if none). NULL with err (PGCB_ERR_CONNECT's message) on failure. */
json_t *br_conninfo_resolve(const char *conninfo, char **password, char *err, size_t errlen);

/* The run request of a batch or a block (br_run.c). */
int br_run_batch(struct pgcb_conn *c, struct pgcb_stmt *s, uint32_t depth,
                 const struct pgcb_params *params, struct pgcb_sum *sum, char *err,
                 size_t errlen);
int br_run_block(struct pgcb_conn *c, const struct pgcb_block *b, struct pgcb_block_out *out,
                 char *err, size_t errlen);

/* The load request over a pool (br_load.c; ABI 1.5 run_load). */
int br_run_load(struct pgcb_conn *c, const struct pgcb_load *load, struct pgcb_load_out *out,
                char *err, size_t errlen);

/* The stream request (br_stream.c; ABI 1.6 run_stream). */
int br_run_stream(struct pgcb_conn *c, const struct pgcb_stream *s, struct pgcb_stream_out *out,
                  char *err, size_t errlen);

/* What br_run.c shares with br_load.c. */

/* The samples (latencies), rows and folds of the n entries a reply
 * accounts for, into the caller's arrays: br_arrays_decode of the arrays
 * frame that followed it on c (br_arrays.h). 0, or -1 with why. */
int br_arrays(const struct pgcb_conn *c, const json_t *r, size_t n, uint64_t *samples,
              uint64_t *rows, uint32_t *folds, char *why, size_t whylen);

/* The kinds to send with a run or load of s (new reference): its last
 * dump's, or json null before one. */
json_t *br_kinds(const struct pgcb_stmt *s);

/* The parameters of `nq` executions as an array of arrays of strings /
 * nulls (new reference), or json null without parameters. NULL (with why)
 * for a value that is not valid UTF-8, which JSON cannot carry. */
json_t *br_params(const struct pgcb_params *p, size_t nq, char *why, size_t whylen);

/* The checksum that a timed batch of `depth` executions of s (or one query
 * of a load: depth 1) with `rows` rows and fold `fold` stands for: the
 * statement's last dump's checksum when the dump was of that depth and rows
 * and fold match it, else a checksum that differs from it. */
void br_sum_of(const struct pgcb_stmt *s, uint32_t depth, uint64_t rows, uint32_t fold,
               struct pgcb_sum *out);

#endif
