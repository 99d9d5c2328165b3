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
// No option of its own (hello's options must be empty).
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

const EMPTY = Object.freeze([]);
const EXEC_OPTIONS = Object.freeze({ prepare: true, simple: false });
const noop = () => {};

// hello's result_format is not taken: postgres.js always asks for text.
function create(options) {
    parseOptions('postgres', options, {});
    const postgres = requireModule('postgres');
    const version = packageVersion('postgres');
    return new PostgresClient(postgres, {
        client_version: version,
        links: `postgres ${version} (pure JavaScript); Node.js ${process.version}`,
        pipeline: true,
        no_io: false,
        wire: { result_format: 'text', describe: 'once', sync: 'per_query', statements: 'named' },
    });
}

class PostgresClient {
    constructor(postgres, info) {
        this.postgres = postgres;
        this.info = info;
        this.sql = null;
        this.lost = null;
        this.exec = (h, values) => this.sql.unsafe(h.text, values === undefined ? EMPTY : values, EXEC_OPTIONS);
    }

    async connect(conn) {
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
            ssl: conn.sslmode === 'require' ? 'require' : false,
            idle_timeout: null,
            max_lifetime: null,
            onnotice: noop,
            onclose: () => { if (this.lost === null) this.lost = 'the connection was closed'; },
            connection: {},
        };
        // A socket directory: postgres.js derives `path` from a host holding
        // a '/' too; say it explicitly.
        if (typeof conn.host === 'string' && conn.host.startsWith('/')) {
            config.path = `${conn.host}/.s.PGSQL.${port}`;
        }
        if (conn.application_name !== undefined) config.connection.application_name = conn.application_name;
        if (conn.options !== undefined) config.connection.options = conn.options;

        let sql;
        try {
            sql = this.postgres(config);
        } catch (err) {
            throw new AdapterError('connect', messageOf(err));
        }
        this.sql = sql;
        this.lost = null;
        try {
            // postgres.js connects on the first query: open the connection
            // now, with a simple query (nothing prepared).
            await sql.unsafe('SELECT 1');
        } catch (err) {
            this.sql = null;
            sql.end({ timeout: 0 }).catch(noop);
            throw new AdapterError('connect', messageOf(err));
        }
        this.lost = null;
    }

    async prepare(stmt) {
        // Prepared by postgres.js on the first execution.
        stmt.handle = { text: stmt.sql };
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
            return new AdapterError('io', msg);
        }
        if (sqlstate !== null) return new AdapterError('query', msg, sqlstate);
        // postgres.js's own connection errors (CONNECTION_CLOSED, ECONNRESET ...)
        if (err && typeof err.code === 'string' && /^(CONNECT|E[A-Z]+$)/.test(err.code)) {
            return new AdapterError('io', msg);
        }
        return new AdapterError('protocol', msg);
    }

    async recover(inTransaction) {
        // postgres.js does not say whether the connection is in a
        // transaction: after a failed begin ... commit batch, roll back (a
        // ROLLBACK outside one is only a warning, which onnotice drops).
        if (this.sql === null || this.broken() || !inTransaction) return;
        await this.sql.unsafe('ROLLBACK');
    }

    async close() {
        const sql = this.sql;
        this.sql = null;
        if (sql === null) return;
        await sql.end({ timeout: 1 });
    }
}

module.exports = { create };
