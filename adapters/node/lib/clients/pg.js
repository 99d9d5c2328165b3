'use strict';
// Clients `pg` (brianc/node-postgres, pure JavaScript: pg.Client) and
// `pg-native` (the same API over pg-native and libpq: pg.native.Client), the
// contract of clients/index.js.
//
// Options:
//   pipeline = yes | no (default yes): the client's `pipeline: true`. pg keeps
//     the queries of a batch on the wire together (each its own Sync); pg's
//     native client sends the queries queued at once in libpq pipeline mode.
//     With `no` the client queues them and runs one after another.
//   flush_fix = yes | no (pg-native only, default yes): see drainReading() -
//     without it pg-native deadlocks on a pipeline too big for the socket
//     buffers.
//   types = pg-types-4 | bundled (default pg-types-4): the type parsers, as
//     `types: {getTypeParser}`. pg 8 bundles pg-types 2, whose int2/int4
//     parser is parseInt(x, 10); pg-types 4 parses them with Number (like
//     postgres.js's +x), leaves int8 and date as strings and parses
//     timestamps into Date.
//
// Result format (hello's result_format): pg asks for binary results of every
// column with its client config `binary: true` (and decodes them with the
// type parsers' binary ones), text otherwise (the default). pg-native cannot
// choose: its libpq addon passes resultFormat 0 (text) to PQsendQueryPrepared,
// so it stays text and says so in `wire`.
//
// What goes on the wire (hello's `wire`, checked by
// tests/server/test_wire_claims.c): both send Bind, Describe portal, Execute
// and Sync for every execution of a named statement (pg's Query.prepare
// always describes the portal; libpq's PQsendQueryPrepared does too), Parse
// only the first time. pg's pipeline writes each query with its own Sync;
// pg-native's pipeline() calls PQpipelineSync after each query.
//
// Statements are pg's named query configs {name, text} (one object per
// statement, as the public benchmark keeps its QueryConfig), executed as
// client.query(config, values): pg parses a name once per connection, then
// only binds and executes it. The native client is prepared at `prepare` time
// through pg-native's own prepare() and then registered as pg registers a name
// it has prepared, because pg's native pipeline prepares a name again for
// every query of the first pipeline that uses it (42P05 when one pipeline holds
// several: begin + depth > 1 executions + commit, say).
//
// A pool (connect with "pool": P; docs/clients.md, "Concurrency suites"):
// `new pg.Pool({max: P, ...the same settings})`, for pg-native
// `new pg.native.Pool(...)`, with idleTimeoutMillis 0 (pg-pool would close an
// idle connection after 10 s, and open a new one inside a timed load). All P
// are opened before connect replies (fill(): P pool.connect() at once, then
// released), and each one's server process id is kept for messages. A load's
// query is `pool.query(config, values)` with the statement's config, the
// types and binary settings of the pool's clients: the same conversion as a
// batch's. pg-pool destroys a client whose query failed; recover() after a
// load's failure opens the pool back up to P. The named statement: pg parses
// it on each pool client's first use (in the warm-up); pg-native prepares it
// at `prepare` on every pool connection (see above). `run` on a pool checks one
// client out (acquire) for the request and gives it back (release).

const { AdapterError, messageOf, isSqlstate } = require('../errors');
const { requireModule, packageVersion, packageDir, mappedLibrary } = require('../modules');
const { parseOptions } = require('./options');
const { nodeRuntime } = require('../runtime');
const pgStream = require('./pg_stream');

const OPTIONS = {
    pipeline: { values: ['yes', 'no'], dflt: 'yes' },
    types: { values: ['pg-types-4', 'bundled'], dflt: 'pg-types-4' },
};
const NATIVE_OPTIONS = Object.assign({ flush_fix: { values: ['yes', 'no'], dflt: 'yes' } }, OPTIONS);

// How often a native flush that cannot complete is retried (see drainReading).
const FLUSH_RETRY_MS = 1;

// pg's own statement-name limit warning (console.error on every execution
// of the native client) and the server's NAMEDATALEN: longer names are
// replaced by a short one of ours.
const MAX_NAME_BYTES = 63;

function create(variant, options, resultFormat) {
    const native = variant === 'pg-native';
    const opts = parseOptions(variant, options, native ? NATIVE_OPTIONS : OPTIONS);
    // NODE_PG_FORCE_NATIVE would make pg.Client the native client.
    delete process.env.NODE_PG_FORCE_NATIVE;
    const pg = requireModule('pg');
    let Client = pg.Client;
    let links;
    const pgVersion = packageVersion('pg');
    const pgDir = packageDir('pg');
    let types;
    let typesText;
    if (opts.types === 'pg-types-4') {
        const pgTypes = requireModule('pg-types');
        types = { getTypeParser: pgTypes.getTypeParser };
        typesText = `pg-types ${packageVersion('pg-types')}`;
    } else {
        types = undefined;
        typesText = `pg-types ${packageVersion('pg-types', pgDir)} (bundled)`;
    }
    if (native) {
        requireModule('pg-native');  // a missing or unbuilt addon is a config error naming it
        let nativePg = null;
        try {
            nativePg = pg.native;
        } catch (err) {
            throw new AdapterError('config', `cannot load pg's native client (${messageOf(err)}): run scripts/install-deps.sh`);
        }
        if (nativePg == null) {
            throw new AdapterError('config', "cannot load pg's native client (pg-native not found): run scripts/install-deps.sh");
        }
        Client = nativePg.Client;
        const nativeDir = packageDir('pg-native');
        const lib = mappedLibrary('libpq.so');
        const m = lib && /libpq\.so\.5\.(\d+)$/.exec(lib);
        const libpq = lib === null ? 'libpq (system)'
            : m ? `libpq ${m[1]} (system, ${lib})` : `libpq (system, ${lib})`;
        links = `pg ${pgVersion} native (pg-native ${packageVersion('pg-native')}, ` +
            `libpq addon ${packageVersion('libpq', nativeDir)}, ${libpq}), ${typesText}; ${nodeRuntime()}`;
    } else {
        links = `pg ${pgVersion} (pure JavaScript, pg-protocol ${packageVersion('pg-protocol', pgDir)}), ` +
            `${typesText}; ${nodeRuntime()}`;
        // A release of pg without the `pipeline` client config (pg 8.11,
        // say: `client = pg@8.11.5`) runs a batch's queries one after
        // another whatever it is asked: hello says so, and so does links.
        if (opts.pipeline === 'yes' && new Client({ pipeline: true }).pipeline !== true) {
            opts.pipeline = 'no';
            links = links.replace(' (pure JavaScript, ', ' (pure JavaScript, no pipeline option: one query after another, ');
        }
    }
    if (native && opts.flush_fix === 'yes') links = links.replace(' native (', ' native (flush fix, ');
    const binary = !native && resultFormat === 'binary';
    if (binary) links = links.replace(' (pure JavaScript, ', ' (pure JavaScript, binary results, ');
    return new PgClient(variant, pg, Client, opts.pipeline === 'yes', types, native && opts.flush_fix === 'yes', binary, {
        client_version: pgVersion,
        links,
        pipeline: opts.pipeline === 'yes',
        no_io: false,
        load: true,
        stream: true,
        wire: {
            result_format: binary ? 'binary' : 'text',
            describe: 'per_execution',
            sync: 'per_query',
            statements: 'named',
        },
    });
}

class PgClient {
    constructor(variant, pg, Client, pipeline, types, flushFix, binary, info) {
        this.variant = variant;
        this.native = variant === 'pg-native';
        this.pg = pg;
        this.Client = Client;
        this.pipeline = pipeline;
        this.types = types;
        this.flushFix = flushFix;
        this.binary = binary;
        this.info = info;
        this.client = null;
        this.lost = null;  // why the connection broke, once it has
        this.pool = null;  // pg.Pool or pg.native.Pool (connect with a pool)
        this.poolSize = 0;
        this.ended = null; // the server process id of the last pool client that ended
        this.failedPid = null; // that of the last pool client released after a failed query
        // The hot path: one call into pg per execution.
        this.exec = (config, values) => this.client.query(config, values);
        // A load's query: pg-pool checks a client out, runs it, gives it back.
        this.loadExec = (config, values) => this.pool.query(config, values);
    }

    async connect(conn, pool) {
        if (conn === null || typeof conn !== 'object') {
            throw new AdapterError('protocol', 'connect needs "conn" for this client');
        }
        const config = {
            host: conn.host,
            port: conn.port === undefined ? undefined : Number(conn.port),
            user: conn.user,
            password: conn.password,
            database: conn.dbname,
            pipeline: this.pipeline,
        };
        if (this.binary) config.binary = true;
        if (conn.application_name !== undefined) config.application_name = conn.application_name;
        if (conn.options !== undefined) config.options = conn.options;
        // libpq's sslmode=require encrypts without verifying the server;
        // the native client hands sslmode to libpq as it is.
        const tls = conn.sslmode === 'require';
        if (this.native) config.ssl = { sslmode: tls ? 'require' : 'disable' };
        else config.ssl = tls ? { rejectUnauthorized: false } : false;
        if (this.types !== undefined) config.types = this.types;
        if (pool !== null && pool !== undefined) return this.connectPool(config, pool);

        const client = new this.Client(config);
        // An error event without a listener would throw out of the event loop.
        client.on('error', (err) => { if (this.lost === null) this.lost = messageOf(err); });
        client.on('end', () => { if (this.lost === null) this.lost = 'the connection was closed'; });
        try {
            await client.connect();
        } catch (err) {
            try { client.end().catch(() => {}); } catch (e) { /* already closed */ }
            throw new AdapterError('connect', messageOf(err));
        }
        this.client = client;
        this.lost = null;
        if (this.flushFix) client.native._waitForDrain = drainReading;
    }

    async connectPool(config, size) {
        const Pool = this.native ? this.pg.native.Pool : this.pg.Pool;
        const pool = new Pool(Object.assign({}, config, { max: size, idleTimeoutMillis: 0 }));
        // An idle client's error is emitted on the pool (unhandled, it would
        // throw out of the event loop): the pool is broken then.
        pool.on('error', (err, c) => {
            if (this.lost === null) this.lost = `server process ${pidOf(c)}: ${messageOf(err)}`;
        });
        // pg-pool releases (and destroys) the client of a failed pool.query
        // before it rejects the query's promise: the failure's server process.
        pool.on('release', (err, c) => { if (err) this.failedPid = pidOf(c); });
        pool.on('connect', (c) => {
            c.on('end', () => { this.ended = pidOf(c); });
            if (this.flushFix) c.native._waitForDrain = drainReading;
        });
        this.pool = pool;
        this.poolSize = size;
        this.lost = null;
        this.ended = this.failedPid = null;
        try {
            await this.fill();
        } catch (err) {
            this.pool = null;
            pool.end().catch(() => {});
            throw new AdapterError('connect', messageOf(err));
        }
    }

    // Every one of the pool's connections open, all checked out at once, f
    // run on each (a client and its index), then all given back. Resolves
    // with f's results.
    async onEvery(f) {
        const got = await Promise.allSettled(Array.from({ length: this.poolSize }, () => this.pool.connect()));
        const clients = got.filter((g) => g.status === 'fulfilled').map((g) => g.value);
        try {
            const bad = got.find((g) => g.status === 'rejected');
            if (bad !== undefined) throw bad.reason;
            return await Promise.all(clients.map(f));
        } finally {
            for (const c of clients) c.release();
        }
    }

    // Open the pool up to its size; a new client's server process id is
    // asked once (pg has it from BackendKeyData, pg-native does not say).
    fill() {
        return this.onEvery(async (c) => {
            if (c.pgcbPid !== undefined) return;
            c.pgcbPid = this.native ? (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid : c.processID;
        });
    }

    // On a pool: one client for a run request (released by release()).
    async acquire() {
        if (this.pool === null) return;
        this.client = await this.pool.connect();
    }

    release() {
        if (this.pool === null || this.client === null) return;
        const c = this.client;
        this.client = null;
        // A client that broke is destroyed, not given back.
        c.release(c._queryable === false ? new Error('the connection broke') : undefined);
    }

    async prepare(stmt) {
        let name = typeof stmt.name === 'string' && stmt.name !== '' ? stmt.name : `pgcb_s${stmt.num}`;
        if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) name = `pgcb_s${stmt.num}`;
        // One config object per statement, reused by every execution (pg
        // copies it into a new Query each time).
        stmt.handle = { name, text: stmt.sql };
        if (!this.native) return;
        if (this.pool === null) await this.prepareNative(this.client, name, stmt.sql, stmt.nparams);
        else await this.onEvery((c) => this.prepareNative(c, name, stmt.sql, stmt.nparams));
    }

    // Prepares `name` with pg-native on `client` and records it in pg's
    // native client as pg does after it prepared a name itself
    // (client.namedQueries).
    prepareNative(client, name, text, nparams) {
        if (client.namedQueries[name] !== undefined) {
            if (client.namedQueries[name] === text) return Promise.resolve();
            return Promise.reject(new AdapterError('protocol', `statement name ${name} is already used for another statement`));
        }
        return new Promise((resolve, reject) => {
            client.native.prepare(name, text, nparams, (err) => {
                if (err) {
                    // pg-native's error carries only the message: take the
                    // fields from libpq's result, as pg's NativeQuery does.
                    const fields = client.native.pq.resultErrorFields();
                    if (fields) {
                        if (fields.sqlState) err.sqlState = fields.sqlState;
                        if (fields.severity) err.severity = fields.severity;
                        if (fields.messagePrimary) err.messagePrimary = fields.messagePrimary;
                    }
                    reject(err);
                    return;
                }
                client.namedQueries[name] = text;
                resolve();
            });
        });
    }

    // The `stream` request (lib/stream.js): buffered is exec (the named
    // config, as `run` calls it); streamed is pg-query-stream (pg_stream.js),
    // which pg's native client cannot run.
    streamIdiom(mode, fetch) {
        if (mode === 'buffered') {
            return `client.query({name, text}, values)${this.native ? ' on pg.native.Client' : ''} (named statement)`;
        }
        if (this.native) throw new AdapterError('unsupported', 'pg-native has no streaming idiom');
        return pgStream.idiom(fetch, this.binary);
    }

    streamRows(handle, values, fetch, sink) {
        return pgStream.streamRows(this.client, handle.text, values, fetch, sink);
    }

    rowsOf(result) {
        return result.rows;
    }

    namesOf(result) {
        const f = result.fields;
        const names = new Array(f.length);
        for (let i = 0; i < f.length; i++) names[i] = f[i].name;
        return names;
    }

    columnsOf(result) {
        return result.fields.map((f) => ({ name: f.name, type: f.dataTypeID }));
    }

    broken() {
        if (this.lost !== null) return true;
        const c = this.client;
        return c !== null && c._queryable === false;
    }

    // The message of a failure that broke a pool connection, naming its
    // server process: the failed query's, else the last one that ended.
    poolLost(msg) {
        const pid = this.failedPid !== null ? this.failedPid : this.ended;
        if (pid === null) return msg;
        return `server process ${pid}: ${msg}`;
    }

    // Where a load's unanswered queries wait: the server processes of the
    // pool's clients that are checked out (pg-pool 3's _clients and _idle,
    // read only when a load failed so).
    unansweredWhere() {
        if (this.pool === null) return '';
        const idle = new Set(this.pool._idle.map((item) => item.client));
        const out = this.pool._clients.filter((c) => !idle.has(c)).map(pidOf);
        return out.length === 0 ? '' : `server process${out.length > 1 ? 'es' : ''} ${out.join(', ')}`;
    }

    failure(err) {
        if (err instanceof AdapterError) return err;
        // pg-native's errors from a pipeline, and from our prepare, carry
        // libpq's whole message ("ERROR:  ...\nLINE 1: ..."): take the primary one.
        const msg = err && typeof err.messagePrimary === 'string' && err.messagePrimary !== ''
            ? err.messagePrimary : messageOf(err);
        // The server's error: pg's DatabaseError has .code; pg's native client
        // has .code outside a pipeline and .sqlState (libpq's field name) in one.
        // A socket's error (Node's system errors carry .syscall) is no
        // SQLSTATE, whatever its code: EPIPE has five capitals too.
        const socket = err !== null && typeof err === 'object' && typeof err.syscall === 'string';
        const sqlstate = err && !socket &&
            (isSqlstate(err.sqlState) ? err.sqlState : isSqlstate(err.code) ? err.code : null);
        const severity = err && typeof err.severity === 'string' ? err.severity : '';
        if (this.pool !== null && this.client === null) {
            // A load's failure (no client of ours checked out): a fatal
            // error, or none from the server while a connection ended.
            if (this.lost === null && (severity === 'FATAL' || severity === 'PANIC' || socket ||
                (sqlstate === null && this.ended !== null))) {
                this.lost = this.poolLost(msg);
            }
            if (this.lost !== null) return new AdapterError('io', this.lost);
        }
        if (this.broken() || severity === 'FATAL' || severity === 'PANIC') {
            return new AdapterError('io', this.lost !== null && sqlstate === null ? this.lost : msg);
        }
        if (sqlstate !== null) return new AdapterError('query', msg, sqlstate);
        return new AdapterError('protocol', msg);
    }

    async recover(inTransaction) {
        // After a load's failure: pg-pool destroyed the client that failed.
        if (this.pool !== null && this.client === null) {
            if (!this.broken()) await this.fill();
            return;
        }
        const c = this.client;
        if (c === null || this.broken()) return;
        // getTransactionStatus() is a newer pg's (not 8.16.3's); an older
        // release (module_dir) rolls back when the request had a transaction.
        const status = typeof c.getTransactionStatus === 'function' ? c.getTransactionStatus()
            : inTransaction ? 'T' : 'I';
        if (status === 'T' || status === 'E') await c.query('ROLLBACK');
    }

    async close() {
        const pool = this.pool;
        this.release();
        this.pool = null;
        if (pool !== null) {
            await pool.end();
            return;
        }
        const c = this.client;
        this.client = null;
        if (c === null) return;
        await c.end();
    }
}

// A pool client's server process id, for messages ("?" before it is known).
function pidOf(c) {
    if (c && c.pgcbPid !== undefined && c.pgcbPid !== null) return c.pgcbPid;
    if (c && typeof c.processID === 'number') return c.processID;
    return '?';
}

// pg-native 3.9.0 sends a whole pipeline before it reads any of it, and
// while libpq still holds data to send (PQflush returns 1) it waits only for
// the socket to become writable. libpq asks the caller to wait for read *or*
// write readiness and to read on read readiness: a server blocked writing its
// results to us (our receive buffer full) no longer reads our queries, so the
// socket never becomes writable and both wait for ever (depth 1000 of LIMIT 1
// or LIMIT 500 here: the server sits in ClientWrite). This replacement of
// pg-native's Client#_waitForDrain (installed on the connection's instance
// with flush_fix=yes) also retries the flush every FLUSH_RETRY_MS while it
// waits; libpq's PQflush reads what the server sent when it cannot write,
// which unblocks the server. When a flush completes at once (every batch that
// fits in the socket buffers) it does exactly what pg-native's does.
function drainReading(pq, cb) {
    const res = pq.flush();
    if (res === 0) return cb();
    if (res === -1) return cb(pq.errorMessage());
    let timer = null;
    let settled = false;
    const finish = (r) => {
        settled = true;
        clearTimeout(timer);
        pq.removeListener('writable', onWritable);
        // A write watcher left waiting emits one 'writable' nobody listens to,
        // or is replaced by the next reader or writer (one poll handle).
        if (r === 0) cb();
        else cb(pq.errorMessage());
    };
    const onWritable = () => {
        if (settled) return;
        clearTimeout(timer);
        settled = true;
        drainReading(pq, cb);
    };
    const onTimer = () => {
        if (settled) return;
        const r = pq.flush();
        if (r === 1) {
            timer = setTimeout(onTimer, FLUSH_RETRY_MS);
            return;
        }
        finish(r);
    };
    pq.writable(onWritable);
    timer = setTimeout(onTimer, FLUSH_RETRY_MS);
    return undefined;
}

module.exports = { create };
