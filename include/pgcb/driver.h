/*
 * pgcb/driver.h -- the pgclientbench driver ABI.
 *
 * This is the one header a driver author needs (pgcb/value.h, optional,
 * converts wire values and folds them as the shipped drivers do). A driver
 * is a shared object that exports exactly one symbol,
 * PGCB_DRIVER_ENTRY_SYMBOL:
 *
 *     PGCB_EXPORT const struct pgcb_driver *pgcb_driver_entry(void);
 *
 * which returns a pointer to a descriptor with static storage duration. The
 * runner dlopen()s the object, calls the entry function once, and checks, most
 * basic first: magic, ABI major, struct_size, then the required operations.
 *
 * Versioning (after SQLite's sqlite3_io_methods): the ABI major changes only
 * when an existing field changes meaning; then old drivers are refused. New
 * fields and operations are only ever appended at the end of struct
 * pgcb_driver, with a minor bump. A caller that wants a slot added in minor N
 * checks `d->abi_minor >= N && d->struct_size >= offsetof(..., slot) + size
 * && d->slot != NULL` before using it (see PGCB_DRIVER_HAS()).
 *
 * Threading: the runner calls open/close/prepare/run_batch (and every other
 * operation on a connection) for one
 * connection from one thread at a time. Different connections may be used
 * from different threads at the same time, so a driver keeps no mutable
 * global state (or protects it itself).
 *
 * Drivers never print. Every operation that can fail returns a pgcb_status
 * and, on failure, writes a one-line, NUL-terminated message (no trailing
 * newline, never a password) into the caller's buffer `err` of size `errlen`
 * (errlen >= 1; the runner passes PGCB_ERRLEN bytes).
 *
 * Consumption is verified: run_batch converts every value it receives into
 * its C type and folds it into a struct pgcb_sum with the pgcb_sum_*()
 * helpers below, so that every driver produces the same checksum for the
 * same rows, whatever its wire format. The runner compares checksums and row
 * counts across drivers; a driver that skips values cannot match.
 */
#ifndef PGCB_DRIVER_H
#define PGCB_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Identification                                                           */
/* ------------------------------------------------------------------------ */

/* First field of every descriptor: "PGCB" in ASCII, read as a big-endian u32. */
#define PGCB_DRIVER_MAGIC 0x50474342u

/* ABI version this header describes. */
#define PGCB_ABI_MAJOR 1
#define PGCB_ABI_MINOR 6

/* The name of the one exported symbol. */
#define PGCB_DRIVER_ENTRY_SYMBOL "pgcb_driver_entry"

/* Mark the entry function exported when building with -fvisibility=hidden. */
#define PGCB_EXPORT __attribute__((visibility("default")))

/* Size of the error buffer the runner passes to every operation. */
#define PGCB_ERRLEN 512

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

enum pgcb_status {
    PGCB_OK = 0,
    /* Could not connect or authenticate. */
    PGCB_ERR_CONNECT = 1,
    /* The server reported an error for a statement (ErrorResponse). The
     * connection is still usable; err starts with the SQLSTATE, e.g.
     * "42P01: relation \"x\" does not exist". */
    PGCB_ERR_QUERY = 2,
    /* The connection broke (socket error, EOF, server gone). The connection
     * must be closed; nothing more may be run on it. */
    PGCB_ERR_IO = 3,
    /* The peer sent something the driver cannot parse. Connection unusable. */
    PGCB_ERR_PROTOCOL = 4,
    /* A driver option is unknown or has a bad value. */
    PGCB_ERR_CONFIG = 5,
    /* Out of memory. */
    PGCB_ERR_NOMEM = 6,
    /* The driver cannot do what was asked (e.g. an unsupported type). */
    PGCB_ERR_UNSUPPORTED = 7
};

/* ------------------------------------------------------------------------ */
/* Capability flags (struct pgcb_driver.caps)                               */
/* ------------------------------------------------------------------------ */

/* run_batch keeps up to `depth` queries in flight on one connection. Without
 * it, the runner says that the driver runs a batch one query at a time. */
#define PGCB_CAP_PIPELINE (1u << 0)
/* The driver does no I/O (drivers/null): it talks to no server. */
#define PGCB_CAP_NO_IO (1u << 1)
/* A reference measurement, not a client: shown in tables, but excluded from
 * checksum agreement, winners and rankings. A reference driver that does
 * I/O (no PGCB_CAP_NO_IO; drivers/floor) is the wire floor: tables show every
 * driver's median as a ratio to its median ("x floor"). */
#define PGCB_CAP_REFERENCE (1u << 2)
/* (ABI 1.2) run_block times the batches itself: set by a driver that has
 * run_block. The runner uses run_block in its timed blocks and run_batch
 * everywhere else. */
#define PGCB_CAP_SELF_TIMED (1u << 3)

/* ------------------------------------------------------------------------ */
/* Driver options                                                           */
/* ------------------------------------------------------------------------ */

/* One key = value from the driver's [driver.NAME] INI section (all keys but
 * the runner's own `path`). Both strings are owned by the runner and live
 * until close() returns. */
struct pgcb_option {
    const char *key;
    const char *value;
};

/* Description of one option a driver accepts, for validation of the INI
 * file (an unknown key is an error naming file and line) and for
 * `runner --list-drivers`. Arrays of these end with an entry whose key is
 * NULL. */
struct pgcb_option_spec {
    const char *key;
    const char *default_value; /* as text; NULL if none */
    const char *help;          /* one line */
};

/* ------------------------------------------------------------------------ */
/* Checksum helpers                                                         */
/* ------------------------------------------------------------------------ */

/* The consumption checksum of one batch. The runner zeroes it before every
 * run_batch call; the driver folds every value of every row of every result,
 * in the order received, and calls pgcb_sum_row() once per row after its
 * values. `rows` is the number of rows received across the whole batch. */
struct pgcb_sum {
    uint64_t hash;
    uint64_t rows;
};

/* Type tags folded before each value, so that int4 1 and int8 1 differ, and
 * so do NULL and the empty string. Part of the ABI: never renumbered. */
enum pgcb_sum_tag {
    PGCB_TAG_NULL = 1,
    PGCB_TAG_BOOL = 2,
    PGCB_TAG_INT = 3,   /* int2, int4 and int8 alike: folded as int64 */
    PGCB_TAG_FLOAT4 = 4,
    PGCB_TAG_FLOAT8 = 5,
    PGCB_TAG_TEXT = 6,  /* text, varchar, name, bpchar, numeric (as text), any
                           type the driver does not convert */
    PGCB_TAG_ROW = 7,
    /* ABI 1.4 (pgcb/value.h converts them; before, all folded as TEXT): */
    PGCB_TAG_TIMESTAMP = 8,    /* int64 us since 2000-01-01 00:00:00, no zone */
    PGCB_TAG_TIMESTAMPTZ = 9,  /* int64 us since 2000-01-01 00:00:00 UTC */
    PGCB_TAG_DATE = 10,        /* int32 days since 2000-01-01 */
    PGCB_TAG_TIME = 11,        /* int64 us since midnight */
    PGCB_TAG_INTERVAL = 12,    /* us, days, months */
    PGCB_TAG_UUID = 13,        /* 16 bytes */
    PGCB_TAG_NUMERIC = 14,     /* class, scale, decimal digits */
    PGCB_TAG_JSON = 15,        /* json and jsonb: their text */
    PGCB_TAG_BYTEA = 16,       /* raw bytes */
    PGCB_TAG_ARRAY = 17        /* one dimension: count, lower bound, then the elements */
};

/* One mixing step: cheap, order-sensitive, identical on every platform. */
static inline uint64_t pgcb_sum_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static inline void pgcb_sum_null(struct pgcb_sum *s)
{
    s->hash = pgcb_sum_mix(s->hash, PGCB_TAG_NULL);
}

static inline void pgcb_sum_bool(struct pgcb_sum *s, int v)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_BOOL), v ? 1u : 0u);
}

/* int2, int4 and int8: the value, sign-extended to 64 bits. */
static inline void pgcb_sum_int(struct pgcb_sum *s, int64_t v)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_INT), (uint64_t)v);
}

/* float4: the IEEE bits of the float (every NaN folds alike, -0 stays -0). */
static inline void pgcb_sum_float4(struct pgcb_sum *s, float v)
{
    uint32_t bits;
    if (v != v)
        bits = 0x7fc00000u;
    else
        memcpy(&bits, &v, sizeof bits);
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_FLOAT4), bits);
}

/* float8: the IEEE bits of the double (every NaN folds alike).
 * Text-format drivers parse the server's text, which is exact only with
 * extra_float_digits >= 1 (PostgreSQL 12's default): with 0, or an older
 * server, text and binary drivers disagree on float columns. */
static inline void pgcb_sum_float8(struct pgcb_sum *s, double v)
{
    uint64_t bits;
    if (v != v)
        bits = 0x7ff8000000000000ull;
    else
        memcpy(&bits, &v, sizeof bits);
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_FLOAT8), bits);
}

/* The length, then the bytes eight at a time (little-endian), the tail
 * zero-padded, into h: the body of every byte-string fold. */
static inline uint64_t pgcb_sum_bytes(uint64_t h, const char *p, size_t len)
{
    size_t i = 0;
    h = pgcb_sum_mix(h, len);
    for (; i + 8 <= len; i += 8) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)(unsigned char)p[i + k] << (8 * k);
        h = pgcb_sum_mix(h, w);
    }
    if (i < len) {
        uint64_t w = 0;
        for (int k = 0; i + (size_t)k < len; k++)
            w |= (uint64_t)(unsigned char)p[i + k] << (8 * k);
        h = pgcb_sum_mix(h, w);
    }
    return h;
}

/* Text of `len` bytes (need not be NUL-terminated): the length, then the
 * bytes eight at a time (little-endian), the tail zero-padded. */
static inline void pgcb_sum_text(struct pgcb_sum *s, const char *p, size_t len)
{
    s->hash = pgcb_sum_bytes(pgcb_sum_mix(s->hash, PGCB_TAG_TEXT), p, len);
}

/* ---- ABI 1.4: the types pgcb/value.h converts beyond the above. Every
 * date and time value is counted from 2000-01-01, as PostgreSQL's binary
 * form counts it; `infinity` and `-infinity` are the largest and smallest
 * value of the count's type (INT64_MAX/MIN, for a date INT32_MAX/MIN). */

/* timestamp: microseconds since 2000-01-01 00:00:00 of its wall time. */
static inline void pgcb_sum_timestamp(struct pgcb_sum *s, int64_t us)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_TIMESTAMP), (uint64_t)us);
}

/* timestamptz: microseconds since 2000-01-01 00:00:00 UTC. */
static inline void pgcb_sum_timestamptz(struct pgcb_sum *s, int64_t us)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_TIMESTAMPTZ), (uint64_t)us);
}

/* date: days since 2000-01-01 (sign-extended to 64 bits). */
static inline void pgcb_sum_date(struct pgcb_sum *s, int32_t days)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_DATE), (uint64_t)(int64_t)days);
}

/* time (without time zone): microseconds since midnight, 0 .. 86400000000. */
static inline void pgcb_sum_time(struct pgcb_sum *s, int64_t us)
{
    s->hash = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_TIME), (uint64_t)us);
}

/* interval: its three fields as PostgreSQL keeps them (months = years * 12
 * + months), never normalised into one another. */
static inline void pgcb_sum_interval(struct pgcb_sum *s, int64_t us, int32_t days, int32_t months)
{
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_INTERVAL), (uint64_t)us);
    h = pgcb_sum_mix(h, (uint64_t)(int64_t)days);
    s->hash = pgcb_sum_mix(h, (uint64_t)(int64_t)months);
}

/* uuid: its 16 bytes, as two big-endian halves. */
static inline void pgcb_sum_uuid(struct pgcb_sum *s, const unsigned char b[16])
{
    uint64_t hi = 0, lo = 0;
    for (int k = 0; k < 8; k++) {
        hi = hi << 8 | b[k];
        lo = lo << 8 | b[8 + k];
    }
    s->hash = pgcb_sum_mix(pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_UUID), hi), lo);
}

/* The class of a numeric value (pgcb_sum_numeric). */
enum pgcb_numeric_class {
    PGCB_NUMERIC_POS = 0,  /* finite, >= 0 (zero is never negative) */
    PGCB_NUMERIC_NEG = 1,  /* finite, < 0 */
    PGCB_NUMERIC_NAN = 2,
    PGCB_NUMERIC_PINF = 3, /* Infinity */
    PGCB_NUMERIC_NINF = 4  /* -Infinity */
};

/* numeric, exactly: its class, its display scale (digits after the point,
 * as the server prints it), and the `n` decimal digits ('0'..'9') of
 * |value| x 10^scale without leading zeros ("0" for zero). NaN and the
 * infinities: scale 0, n 0. */
static inline void pgcb_sum_numeric(struct pgcb_sum *s, enum pgcb_numeric_class cls,
                                    int32_t scale, const char *digits, size_t n)
{
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_NUMERIC), (uint64_t)cls);
    h = pgcb_sum_mix(h, (uint64_t)(int64_t)scale);
    s->hash = pgcb_sum_bytes(h, digits, n);
}

/* json and jsonb: the JSON text as the server prints it (for binary jsonb,
 * the bytes after its version byte, which are the same text). */
static inline void pgcb_sum_json(struct pgcb_sum *s, const char *p, size_t len)
{
    s->hash = pgcb_sum_bytes(pgcb_sum_mix(s->hash, PGCB_TAG_JSON), p, len);
}

/* bytea: the raw bytes (a text-format value decoded from its hex). */
static inline void pgcb_sum_bytea(struct pgcb_sum *s, const char *p, size_t len)
{
    s->hash = pgcb_sum_bytes(pgcb_sum_mix(s->hash, PGCB_TAG_BYTEA), p, len);
}

/* The head of a one-dimensional array of `nelems` elements whose first
 * subscript is `lbound` (1 unless declared otherwise; 1 for an empty
 * array); the elements follow, each folded as a value of the element type
 * (pgcb_sum_int, pgcb_sum_text, pgcb_sum_float8 ...; pgcb_sum_null for a
 * NULL element). */
static inline void pgcb_sum_array(struct pgcb_sum *s, uint32_t nelems, int32_t lbound)
{
    uint64_t h = pgcb_sum_mix(pgcb_sum_mix(s->hash, PGCB_TAG_ARRAY), nelems);
    s->hash = pgcb_sum_mix(h, (uint64_t)(int64_t)lbound);
}

/* End of a row: counts it and folds a row marker. */
static inline void pgcb_sum_row(struct pgcb_sum *s)
{
    s->hash = pgcb_sum_mix(s->hash, PGCB_TAG_ROW);
    s->rows++;
}

/* PostgreSQL type OIDs a driver converts (pg_type.oid; stable across
 * server versions). Any other type is folded as its text form. */
enum pgcb_oid {
    PGCB_OID_BOOL = 16,
    PGCB_OID_NAME = 19,
    PGCB_OID_INT8 = 20,
    PGCB_OID_INT2 = 21,
    PGCB_OID_INT4 = 23,
    PGCB_OID_TEXT = 25,
    PGCB_OID_FLOAT4 = 700,
    PGCB_OID_FLOAT8 = 701,
    PGCB_OID_BPCHAR = 1042,
    PGCB_OID_VARCHAR = 1043,
    PGCB_OID_NUMERIC = 1700,
    /* ABI 1.4 */
    PGCB_OID_BYTEA = 17,
    PGCB_OID_JSON = 114,
    PGCB_OID_INT4_ARRAY = 1007,
    PGCB_OID_TEXT_ARRAY = 1009,
    PGCB_OID_INT8_ARRAY = 1016,
    PGCB_OID_FLOAT8_ARRAY = 1022,
    PGCB_OID_DATE = 1082,
    PGCB_OID_TIME = 1083,
    PGCB_OID_TIMESTAMP = 1114,
    PGCB_OID_TIMESTAMPTZ = 1184,
    PGCB_OID_INTERVAL = 1186,
    PGCB_OID_UUID = 2950,
    PGCB_OID_JSONB = 3802
};

/* ------------------------------------------------------------------------ */
/* The descriptor                                                           */
/* ------------------------------------------------------------------------ */

/* Opaque, driver-defined. */
struct pgcb_conn;
struct pgcb_stmt;

/* The parameters of one batch (ABI 1.1, run_batch_params): `nparams` text
 * values per query, query after query (depth x nparams values in all). */
struct pgcb_params {
    uint32_t nparams;
    const char *const *values;  /* NULL entry: SQL NULL */
    const int *lengths;         /* bytes of each value */
};

/* What a [driver.NAME] section makes of the driver (ABI 1.2, instance):
 * filled by the driver from the section's options, before any connection. */
#define PGCB_LINKS_LEN 256
struct pgcb_instance {
    /* PGCB_CAP_* of connections opened with these options: replaces the
     * descriptor's caps for this section (a bridge's `client = null` is
     * NO_IO and REFERENCE; one that pipelines is PIPELINE). */
    uint32_t caps;
    /* What such a connection runs, one line: replaces the descriptor's
     * `links` in the tables and the result (e.g. "pg 8.23.1 (pure
     * JavaScript); Node.js v20.20.2"). "" keeps the descriptor's. */
    char links[PGCB_LINKS_LEN];
};

/* One self-timed block (ABI 1.2, run_block): `nbatches` batches, each one
 * `depth` executions of `stmt` -- with `begin` before and `commit` after
 * when both are set, timed with it -- and, when `params` is set, query k of
 * batch i binding params->values[(i * depth + k) * params->nparams + j] as
 * $j+1 (as run_batch_params does). Everything belongs to the runner. */
struct pgcb_block {
    struct pgcb_stmt *stmt;
    struct pgcb_stmt *begin, *commit;
    uint32_t depth;
    uint32_t nbatches;
    const struct pgcb_params *params; /* NULL: no parameters */
};

/* What run_block reports. `samples` and `sums` are the runner's, nbatches
 * entries each (sums zeroed); the driver fills the first `done`. */
struct pgcb_block_out {
    uint64_t *samples;        /* each batch's latency, ns, as the driver timed it */
    struct pgcb_sum *sums;    /* each batch's checksum, as run_batch would fold it */
    uint32_t done;            /* batches that completed (all, on PGCB_OK) */
    uint64_t cpu_ns;          /* CPU time of the timed batches: every process and thread
                                 that worked for them (an adapter's GC and JIT included) */
    uint64_t outside_cpu_ns;  /* CPU time the driver's other processes spent on the block
                                 outside the timed batches (an adapter's encoding, IPC) */
};

/* What a driver's connections ask of the server (ABI 1.3, protocol): the
 * choices that change the server's work, so that the runner can compare like
 * with like and say where drivers differ. 0 in any field: unknown (the
 * driver does not say, or it talks to no server). */
enum pgcb_format {
    PGCB_FORMAT_TEXT = 1,       /* every result column in text */
    PGCB_FORMAT_BINARY = 2      /* binary for the types the driver converts, text for the rest */
};
enum pgcb_describe {
    PGCB_DESCRIBE_PER_EXECUTION = 1, /* a Describe (portal) with every execution, as libpq */
    PGCB_DESCRIBE_ONCE = 2           /* the statement described once, at prepare */
};
enum pgcb_sync {
    PGCB_SYNC_PER_QUERY = 1,    /* a Sync after every execution (an error aborts only it) */
    PGCB_SYNC_PER_BATCH = 2     /* one Sync per batch (an error aborts the rest of the batch) */
};
enum pgcb_statements {
    PGCB_STMT_NAMED = 1,        /* a named statement, parsed once, at prepare */
    PGCB_STMT_UNNAMED = 2       /* parsed again with every execution */
};
struct pgcb_protocol {
    uint32_t result_format;     /* enum pgcb_format */
    uint32_t describe;          /* enum pgcb_describe */
    uint32_t sync;              /* enum pgcb_sync */
    uint32_t statements;        /* enum pgcb_statements */
};

/* One COPY ... FROM STDIN (ABI 1.4, run_copy). `sql` is the whole COPY
 * statement, e.g. "COPY t (a, b) FROM STDIN (FORMAT binary)", sent as it is
 * (a simple Query: COPY cannot be prepared); `data` is the payload, `len`
 * bytes in the statement's format, complete (a binary payload has its
 * header and trailer), streamed as CopyData messages of at most
 * PGCB_COPY_CHUNK bytes each, then CopyDone. `rows` is the number of rows
 * the payload holds (the server's count after a good COPY). Everything
 * belongs to the runner and stays valid until the call returns. */
struct pgcb_copy {
    const char *sql;
    const char *data;
    size_t len;
    uint64_t rows;
};

/* The most bytes of one CopyData message a driver sends (the shipped drivers
 * all cut the payload alike, so that the server sees the same messages). */
#define PGCB_COPY_CHUNK 65536u

/* How a load issues its queries (ABI 1.5, struct pgcb_load.mode). */
enum pgcb_load_mode {
    /* `concurrency` closed loops: each issues its next query as soon as the
     * reply to its last is in (MagicStack's pgbench). */
    PGCB_LOAD_CLOSED = 1,
    /* An open loop: query i is due at start + i / rate seconds, whether or
     * not earlier ones are answered; it is issued when due if fewer than
     * `concurrency` are in flight, else as soon as one completes. Its
     * latency counts from when it was due (wrk2), so a stall shows in every
     * query held up behind it, never hidden (no coordinated omission). */
    PGCB_LOAD_RATE = 2
};

/* One timed load over a pool (ABI 1.5, run_load). A query is "in flight"
 * from when it is issued (handed to the client, or waiting in the client's
 * pool for a free connection) until its reply is completely read and
 * folded. Issue order numbers the queries 0, 1, 2 ...; query i binds
 * params->values[i * params->nparams + j] as $j+1 when params is set.
 * The driver keeps issuing while (elapsed < duration_ns or issued <
 * min_queries) and issued < max_queries, where elapsed is counted from the
 * load's start (its first clock read); then it stops issuing and waits for
 * every query in flight. Everything belongs to the runner. */
struct pgcb_load {
    struct pgcb_stmt *stmt;
    uint32_t mode;                /* enum pgcb_load_mode */
    uint32_t concurrency;         /* queries in flight at most (>= 1) */
    double rate;                  /* PGCB_LOAD_RATE: queries per second, over the pool */
    uint64_t duration_ns;
    uint64_t min_queries;
    uint32_t max_queries;         /* entries of the out arrays (>= 1) */
    const struct pgcb_params *params; /* NULL: no parameters; else max_queries rows */
};

/* What run_load reports. The arrays are the runner's, max_queries entries
 * each, their contents undefined on the call (not zeroed: a block of 65536
 * is 1 MB of sums); the driver writes the first `done`, one per completed
 * query, in the order the queries completed. */
struct pgcb_load_out {
    uint64_t *latency_ns;     /* issue (PGCB_LOAD_RATE: due time) to reply, as the driver timed it */
    struct pgcb_sum *sums;    /* each query's checksum, as run_batch at depth 1 folds it */
    uint32_t done;            /* queries that completed (all those issued, on PGCB_OK) */
    uint64_t wall_ns;         /* the load's start to its last reply: done / wall_ns is its
                                 throughput */
    uint64_t cpu_ns;          /* CPU time of the client over wall_ns: every thread and
                                 process that worked for it (an adapter's GC and JIT
                                 included) */
    uint64_t late_ns;         /* PGCB_LOAD_RATE: how far behind its schedule the last query
                                 was issued (0: on time); 0 for PGCB_LOAD_CLOSED */
};

/* How run_stream reads its result (ABI 1.6, struct pgcb_stream.mode). */
enum pgcb_result_mode {
    /* The client's default: the whole result held in memory before the
     * caller sees a row (PQexecPrepared; pg's client.query()). */
    PGCB_RESULT_BUFFERED = 1,
    /* The client's streaming idiom: each row read, converted and folded as
     * it arrives, then dropped (libpq's single-row mode, a cursor). */
    PGCB_RESULT_STREAMED = 2
};

/* One whole result of one execution (ABI 1.6, run_stream): `stmt` once,
 * with params->values[j] as $j+1 when params is set, read in `mode`;
 * `fetch` is the rows per round trip of an idiom that fetches in chunks
 * (a cursor's FETCH, a fetch size), ignored by one that does not.
 * Everything belongs to the runner. */
struct pgcb_stream {
    struct pgcb_stmt *stmt;
    uint32_t mode;                    /* enum pgcb_result_mode */
    uint32_t fetch;                   /* >= 1 */
    const struct pgcb_params *params; /* NULL: no parameters; else one query's */
};

/* What run_stream reports, timed by the driver with CLOCK_MONOTONIC from
 * just before the query is issued (t0). */
#define PGCB_IDIOM_LEN 160
struct pgcb_stream_out {
    struct pgcb_sum sum;      /* every row folded as run_batch at depth 1 folds it (zeroed
                                 by the caller) */
    uint64_t first_row_ns;    /* t0 to the first row converted and folded (no rows: total) */
    uint64_t total_ns;        /* t0 to the last row folded and the result complete */
    uint64_t cpu_ns;          /* the client's CPU time from t0 to the end: every thread and
                                 process that worked for it; 0: the caller's thread's
                                 CPU clock around the call stands for it */
    char idiom[PGCB_IDIOM_LEN]; /* what was called, one line ("PQsetSingleRowMode"); the
                                 caller zeroes it */
};

/* The moments the runner tells a driver about (ABI 1.2, phase). */
enum pgcb_phase {
    PGCB_PHASE_WARMUP = 1,    /* a group's warm-up starts on this connection */
    PGCB_PHASE_ORDER = 2      /* an execution order's measurement starts */
};

struct pgcb_driver {
    /* --- ABI 1.0 ------------------------------------------------------- */

    /* PGCB_DRIVER_MAGIC. */
    uint32_t magic;
    /* PGCB_ABI_MAJOR / PGCB_ABI_MINOR of the header the driver was built
     * against. */
    uint16_t abi_major;
    uint16_t abi_minor;
    /* sizeof(struct pgcb_driver) as the driver saw it. */
    uint32_t struct_size;
    /* PGCB_CAP_* bits. */
    uint32_t caps;

    /* Short name, [a-z0-9_]+, e.g. "libpq_sync". Required. */
    const char *name;
    /* The driver's own version, e.g. "1.0.0". Required. */
    const char *version;
    /* What it links or implements, e.g. "libpq 15.18"; the entry function
     * may compute it on its first call (it must then stay valid until the
     * object is unloaded). Required; "" for nothing. */
    const char *links;
    /* One-line description. Optional (NULL). */
    const char *description;
    /* Options the driver accepts in its INI section, NULL-key terminated.
     * NULL for none. */
    const struct pgcb_option_spec *options;

    /* Open a connection. `conninfo` is a libpq connection string ("" means:
     * only the PG* environment variables and libpq's defaults); `opts` are
     * the driver's INI keys (already checked against `options`). On success
     * stores a new connection in *out and returns PGCB_OK; on failure stores
     * NULL, writes err and returns non-zero. The connection is owned by the
     * caller, who releases it with close(). Required. */
    int (*open)(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                struct pgcb_conn **out, char *err, size_t errlen);

    /* Close the connection and free everything it owns, including its
     * statements. Accepts NULL. Never fails. Required. */
    void (*close)(struct pgcb_conn *conn);

    /* Prepare `sql` as the server-side statement `name` (unique per
     * connection, [a-z0-9_]+). On success stores a handle in *out, owned by
     * the connection and valid until close(). Required. */
    int (*prepare)(struct pgcb_conn *conn, const char *name, const char *sql,
                   struct pgcb_stmt **out, char *err, size_t errlen);

    /* Execute `stmt` `depth` times (depth >= 1), with up to `depth` queries
     * in flight if the driver has PGCB_CAP_PIPELINE, otherwise one after
     * another. Read every result completely, convert every value by its type
     * into its C value and fold it into *sum (zeroed by the caller).
     * Called in the timed loop: it should not allocate per call once warmed
     * up. On failure returns non-zero and writes err; after PGCB_ERR_QUERY the
     * connection is usable again, after PGCB_ERR_IO / PGCB_ERR_PROTOCOL it is
     * not. Required. */
    int (*run_batch)(struct pgcb_conn *conn, struct pgcb_stmt *stmt, uint32_t depth,
                     struct pgcb_sum *sum, char *err, size_t errlen);

    /* --- ABI 1.1 ------------------------------------------------------- */

    /* Like run_batch, for a statement with parameters ($1, $2 ...): query i
     * of the batch (0 <= i < depth) binds params->values[i * nparams + j] as
     * parameter $j+1, in text format, of params->lengths[...] bytes (a NULL
     * value is SQL NULL; its length is ignored). Every value is valid text
     * for the server, not NUL-terminated in general. The arrays belong to the
     * runner and stay valid until the call returns; the driver copies what it
     * keeps. Parameter types are inferred by the server at prepare() time
     * (prepare sends no types). A wrong count of parameters is a
     * PGCB_ERR_QUERY from the server, not a crash. Everything else is as for
     * run_batch. Optional: without it (an ABI 1.0 driver), the runner skips
     * the driver for parameterized queries and says so. */
    int (*run_batch_params)(struct pgcb_conn *conn, struct pgcb_stmt *stmt, uint32_t depth,
                            const struct pgcb_params *params, struct pgcb_sum *sum,
                            char *err, size_t errlen);

    /* --- ABI 1.2 ------------------------------------------------------- */

    /* What a [driver.NAME] section with these options is, before any
     * connection: its capabilities and what it links (struct
     * pgcb_instance, zeroed by the caller). Called in the runner's own
     * process when the run loads its drivers and by --list-drivers, never
     * in a timed loop. Returns PGCB_OK, or PGCB_ERR_CONFIG (a bad option
     * value, a client that cannot be loaded) with err; or
     * PGCB_ERR_UNSUPPORTED with err when the options are right but name a
     * client that cannot run on this machine (a release that did not
     * install or build): the runner then fails that driver's cells with err
     * and measures the others (ABI 1.2 callers that know only CONFIG refuse
     * the run as before). Optional: without it, the descriptor's caps and
     * links stand for every section. */
    int (*instance)(const struct pgcb_option *opts, size_t nopts, struct pgcb_instance *out,
                    char *err, size_t errlen);

    /* A self-timed block, for a driver whose batches run elsewhere (the
     * bridge: in an adapter process) so that a round trip per batch would
     * land in every sample: run block->nbatches batches back to back, time
     * each, and fill *out. The runner calls it in its timed blocks instead
     * of calling run_batch once per batch, and reports the time the call
     * took beyond the samples as the driver's overhead. Each sum is what
     * run_batch would have folded for that batch. On failure returns the
     * failing batch's status with err; out->done batches completed before
     * it. Required with PGCB_CAP_SELF_TIMED, ignored without. */
    int (*run_block)(struct pgcb_conn *conn, const struct pgcb_block *block,
                     struct pgcb_block_out *out, char *err, size_t errlen);

    /* The runner is about to warm up or to measure an execution order on
     * this connection, outside any timing: a driver of a garbage-collected
     * language collects garbage. Optional; a failure fails the group. */
    int (*phase)(struct pgcb_conn *conn, enum pgcb_phase phase, char *err, size_t errlen);

    /* --- ABI 1.3 ------------------------------------------------------- */

    /* What connections opened with these options ask of the server (struct
     * pgcb_protocol, zeroed by the caller): result format, Describe, Sync,
     * statements. Called where instance() is (in the runner's process, when
     * the run loads its drivers and by --list-drivers), never in a timed
     * loop. The runner records it, compares it with the run's [bench]
     * result_format / describe / sync, and marks a driver that differs.
     * Returns PGCB_OK, or PGCB_ERR_CONFIG with err (options these choices
     * cannot be honoured with). Optional: without it, every choice is
     * recorded as unknown and the table says so.
     *
     * The runner passes the run's choices as options: when a driver's
     * `options` list has a key `result_format`, `describe` or `sync` that the
     * section does not set, the runner adds it with the run's value (text,
     * per_execution, per_query by default). A driver offering such a key
     * accepts those values or refuses them here. */
    int (*protocol)(const struct pgcb_option *opts, size_t nopts, struct pgcb_protocol *out,
                    char *err, size_t errlen);

    /* --- ABI 1.4 ------------------------------------------------------- */

    /* Run copy->sql (a COPY ... FROM STDIN) and stream copy->data to the
     * server as CopyData, then CopyDone; read the replies to ReadyForQuery
     * and store the server's row count (CommandComplete "COPY n") in *rows.
     * Returns PGCB_OK; PGCB_ERR_QUERY when the server refused the statement
     * or the data (err starts with the SQLSTATE: "42P01: relation \"x\"
     * does not exist", "22P04: extra data after last expected column") and
     * the connection is usable again; PGCB_ERR_IO / PGCB_ERR_PROTOCOL as for
     * run_batch (the connection is then unusable). A statement that is not a
     * COPY FROM STDIN (no CopyInResponse) is PGCB_ERR_UNSUPPORTED, the
     * connection usable. Called in the timed loop, one COPY per sample.
     * Optional: without it, the runner skips the driver for COPY queries and
     * says so. */
    int (*run_copy)(struct pgcb_conn *conn, const struct pgcb_copy *copy, uint64_t *rows,
                    char *err, size_t errlen);

    /* What the driver knows of the values of `stmt`'s last batch that a
     * checksum cannot say, in one line (no newline), into buf (len >= 1):
     * e.g. what a client of another language made of a column's values
     * ("column 4 \"ts\" (timestamptz): the client delivered Date"). ""
     * when there is nothing to say. The runner asks once per group, after
     * the group's first batch, outside any timing, and shows it with the
     * driver's line when that batch's checksum disagrees with the other
     * drivers'. Optional. */
    void (*note)(struct pgcb_conn *conn, struct pgcb_stmt *stmt, char *buf, size_t len);

    /* --- ABI 1.5 ------------------------------------------------------- */

    /* Open a pool of `nconns` connections (nconns >= 1), the way the
     * driver's users hold many connections in one process (N non-blocking
     * libpq connections, a client library's own pool), each as open() would
     * open it with these arguments. The pool is a struct pgcb_conn like any:
     * prepare() prepares on every connection of it (or registers the
     * statement with the client's pool, which prepares it per connection),
     * run_batch() and run_batch_params() run on one connection of it (the
     * runner primes, warms up and checks with them), phase() and note() apply
     * to it, close() closes every connection. Required with run_load. */
    int (*pool_open)(const char *conninfo, const struct pgcb_option *opts, size_t nopts,
                     uint32_t nconns, struct pgcb_conn **out, char *err, size_t errlen);

    /* Run one load (struct pgcb_load) over the pool `pool` (opened by
     * pool_open) in the calling thread: keep up to load->concurrency queries
     * of load->stmt in flight across the pool's connections, at most one per
     * connection at a time (a query issued while every connection is busy
     * waits in the client for a free one, and that wait is in its latency),
     * time each from issue to reply with CLOCK_MONOTONIC, fold it, and fill
     * *out. Called in the timed part, once per block of the load: it should
     * not allocate per query. On failure (a query the server refused, a
     * connection that broke) stop issuing, let the queries in flight finish
     * or fail, and return the first failure's status with err (for an I/O
     * failure naming the connection's server process); out->done queries
     * completed. After PGCB_ERR_QUERY the pool is usable again. Optional:
     * without it, the runner skips the driver in a concurrency suite and
     * says so. */
    int (*run_load)(struct pgcb_conn *pool, const struct pgcb_load *load,
                    struct pgcb_load_out *out, char *err, size_t errlen);

    /* --- ABI 1.6 ------------------------------------------------------- */

    /* Execute stream->stmt once and read its whole result in stream->mode
     * (struct pgcb_stream): buffered, as the client reads a result by
     * default, or streamed, through its own idiom for rows as they arrive,
     * each row converted, folded into out->sum and dropped, so that the
     * client's memory stays bounded whatever the result's size. Times
     * itself (struct pgcb_stream_out). Called in the timed part, once per
     * sample (a result of 100,000 rows or more). On failure -- the server
     * refused the statement or ended the result part way -- returns the
     * status with err, out->sum holding the rows folded before it; after
     * PGCB_ERR_QUERY the connection is usable again. A driver with no
     * streaming idiom returns PGCB_ERR_UNSUPPORTED for PGCB_RESULT_STREAMED,
     * saying so in err. Optional: without it, the runner skips the driver
     * in a streaming suite and says so. */
    int (*run_stream)(struct pgcb_conn *conn, const struct pgcb_stream *stream,
                      struct pgcb_stream_out *out, char *err, size_t errlen);

    /* --- ABI 1.7 and later: append new slots here, never reorder. ------ */
};

/* True if descriptor `d` (of ABI major PGCB_ABI_MAJOR) has slot `field`
 * set, where the slot was added in minor version `minor`. */
#define PGCB_DRIVER_HAS(d, minor, field)                                        \
    ((d)->abi_minor >= (minor) &&                                               \
     (d)->struct_size >= offsetof(struct pgcb_driver, field) + sizeof((d)->field) && \
     (d)->field != NULL)

/* The size of an ABI 1.0 descriptor: the smallest struct_size accepted.
 * (Slots by version: 1.0 open .. run_batch; 1.1 run_batch_params; 1.2
 * instance, run_block, phase; 1.3 protocol; 1.4 run_copy, note; 1.5 pool_open,
 * run_load; 1.6 run_stream.) */
#define PGCB_DRIVER_SIZE_1_0 \
    (offsetof(struct pgcb_driver, run_batch) + sizeof(void (*)(void)))

/* Signature of the entry function. */
typedef const struct pgcb_driver *(*pgcb_driver_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PGCB_DRIVER_H */
