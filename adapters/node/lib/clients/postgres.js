'use strict';
// Client `postgres` (porsager/postgres.js), the contract of clients/index.js.
//
// One connection: postgres({..., max: 1, prepare: true}). A statement runs as
// sql.unsafe(text, values, {prepare: true, simple: false}): postgres.js names
// and prepares it on its first execution on the connection (the statement
// cache is keyed by parameter types and text) and afterwards only binds and
// executes it. `simple: false` is needed because unsafe() without parameters
// otherwise uses the simple query protocol, which never prepares (the public
// benchmark's tagged template sql`...` is not simple either). The queries of a
// batch, issued at once, are pipelined on the one connection (up to the
// client's max_pipeline, 100, in flight).
//
// Settings beyond the connection's, and why:
//   max_lifetime: null, idle_timeout: null (the default) - postgres.js would
//     otherwise close and reopen its connection after 30 to 60 minutes, in the
//     middle of a run: one connection for the whole run, as the protocol says;
//   onnotice: a no-op - the default prints every notice on stdout (also in the
//     timed batches); pg ignores notices without a listener;
//   onclose: records that the connection is gone, because postgres.js would
//     reconnect silently on the next query: here the next request fails "io".
//
// A pool (connect with "pool": P; docs/clients.md, "Concurrency suites"):
// postgres({max: P, ...the same settings}). All P connections are opened before
// connect replies: P sql.reserve() at once (postgres.js opens a connection for
// each, as it does for P queries when none is idle), each asked its server
// process id, then released. A load's query is the same sql.unsafe(...) on the
// pool, which gives it to an idle connection. When every connection is busy,
// postgres.js by default pipelines the query onto a busy one (up to
// max_pipeline, 100, per connection); the ABI's load keeps at most one query
// per connection, the others waiting in the client for a free one, which
// postgres.js does with max_pipeline: 1 -- the default here, pool_pipeline=no.
// pool_pipeline=yes keeps postgres.js's own max_pipeline (a variant: more
// queries in flight than connections). `run` on a pool runs on one reserved
// connection (sql.reserve(), released after the request); with max_pipeline 1
// its batches run one query after another there.
//
// Options: pool_pipeline = no | yes (default no), for a pool only (above).
//
// What goes on the wire (hello's `wire`, checked by
// tests/server/test_wire_claims.c): the first execution sends Parse (a named
// statement) and Describe statement, and from then on each execution is Bind,
// Execute and Sync (connection.js: prepared() + ExecuteUnnamed, which carries
// the Sync): described once, a Sync per query. Its Bind asks for no result
// format codes: every column in text. postgres.js has no setting for binary
// results, so hello's result_format = binary is not honoured, and `wire`
// says text.

const { AdapterError, messageOf, isSqlstate } = require('../errors');
const { requireModule, packageVersion } = require('../modules');
const { parseOptions } = require('./options');
const { nodeRuntime } = require('../runtime');

const EMPTY = Object.freeze([]);
const EXEC_OPTIONS = Object.freeze({ prepare: true, simple: false });
const noop = () => {};
const asText = (x) => '' + x;

// hello's result_format is not taken: postgres.js always asks for text.
function create(options) {
    const opts = parseOptions('postgres', options, { pool_pipeline: { values: ['no', 'yes'], dflt: 'no' } });
    // postgres.js 3 is a CommonJS function; 4 an ES module whose require()
    // (Node.js >= 20.19) is its namespace, the function its default.
    const mod = requireModule('postgres');
    const esm = typeof mod !== 'function';
    const postgres = esm ? mod.default : mod;
    const version = packageVersion('postgres');
    return new PostgresClient(postgres, esm, opts.pool_pipeline === 'yes', {
        client_version: version,
        links: `postgres ${version} (pure JavaScript${opts.pool_pipeline === 'yes' ? ', pool_pipeline' : ''}); ` +
            `${nodeRuntime()}`,
        pipeline: true,
        no_io: false,
        load: true,
        stream: true,
        wire: { result_format: 'text', describe: 'once', sync: 'per_query', statements: 'named' },
    });
}

class PostgresClient {
    constructor(postgres, esm, poolPipeline, info) {
        this.postgres = postgres;
        this.esm = esm;           // postgres.js 4 (an ES module), not 3
        this.poolPipeline = poolPipeline;
        this.info = info;
        this.sql = null;       // the connection, or the pool
        this.cur = null;       // what exec runs on: sql, or a connection reserved for a run
        this.pooled = false;
        this.pids = [];        // the pool's server processes
        this.lost = null;
        this.exec = (h, values) => this.cur.unsafe(h.text, values === undefined ? EMPTY : values, EXEC_OPTIONS);
        this.loadExec = (h, values) => this.sql.unsafe(h.text, values === undefined ? EMPTY : values, EXEC_OPTIONS);
    }

    async connect(conn, pool) {
        if (conn === null || typeof conn !== 'object') {
            throw new AdapterError('protocol', 'connect needs "conn" for this client');
        }
        const port = conn.port === undefined ? 5432 : Number(conn.port);
        const config = {
            host: conn.host,
            port,
            username: conn.user,
            password: conn.password,
            database: conn.dbname,
            max: 1,
            prepare: true,
            // A pool's closing connections are lost connections too.
            ssl: conn.sslmode === 'require' ? 'require' : false,
            idle_timeout: null,
            max_lifetime: null,
            onnotice: noop,
            onclose: () => { if (this.lost === null) this.lost = this.lostMessage(); },
            connection: {},
        };
        // A socket directory: postgres.js derives `path` from a host holding
        // a '/' too; say it explicitly.
        if (typeof conn.host === 'string' && conn.host.startsWith('/')) {
            config.path = `${conn.host}/.s.PGSQL.${port}`;
        }
        if (conn.application_name !== undefined) config.connection.application_name = conn.application_name;
        if (conn.options !== undefined) config.connection.options = conn.options;
        const size = pool === null || pool === undefined ? 0 : pool;
        if (size > 0) {
            config.max = size;
            if (!this.poolPipeline) config.max_pipeline = 1;
        }

        let sql;
        try {
            sql = this.postgres(config);
        } catch (err) {
            throw new AdapterError('connect', messageOf(err));
        }
        // Parameters are the bridge's text, bound as they are (the protocol's
        // rule, every client alike). postgres.js serializes each parameter by
        // the type the server described for it -- its bool serializer makes
        // any string 'f' (x === true ? 't' : 'f'), its json one quotes it
        // again -- so that pg_type's typisdefined = 'true' matched no row.
        // postgres.js 3's Bind only serializes a type `in
        // options.serializers`: a view of them that has none leaves every
        // parameter as its text ('' + x). postgres.js 4 looks each type's
        // serializer up in its own table, which options.serializers views
        // (a Proxy without a set trap: assigning writes the table): every
        // serializer there made the text itself (arrays and domains are
        // derived from these).
        if (this.esm) {
            const table = sql.options.serializers;
            for (const oid of Object.keys(table)) table[oid] = asText;
        } else {
            sql.options.serializers = new Proxy(sql.options.serializers, { has: () => false });
        }
        this.sql = sql;
        this.cur = sql;
        this.pooled = size > 0;
        this.lost = null;
        try {
            // postgres.js connects on the first query: open the connection
            // now, with a simple query (nothing prepared); a pool's P at once.
            if (size > 0) await this.fill(size);
            else await sql.unsafe('SELECT 1');
        } catch (err) {
            this.sql = this.cur = null;
            sql.end({ timeout: 0 }).catch(noop);
            throw new AdapterError('connect', messageOf(err));
        }
        this.lost = null;
    }

    // Every connection of the pool open: `size` reserved at once, each asked
    // its server process id (a simple query), then released.
    // Where a load's unanswered queries wait: one of the pool's connections.
    unansweredWhere() {
        return this.pids.length === 0 ? '' : `a connection of the pool, server processes ${this.pids.join(', ')}`;
    }

    async fill(size) {
        const got = await Promise.allSettled(Array.from({ length: size }, () => this.sql.reserve()));
        const rs = got.filter((g) => g.status === 'fulfilled').map((g) => g.value);
        try {
            const bad = got.find((g) => g.status === 'rejected');
            if (bad !== undefined) throw bad.reason;
            const pids = await Promise.all(rs.map((r) => r.unsafe('SELECT pg_backend_pid() AS pid')));
            this.pids = pids.map((p) => p[0].pid);
        } finally {
            for (const r of rs) r.release();
        }
    }

    lostMessage() {
        if (!this.pooled) return 'the connection was closed';
        return `a connection of the pool was closed (server processes ${this.pids.join(', ')})`;
    }

    // On a pool: one reserved connection for a run request.
    async acquire() {
        if (this.pooled) this.cur = await this.sql.reserve();
    }

    release() {
        if (!this.pooled || this.cur === this.sql || this.cur === null) return;
        const r = this.cur;
        this.cur = this.sql;
        r.release();
    }

    async prepare(stmt) {
        // Prepared by postgres.js on the first execution.
        stmt.handle = { text: stmt.sql };
    }

    // The `stream` request (lib/stream.js): buffered is exec (the awaited
    // query, as `run` calls it); streamed is the same query's
    // .cursor(fetch, fn), the callback form: postgres.js calls fn with each
    // chunk of at most `fetch` rows (a fresh Result array per chunk, dropped
    // after) and awaits what it returns before the next Execute -- cheaper
    // than the async iterator's form, which makes promises and closures per
    // chunk around the same callback (query.js). On the wire (connection.js):
    // the statement named and prepared once, as for `run`; outside a
    // transaction the unnamed portal, Bind and Execute(fetch) then Flush,
    // Execute(fetch) again at each PortalSuspended, the Sync after
    // CommandComplete; a server error ends it with the Sync (the implicit
    // transaction rolled back, the portal gone). The query resolves after
    // the last chunk's fn.
    streamIdiom(mode, fetch) {
        if (mode === 'buffered') return 'await sql.unsafe(text, values, {prepare: true})';
        return `sql.unsafe(text, values, {prepare: true}).cursor(${fetch}, fn) (callback form, ${fetch} rows per fetch)`;
    }

    streamRows(h, values, fetch, sink) {
        return this.cur.unsafe(h.text, values === undefined ? EMPTY : values, EXEC_OPTIONS)
            .cursor(fetch, (rows) => { sink.chunk(rows); });
    }

    rowsOf(result) {
        return result;
    }

    namesOf(result) {
        const c = result.columns;
        if (!c) return [];
        const names = new Array(c.length);
        for (let i = 0; i < c.length; i++) names[i] = c[i].name;
        return names;
    }

    columnsOf(result) {
        return (result.columns || []).map((c) => ({ name: c.name, type: c.type }));
    }

    // postgres.js makes a timestamp's Date with new Date(text): a text
    // without a zone is local time (dump.js prints its local fields).
    get dumpOptions() {
        return { timestampLocal: true };
    }

    broken() {
        return this.lost !== null;
    }

    failure(err) {
        if (err instanceof AdapterError) return err;
        const msg = messageOf(err);
        const server = err instanceof this.postgres.PostgresError;
        const sqlstate = server && isSqlstate(err.code) ? err.code : null;
        const severity = server && typeof err.severity === 'string' ? err.severity : '';
        if (this.broken() || severity === 'FATAL' || severity === 'PANIC') {
            // A pool cannot say which connection: name its server processes.
            return new AdapterError('io', this.pooled ? `${msg} (a connection of the pool, server processes ` +
                `${this.pids.join(', ')})` : msg);
        }
        if (sqlstate !== null) return new AdapterError('query', msg, sqlstate);
        // postgres.js's own connection errors (CONNECTION_CLOSED, ECONNRESET ...)
        if (err && typeof err.code === 'string' && /^(CONNECT|E[A-Z]+$)/.test(err.code)) {
            return new AdapterError('io', msg);
        }
        return new AdapterError('protocol', msg);
    }

    async recover(inTransaction) {
        // postgres.js keeps a connection whose query failed: nothing to do
        // after a load (this.cur is the pool then).
        if (this.pooled && this.cur === this.sql) return;
        if (this.sql === null || this.broken()) return;
        // postgres.js does not say whether the connection is in a
        // transaction: after a failed begin ... commit batch, roll back (a
        // ROLLBACK outside one is only a warning, which onnotice drops).
        if (inTransaction) {
            await this.cur.unsafe('ROLLBACK');
            return;
        }
        // postgres.js 3 resets its row index only at CommandComplete and
        // PortalSuspended: after a result that failed part way (a cursor's or
        // a whole one's) the next query's rows would land after that many
        // holes. A query that completes (the ROLLBACK above, or this) resets it.
        if (!this.esm) await this.cur.unsafe('SELECT 1 WHERE false');
    }

    async close() {
        this.release();
        const sql = this.sql;
        this.sql = this.cur = null;
        if (sql === null) return;
        await sql.end({ timeout: 1 });
    }
}

module.exports = { create };
