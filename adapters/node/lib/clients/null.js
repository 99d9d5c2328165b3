'use strict';
// Client `null`: no I/O (hello's no_io), the counterpart of the C null
// driver: what the bridge, Node.js, the block loop and the fold cost per
// sample. The contract of clients/index.js.
//
// A statement yields rows of the benchmark table (sql/benchmark_rows.sql):
// n = the last `LIMIT <digits>` of its SQL (case-insensitive; 1 without one),
// row i (1-based) {id: i, int_value: 1337, string_value: 'wat',
// null_value: null, bool_value: false}, columns typed int4, int4, text, text,
// bool. The rows are built once per statement, not per batch; each execution
// is a new promise resolved with them, so a batch is Promise.all of `depth`
// promises, folded as real results are (every value read every time).
// Parameters are accepted and ignored. Option hang_after=N (default 0:
// never): a load's queries after the first N of the connection are never
// answered (a pool connection broken without an error: lib/load.js's settle
// time).
//
// A pool (connect with "pool": P) is a pool of nothing: a load's query is the
// same resolved promise, so that a load measures what the adapter's load loop,
// its P-independent event loop and the fold cost per query at a concurrency
// (lib/load.js), with no I/O at all.

const { AdapterError } = require('../errors');
const { parseOptions } = require('./options');
const { nodeRuntime } = require('../runtime');

const COLUMNS = Object.freeze([
    { name: 'id', type: 23 },
    { name: 'int_value', type: 23 },
    { name: 'string_value', type: 25 },
    { name: 'null_value', type: 25 },
    { name: 'bool_value', type: 16 },
]);
const NAMES = Object.freeze(COLUMNS.map((c) => c.name));

// The row count of a statement: its last LIMIT with a literal count.
function limitOf(sql) {
    let n = 1;
    const re = /\blimit\s+(\d+)/gi;
    let m;
    while ((m = re.exec(sql)) !== null) n = Number(m[1]);
    return n;
}

function makeRows(n) {
    const rows = new Array(n);
    for (let i = 0; i < n; i++) {
        rows[i] = { id: i + 1, int_value: 1337, string_value: 'wat', null_value: null, bool_value: false };
    }
    return rows;
}

const COUNT = { test: (v) => /^[0-9]{1,9}$/.test(v), what: 'a count 0..999999999' };

function create(options) {
    const opts = parseOptions('null', options, { hang_after: { values: COUNT, dflt: '0' } });
    return new NullClient(Number(opts.hang_after), {
        client_version: '1.0.0',
        links: `null client (no I/O); ${nodeRuntime()}`,
        pipeline: true,
        no_io: true,
        load: true,
        stream: false,  // no server: the stream request is unsupported
    });
}

class NullClient {
    constructor(hangAfter, info) {
        this.info = info;
        this.lost = null;
        this.exec = (h) => Promise.resolve(h.rows);
        this.loadExec = this.exec;
        if (hangAfter > 0) {
            let answered = 0;
            const never = new Promise(() => {});
            this.loadExec = (h) => (answered++ < hangAfter ? Promise.resolve(h.rows) : never);
        }
    }

    async connect(conn) {
        if (conn !== null && conn !== undefined) {
            throw new AdapterError('protocol', 'the null client does no I/O: connect takes "conn": null');
        }
    }

    async prepare(stmt) {
        const n = limitOf(stmt.sql);
        if (!Number.isSafeInteger(n) || n > 10000000) {
            throw new AdapterError('unsupported', `the null client makes at most 10000000 rows, not LIMIT ${n}`);
        }
        stmt.handle = { rows: makeRows(n) };
    }

    rowsOf(result) {
        return result;
    }

    namesOf() {
        return NAMES;
    }

    columnsOf() {
        return COLUMNS.map((c) => ({ name: c.name, type: c.type }));
    }

    broken() {
        return false;
    }

    failure(err) {
        if (err instanceof AdapterError) return err;
        return new AdapterError('protocol', err && err.message ? err.message : String(err));
    }

    async recover() {}

    async acquire() {}

    release() {}

    async close() {}
}

module.exports = { create, limitOf };
