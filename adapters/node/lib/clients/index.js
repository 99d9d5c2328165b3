'use strict';
// The clients of the Node.js adapter, by the name `hello` gives.
//
// Contract of a client (what adapter.js and block.js use):
//   create(options, resultFormat) -> client, or throws AdapterError "config" (a
//     bad option, a module that cannot be loaded). `options` are the strings of
//     hello's `options`; options.js checks them. resultFormat is hello's
//     result_format, 'text' or 'binary', or null (not asked: the client's own
//     default); a client that cannot choose ignores it and says so in `wire`.
//   client.info: {client_version, links, pipeline, no_io, load, stream, wire}
//     for hello's reply; load: true when the client can hold a pool and run
//     loads; stream: true when it answers the `stream` request (below);
//     wire (absent for a no_io client): what the client really sends,
//     {result_format, describe, sync, statements}, as read in its source and
//     checked on the wire by tests/server/test_wire_claims.c.
//   async client.connect(conn, pool): opens the one connection (pool null)
//     or the client's own pool of `pool` connections, every one open before
//     it resolves (conn null for a no_io client); throws AdapterError
//     "connect".
//   async client.acquire() / client.release(): around a run request; on a
//     pool, check one connection out for it (exec then runs there) and give
//     it back; no-ops on one connection.
//   client.loadExec(handle, values) -> Promise of one result: one execution
//     through the pool, the client's pool idiom (lib/load.js's hot path).
//   async client.prepare(stmt): makes stmt ({num, name, sql, nparams}) ready
//     and sets stmt.handle, what exec() takes; throws like a batch.
//   client.exec(handle, values) -> Promise of one result: one execution, the
//     client's idiom; values undefined (no parameters) or an array of strings
//     and nulls. The hot path: no allocation beyond the client's own.
//   client.streamIdiom(mode, fetch) -> the `stream` reply's idiom line for
//     mode 'buffered' (exec, the whole result held) or 'streamed'; throws
//     AdapterError "unsupported" when the client has no idiom for it.
//   client.streamRows(handle, values, fetch, sink) -> Promise: one execution
//     through the client's streaming idiom (`fetch` rows per round trip where
//     it fetches in chunks), each row handed to sink.row(r) or each chunk to
//     sink.chunk(rows) (streamfold.js) as it arrives, none kept; settles once
//     the client reported the result complete or failed and the connection is
//     idle again (the idiom's portal closed).
//   client.rowsOf(result) -> the rows (objects keyed by column name).
//   client.namesOf(result) -> the column names, in order.
//   client.columnsOf(result) -> [{name, type: OID}] for a dump.
//   client.dumpOptions (optional) -> dump.js's encodeResults options: how
//     the client made its values ({timestampLocal: true} for postgres.js).
//   client.failure(err) -> AdapterError: kind "query" with the SQLSTATE when
//     the server refused a statement and the connection still works, "io" when
//     the connection broke, "protocol" for any other refusal.
//   async client.recover(inTransaction): after a failed batch, leaves the
//     connection idle outside any transaction (rolls back a failed one);
//     after a failed load, every connection of the pool open again.
//   client.broken() -> true once the connection is lost (then every later
//     request fails with "io": no client may reconnect behind our back);
//     client.lost: why (a message), or null.
//   client.unansweredWhere() (optional, pools) -> which server processes hold
//     a load's queries that were never answered ('' when it cannot say).
//   async client.close().

const { AdapterError } = require('../errors');

const CLIENTS = {
    'pg': () => require('./pg').create.bind(null, 'pg'),
    'pg-native': () => require('./pg').create.bind(null, 'pg-native'),
    'postgres': () => require('./postgres').create,
    'null': () => require('./null').create,
};

function clientNames() {
    return Object.keys(CLIENTS);
}

function createClient(name, options, resultFormat) {
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(CLIENTS, name)) {
        throw new AdapterError('config',
            `unknown client ${JSON.stringify(name)} (the Node.js adapter has: ${clientNames().join(', ')})`);
    }
    return CLIENTS[name]()(options == null ? {} : options, resultFormat == null ? null : resultFormat);
}

module.exports = { createClient, clientNames };
