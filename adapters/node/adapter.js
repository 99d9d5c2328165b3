'use strict';
// The Node.js adapter of pgclientbench's bridge driver: one process, one
// connection, driven over fd 3 with the bridge protocol, version 1
// (docs/bridge-protocol.md is the contract).
//
//   node --expose-gc --no-minor-gc-task --no-incremental-marking-task adapters/node/adapter.js
//
// Requests (one frame each, one reply each, nothing unasked): hello, connect
// (one connection, or with "pool" the client's own pool), prepare, run (with
// dump), load (a timed load over the pool), stream (one whole result,
// buffered or streamed), phase, close. The process exits when fd 3 reaches
// end of file, and with status 0 after `close`. Clients: pg, pg-native,
// postgres, null (lib/clients/). The timed loops are lib/block.js,
// lib/load.js and lib/stream.js, the folds lib/fold.js and
// lib/streamfold.js, the dump encoding lib/dump.js, the frames lib/frames.js.
//
// Nothing is printed on stdout or stderr except a fatal error with no request
// to report it to; the bridge keeps the tail of both for its messages.

// util.deprecate() notices (pg's "client.query() while a query is running",
// which a depth > 1 batch with pipeline=no triggers on purpose) would be
// printed on stderr in the middle of a timed block.
process.noDeprecation = true;

const net = require('net');
const { FrameReader, parseRequest, encodeFrame, encodeFrameText, encodeAsciiFrame, MAX_FRAME } = require('./lib/frames');
const { AdapterError, registerSecret, failureReply, oneLine, messageOf } = require('./lib/errors');
const { createClient } = require('./lib/clients');
const { setModuleDir, packageDir } = require('./lib/modules');

// module_dir: where each package of the client was resolved (for links).
function clientDirs(name) {
    const pkgs = name === 'pg-native' ? ['pg', 'pg-native'] : [name];
    return pkgs.map((p) => packageDir(p)).join(', ');
}
const { FoldCache, KIND_NAMES, kindsKeyOf } = require('./lib/fold');
const { BlockBuffers, runBlock } = require('./lib/block');
const { nodeRuntime } = require('./lib/runtime');
const { runLoad } = require('./lib/load');
const { runStream } = require('./lib/stream');
const { StreamFoldCache } = require('./lib/streamfold');
const { encodeResults } = require('./lib/dump');

const PROTOCOL = 1;
const ADAPTER_VERSION = '1.0.0';
const BRIDGE_FD = process.env.PGCB_BRIDGE_FD ? Number(process.env.PGCB_BRIDGE_FD) : 3;
const CLOSE_TIMEOUT_MS = 1500;

// ---- state of the one connection --------------------------------------------

let client = null;           // after hello
let helloDone = false;
let connected = false;
let pooled = false;          // connect carried "pool" (the client's own pool)
const stmts = new Map();     // the bridge's statement number -> {num, name, sql, nparams, handle, folds}
const bufs = new BlockBuffers();
let pending = null;          // the request being answered: {op, replied}
let exiting = false;

// ---- the socket --------------------------------------------------------------

const sock = new net.Socket({ fd: BRIDGE_FD, readable: true, writable: true, allowHalfOpen: false });
let queue = Promise.resolve();

const reader = new FrameReader(
    (payload) => { queue = queue.then(() => handleFrame(payload)); },
    (msg) => {
        // The stream cannot be resynchronised: say so and stop.
        queue = queue.then(() => {
            send({ ok: false, kind: 'protocol', error: oneLine(msg) });
            exitAfterFlush(2);
        });
    });

sock.on('data', (chunk) => reader.push(chunk));
sock.on('end', () => process.exit(0));            // end of file on fd 3: the bridge is gone
sock.on('error', (err) => {
    if (exiting) return;
    process.stderr.write(`pgcb node adapter: fd ${BRIDGE_FD}: ${messageOf(err)}\n`);
    process.exit(1);
});

function send(reply) {
    sendBytes(encodeFrame(reply));
}

function sendBytes(buf) {
    if (pending !== null) {
        if (pending.replied) return;  // one reply per request (a late one after a fatal error)
        pending.replied = true;
    }
    sock.write(buf);
}

function exitAfterFlush(status) {
    exiting = true;
    sock.end(() => process.exit(status));
    setTimeout(() => process.exit(status), 1000).unref();
}

// ---- fatal errors ------------------------------------------------------------

// An exception or rejection nothing handled: the state of the client is
// unknown. Report it to the pending request (kind io: the bridge closes the
// connection), or on stderr when there is none, and exit non-zero.
function fatal(what, err) {
    const msg = `${what}: ${oneLine(err && err.stack ? err.stack : messageOf(err), 1500)}`;
    if (pending !== null && !pending.replied && !exiting) {
        try {
            send({ ok: false, kind: 'io', error: oneLine(`node adapter: ${msg}`) });
        } catch (e) {
            // nothing more to do
        }
        exitAfterFlush(70);
        return;
    }
    process.stderr.write(`pgcb node adapter: ${msg}\n`);
    process.exit(70);
}

process.on('uncaughtException', (err) => fatal('uncaught exception', err));
process.on('unhandledRejection', (err) => fatal('unhandled rejection', err));

// ---- requests ----------------------------------------------------------------

async function handleFrame(payload) {
    let req;
    try {
        req = parseRequest(payload);
    } catch (err) {
        pending = null;
        send({ ok: false, kind: 'protocol', error: oneLine(err.message) });
        return;
    }
    pending = { op: req.op, replied: false };
    try {
        // A reply is an object, the JSON text of one (a dump), or a Buffer
        // holding the frame already (a block's reply).
        const reply = await dispatch(req);
        if (Buffer.isBuffer(reply)) sendBytes(reply);
        else if (typeof reply === 'string') sendBytes(encodeFrameText(reply));
        else send(reply);
    } catch (err) {
        // An AdapterError keeps its kind; anything else (a reply too big for
        // a frame, a bug) is "protocol".
        send(failureReply(err, 'protocol'));
    }
    const op = pending.op;
    pending = null;
    if (op === 'close') exitAfterFlush(0);
}

function dispatch(req) {
    switch (req.op) {
    case 'hello': return hello(req);
    case 'connect': return connect(req);
    case 'prepare': return prepare(req);
    case 'run': return run(req);
    case 'load': return load(req);
    case 'stream': return stream(req);
    case 'phase': return phase(req);
    case 'close': return close();
    default:
        throw new AdapterError('unsupported', `unknown request ${JSON.stringify(req.op)} (protocol ${PROTOCOL} has ` +
            'hello, connect, prepare, run, load, stream, phase, close)');
    }
}

function protocolError(msg) {
    return new AdapterError('protocol', msg);
}

async function hello(req) {
    if (helloDone) throw protocolError('hello was already sent');
    if (req.protocol !== PROTOCOL) {
        throw new AdapterError('unsupported', `the Node.js adapter speaks bridge protocol ${PROTOCOL}, ` +
            `not ${JSON.stringify(req.protocol)}`);
    }
    const format = req.result_format === undefined || req.result_format === null ? null : req.result_format;
    if (format !== null && format !== 'text' && format !== 'binary') {
        throw protocolError(`hello: "result_format" must be "text" or "binary", not ${JSON.stringify(format)}`);
    }
    if (req.module_dir !== undefined && req.module_dir !== null) {
        if (typeof req.module_dir !== 'string') throw protocolError('hello: "module_dir" must be a string');
        setModuleDir(req.module_dir);
    }
    client = createClient(req.client, req.options, format);
    helloDone = true;
    const info = client.info;
    const reply = {
        ok: true,
        protocol: PROTOCOL,
        adapter: 'node',
        adapter_version: ADAPTER_VERSION,
        runtime: nodeRuntime(),
        client: req.client,
        client_version: info.client_version,
        links: req.module_dir ? `${info.links}; client from ${clientDirs(req.client)}` : info.links,
        pipeline: info.pipeline,
        no_io: info.no_io,
        text_length: 'utf16',
    };
    // What the client really sends (absent for the null client: no I/O).
    if (info.wire) reply.wire = info.wire;
    // A pool in connect and the load request (every shipped client).
    if (info.load === true) reply.load = true;
    // The stream request (every client that talks to a server).
    reply.stream = info.stream === true;
    return reply;
}

async function connect(req) {
    if (!helloDone) throw protocolError('connect before hello');
    if (connected) throw protocolError('connect was already sent');
    const conn = req.conn === undefined ? null : req.conn;
    if (conn !== null) {
        if (typeof conn !== 'object' || Array.isArray(conn)) throw protocolError('"conn" must be an object or null');
        registerSecret(conn.password);
        for (const [k, v] of Object.entries(conn)) {
            if (typeof v !== 'string') throw protocolError(`conn.${k} must be a string`);
        }
    }
    if (client.info.no_io && conn !== null) throw protocolError('the null client takes "conn": null');
    if (!client.info.no_io && conn === null) throw protocolError('connect needs "conn" for this client');
    // "pool": P opens the client's own pool of P connections, all of them
    // before the reply; absent (or null), the one connection.
    const pool = req.pool === undefined || req.pool === null ? null : req.pool;
    if (pool !== null && (!isCount(pool, 1) || pool > 10000)) {
        throw protocolError('connect: "pool" must be an integer from 1 to 10000');
    }
    if (pool !== null && client.info.load !== true) {
        throw new AdapterError('unsupported', `client ${client.info.links} cannot hold a pool`);
    }
    await client.connect(conn, pool);
    connected = true;
    pooled = pool !== null;
    return { ok: true };
}

function requireConnection() {
    if (!connected) throw protocolError('no connection: connect first');
    if (client.broken()) {
        const why = client.lost ? `: ${client.lost}` : '';
        throw new AdapterError('io', `the connection to the server was lost${why}`);
    }
}

function isCount(x, min) {
    return Number.isSafeInteger(x) && x >= min;
}

async function prepare(req) {
    requireConnection();
    if (!isCount(req.stmt, 0)) throw protocolError('prepare: "stmt" must be an integer >= 0');
    if (typeof req.sql !== 'string') throw protocolError('prepare: "sql" must be a string');
    if (req.name !== undefined && req.name !== null && typeof req.name !== 'string') {
        throw protocolError('prepare: "name" must be a string');
    }
    const nparams = req.nparams === undefined || req.nparams === null ? 0 : req.nparams;
    if (!isCount(nparams, 0)) throw protocolError('prepare: "nparams" must be an integer >= 0');
    if (stmts.has(req.stmt)) throw protocolError(`statement ${req.stmt} is already prepared`);
    const stmt = {
        num: req.stmt, name: req.name || null, sql: req.sql, nparams, handle: null,
        folds: new FoldCache(), streamFolds: new StreamFoldCache(),
    };
    try {
        await client.prepare(stmt);
    } catch (err) {
        throw client.failure(err);
    }
    stmts.set(req.stmt, stmt);
    return { ok: true };
}

function statement(x, what, op = 'run') {
    if (!isCount(x, 0) || !stmts.has(x)) throw protocolError(`${op}: ${what} ${JSON.stringify(x)} is not a prepared statement`);
    return stmts.get(x);
}

const KIND_SET = new Set(KIND_NAMES);

// A request's "kinds": null, or a copy of the array of kind names.
function checkKinds(given, op) {
    const kinds = given === undefined ? null : given;
    if (kinds === null) return null;
    if (!Array.isArray(kinds) || !kinds.every((k) => KIND_SET.has(k))) {
        throw protocolError(`${op}: "kinds" must be null or an array of ${KIND_NAMES.join(', ')}`);
    }
    return kinds.slice();
}

// A request's "params": null, or `want` arrays of strings and nulls. The
// count of each array is not checked against nparams: a wrong count goes to
// the server, whose refusal is a `query` failure.
function checkParams(given, want, op, what) {
    const params = given === undefined ? null : given;
    if (params === null) return null;
    if (!Array.isArray(params) || params.length !== want) {
        throw protocolError(`${op}: "params" must be an array of ${what} = ${want} arrays`);
    }
    for (let i = 0; i < want; i++) {
        const p = params[i];
        if (!Array.isArray(p)) throw protocolError(`${op}: params[${i}] must be an array of values`);
        for (let j = 0; j < p.length; j++) {
            if (p[j] !== null && typeof p[j] !== 'string') {
                throw protocolError(`${op}: params[${i}][${j}] must be a string or null`);
            }
        }
    }
    return params;
}

function checkRun(req) {
    const stmt = statement(req.stmt, '"stmt"');
    if (!isCount(req.depth, 1)) throw protocolError('run: "depth" must be an integer >= 1');
    if (!isCount(req.batches, 1)) throw protocolError('run: "batches" must be an integer >= 1');
    const hasBegin = req.begin !== undefined && req.begin !== null;
    const hasCommit = req.commit !== undefined && req.commit !== null;
    if (hasBegin !== hasCommit) throw protocolError('run: "begin" and "commit" go together');
    const begin = hasBegin ? statement(req.begin, '"begin"') : null;
    const commit = hasCommit ? statement(req.commit, '"commit"') : null;
    const kinds = checkKinds(req.kinds, 'run');
    const dump = req.dump === true;
    if (dump && req.batches !== 1) throw protocolError('run: a dump runs one batch ("batches": 1)');
    const params = checkParams(req.params, req.batches * req.depth, 'run', 'batches * depth');
    return {
        stmt, begin, commit,
        depth: req.depth,
        batches: req.batches,
        params,
        kinds,
        kindsKey: kindsKeyOf(kinds),
        dump,
    };
}

async function run(req) {
    requireConnection();
    const plan = checkRun(req);
    bufs.ensure(plan.batches);
    // On a pool, the block runs on one connection checked out of it for the
    // whole request (before the block's clock starts), as the client's users
    // run a batch; it is given back after the failure handling below.
    try {
        await client.acquire();
    } catch (err) {
        throw client.failure(err);
    }
    try {
        return await runOn(plan);
    } finally {
        client.release();
    }
}

async function runOn(plan) {
    const out = await runBlock(client, plan, bufs);
    const n = out.done;
    const cpuNs = Math.round(out.cpuNs);
    if (out.error === null && !plan.dump) {
        // The common reply: a small head, then the arrays in a frame of
        // their own, copied from the typed arrays (no encoding at all).
        const arrays = bufs.arraysFrame(n);
        if (arrays !== null && arrays.length - 4 <= MAX_FRAME) {
            return Buffer.concat([encodeAsciiFrame(['{"ok":true,"arrays":"frame","cpu_ns":',
                String(cpuNs), '}']), arrays]);
        }
        return encodeAsciiFrame(['{"ok":true,"samples":"', bufs.samplesB64(n), '","rows":"', bufs.rowsB64(n),
            '","folds":"', bufs.foldsB64(n), '","cpu_ns":', String(cpuNs), '}']);
    }
    const partial = {
        samples: bufs.samplesB64(n),
        rows: bufs.rowsB64(n),
        folds: bufs.foldsB64(n),
        cpu_ns: cpuNs,
    };
    if (out.error !== null) {
        let err = client.failure(out.error);
        if (err.kind === 'query') {
            // The connection must work for the next request.
            try {
                await client.recover(plan.begin !== null);
            } catch (e) {
                err = client.failure(e);
                if (err.kind === 'query') err = new AdapterError('io', `cannot roll back after a failed batch: ${messageOf(e)}`);
            }
        }
        if (client.broken() && err.kind !== 'io') err = new AdapterError('io', err.message);
        return failureReply(err, 'protocol', Object.assign({ done: n }, partial));
    }
    const reply = Object.assign({ ok: true }, partial);
    // The dump: encoded now, after the batch was timed and folded.
    const entries = out.last.map((r) => ({ columns: client.columnsOf(r), rows: client.rowsOf(r) }));
    const head = JSON.stringify(reply);
    return `${head.slice(0, -1)},"results":${encodeResults(entries, client.dumpOptions)}}`;
}

function checkLoad(req) {
    if (!pooled) throw protocolError('load: the connection is not a pool (connect with "pool")');
    const stmt = statement(req.stmt, '"stmt"');
    if (req.mode !== 'closed' && req.mode !== 'rate') throw protocolError('load: "mode" must be "closed" or "rate"');
    if (!isCount(req.concurrency, 1)) throw protocolError('load: "concurrency" must be an integer >= 1');
    if (req.mode === 'rate' && !(typeof req.rate === 'number' && req.rate > 0 && Number.isFinite(req.rate))) {
        throw protocolError('load: a rate load needs "rate" > 0 (queries per second)');
    }
    if (!isCount(req.duration_ns, 0)) throw protocolError('load: "duration_ns" must be an integer >= 0');
    if (!isCount(req.min_queries, 0)) throw protocolError('load: "min_queries" must be an integer >= 0');
    if (!isCount(req.max_queries, 1) || req.max_queries > 1 << 26) {
        throw protocolError('load: "max_queries" must be an integer from 1 to 2^26');
    }
    const kinds = checkKinds(req.kinds, 'load');
    const params = checkParams(req.params, req.max_queries, 'load', 'max_queries');
    return {
        stmt,
        mode: req.mode,
        concurrency: req.concurrency,
        rate: req.mode === 'rate' ? req.rate : 0,
        durationNs: req.duration_ns,
        minQueries: req.min_queries,
        maxQueries: req.max_queries,
        params,
        kinds,
        kindsKey: kindsKeyOf(kinds),
    };
}

// A timed load (lib/load.js): the reply's head, then the arrays frame of the
// `done` queries in completion order (with done 0, which no frame can carry,
// the three arrays as empty base64 strings).
async function load(req) {
    requireConnection();
    const plan = checkLoad(req);
    bufs.ensure(plan.maxQueries);
    const out = await runLoad(client, plan, bufs);
    const n = out.done;
    const head = { done: n, wall_ns: Math.round(out.wallNs), cpu_ns: Math.round(out.cpuNs), late_ns: Math.round(out.lateNs) };
    let reply;
    if (out.error === null) {
        reply = Object.assign({ ok: true }, head);
    } else {
        // A connection that broke ends in the pool's events a moment after
        // its query failed: let them run, so that the message can name it.
        await new Promise((resolve) => setImmediate(resolve));
        let err = client.failure(out.error);
        if (err.kind === 'query') {
            // The pool must work for the next request, every connection open.
            try {
                await client.recover(false);
            } catch (e) {
                err = client.failure(e);
                if (err.kind === 'query') err = new AdapterError('io', `cannot reopen the pool after a failed load: ${messageOf(e)}`);
            }
        }
        reply = failureReply(err, 'protocol', head);
    }
    const arrays = bufs.arraysFrame(n);
    if (arrays !== null && arrays.length - 4 <= MAX_FRAME) {
        reply.arrays = 'frame';
        return Buffer.concat([encodeFrame(reply), arrays]);
    }
    reply.samples = bufs.samplesB64(n);
    reply.rows = bufs.rowsB64(n);
    reply.folds = bufs.foldsB64(n);
    return reply;
}

function checkStream(req) {
    const stmt = statement(req.stmt, '"stmt"', 'stream');
    if (req.mode !== 'buffered' && req.mode !== 'streamed') {
        throw protocolError('stream: "mode" must be "buffered" or "streamed"');
    }
    // fetch: the rows per round trip of a chunked idiom (ignored by buffered).
    const fetch = req.fetch === undefined || req.fetch === null ? null : req.fetch;
    if (fetch !== null && !isCount(fetch, 1)) throw protocolError('stream: "fetch" must be an integer >= 1');
    if (fetch === null && req.mode === 'streamed') throw protocolError('stream: streamed needs "fetch" (an integer >= 1)');
    const params = checkParams(req.params === undefined || req.params === null ? null : [req.params], 1,
        'stream', 'one');
    return { stmt, mode: req.mode, fetch, values: params === null ? undefined : params[0] };
}

// One whole result, timed (lib/stream.js): the reply carries the rows the
// client delivered, the first row's and the whole result's times, the CPU
// time, the idiom and every column's [kind, nulls, sum]; a failure the same
// rows count. After a `query` failure the connection is left idle, outside
// any transaction (client.recover), for the next request.
async function stream(req) {
    if (helloDone && client !== null && client.info.stream !== true) {
        throw new AdapterError('unsupported', `${client.info.links.split(';')[0]}: talks to no server, ` +
            'so it has no stream');
    }
    requireConnection();
    const plan = checkStream(req);
    const idiom = client.streamIdiom(plan.mode, plan.fetch);
    try {
        await client.acquire();
    } catch (err) {
        throw client.failure(err);
    }
    try {
        const out = await runStream(client, plan);
        if (out.error === null) {
            return {
                ok: true, rows: out.rows, first_row_ns: out.firstNs, total_ns: out.totalNs,
                cpu_ns: Math.round(out.cpuNs), idiom, columns: out.columns,
            };
        }
        let err = client.failure(out.error);
        if (err.kind === 'query') {
            try {
                await client.recover(false);
            } catch (e) {
                err = client.failure(e);
                if (err.kind === 'query') err = new AdapterError('io', `cannot recover after a failed stream: ${messageOf(e)}`);
            }
        }
        if (client.broken() && err.kind !== 'io') err = new AdapterError('io', err.message);
        return failureReply(err, 'protocol', { rows: out.rows });
    } finally {
        client.release();
    }
}

// Garbage is collected before a group's warm-up, as the public benchmark does
// before each task's warm-up, and never right before an execution order: a
// forced full GC leaves V8 busier for the next ~200 ms (sweeping on its
// helper threads, which share the measuring CPU, and a young generation that
// grows back): at LIMIT 1 the adapter's CPU per query doubled for the first
// ~3000 queries after it (docs/clients.md, "Garbage collection"), inside the
// order's samples. Each order runs in the state the warm-up left, as an
// application that keeps running does.
async function phase(req) {
    if (typeof req.phase !== 'string') throw protocolError('phase: "phase" must be a string');
    if (req.phase !== 'warmup') return { ok: true, gc: false };
    if (typeof global.gc === 'function') {
        global.gc();
        return { ok: true, gc: true };
    }
    return { ok: true, gc: false };
}

async function close() {
    const c = client;
    client = null;
    connected = false;
    if (c !== null) {
        // Best effort, bounded: the bridge kills the adapter 2 s after close.
        let timer;
        await Promise.race([
            c.close().catch(() => {}),
            new Promise((resolve) => { timer = setTimeout(resolve, CLOSE_TIMEOUT_MS); }),
        ]);
        clearTimeout(timer);
    }
    return { ok: true };
}
