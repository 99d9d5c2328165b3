'use strict';
// pg's streaming idiom for the `stream` request (lib/stream.js):
// pg-query-stream, a Readable over pg-cursor, consumed with 'data' events.
//
// Why this one: it is node-postgres's documented way to read a big result
// without holding it (node-postgres.com, "pg-query-stream"), and the
// Readable its users pipe or iterate; 'data' events are the cheapest way to
// consume a Readable (flowing mode: each pushed row is emitted at once, no
// promise per row as `for await` makes).
//
// What pg-cursor 2.22 sends (its index.js): Parse of the unnamed statement
// (the text parsed again every time: a cursor has no name to reuse), Bind to
// a named portal C_n, Describe portal, Flush; then per read(batchSize) an
// Execute of `batchSize` rows and a Flush; after CommandComplete a Close of
// the portal and the Sync. So the rows come `fetch` per round trip, each
// batch parsed into an array of at most `fetch` rows that is pushed row by row
// and dropped: memory bounded by `fetch`, no transaction of its own (the
// portal lives in the implicit one until the Sync). A server error mid-result
// makes pg-cursor send the Sync (the implicit transaction rolled back) and
// close the portal: the connection is idle when the stream emits 'error'.
// Its Bind asks for text results whatever the client's `binary` (idiom says
// so). It converts values with the client's type parsers (pg's query() sets
// the stream's Result._types to the client's).
//
// pg from 8.2x refuses a custom submittable on a client made with `pipeline:
// true` ("not supported in pipeline mode": its portal would answer the
// queries pipelined behind it). The adapter's client is idle between
// requests (every earlier query settled), so a stream runs with the client's
// `pipeline` off, as on a client not in pipeline mode, and puts it back once
// the stream has ended or failed (the client idle again).
//
// pg-cursor needs pg's JavaScript Connection (parse, bind, execute ...):
// pg's native client cannot run it, and pg-native itself (libpq's
// PQsendQueryPrepared, whole results) has no row-by-row API: pg-native has
// no streaming idiom.

const { requireModule, packageVersion, packageDir } = require('../modules');

let QueryStream = null;

function idiom(fetch, binary) {
    const dir = packageDir('pg-query-stream');
    return `client.query(new QueryStream(text, values, {batchSize: ${fetch}})), 'data' events: ` +
        `pg-query-stream ${packageVersion('pg-query-stream')} (pg-cursor ${packageVersion('pg-cursor', dir)}, ` +
        `${fetch} rows per fetch, unnamed statement${binary ? ', text results' : ''})`;
}

// One execution of `text` through pg-query-stream on pg Client c, each row
// to sink.row as it comes (lib/stream.js's contract of streamRows). It
// settles on the stream's 'end' or 'error' -- or on the client's 'end' when
// the connection is gone: pg-query-stream's destroy then waits for a
// ReadyForQuery that never comes (pg-cursor's close), and the stream never
// emits 'error'; the error is the one pg handed the query (its callback:
// the server's FATAL message, or pg's "Connection terminated").
function streamRows(c, text, values, fetch, sink) {
    if (QueryStream === null) QueryStream = requireModule('pg-query-stream');
    return new Promise((resolve, reject) => {
        const s = new QueryStream(text, values === undefined ? null : values, { batchSize: fetch });
        // The Result the rows are parsed by: its fields name the columns.
        sink.source = s._result;
        const pipelined = c.pipeline === true;
        if (pipelined) c.pipeline = false;
        let settled = false;
        let failed = null;
        const settle = (err) => {
            if (settled) return;
            settled = true;
            c.removeListener('end', ended);
            if (pipelined) c.pipeline = true;
            if (err) reject(err);
            else resolve();
        };
        const ended = () => settle(failed || new Error('the connection ended during the stream'));
        c.once('end', ended);
        s.on('data', (r) => sink.row(r));
        s.on('end', () => settle(null));
        s.on('error', settle);
        c.query(s, (err) => { if (err && failed === null) failed = err; });
    });
}

module.exports = { idiom, streamRows };
