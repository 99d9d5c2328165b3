'use strict';
// The timed block of a `run` request (docs/bridge-protocol.md, "run").
//
// Contract of runBlock(client, plan, bufs) -> outcome:
//   - runs plan.batches batches back to back; a batch is, issued at once,
//     [begin,] `depth` executions of the statement [, commit], then awaited
//     together (Promise.all; a lone execution is awaited directly), then the
//     depth results folded in order (fold.js) and their rows counted;
//   - one process.hrtime.bigint() read per batch: the end of one batch is the
//     start of the next; process.cpuUsage() just before the first read and
//     just after the last;
//   - each batch is one call of the async function runBatch, awaited (the
//     standalone loops' shape: see runBatch);
//   - between the first read and the last: no I/O with the bridge, no printing,
//     no garbage collection forced, and no allocation of its own beyond the
//     clock's BigInts, the array Promise.all returns and runBatch's promise;
//   - a batch that fails (a rejected execution, a throw) ends the block: every
//     promise of that batch is settled before runBlock returns, so that the
//     client is idle again (pipelined queries drained);
//   - returns {done, cpuNs, error (null or what was thrown), last (the results
//     of the last completed batch when plan.dump, else null)}; the first
//     `done` entries of bufs hold the samples, rows and folds.
//
// The client (clients/*.js) supplies exec(handle, values) -> Promise of a
// result, rowsOf(result) -> the rows, namesOf(result) -> column names.

const { FOLD_START } = require('./fold');

const FNV_PRIME = 16777619;

// Per-connection buffers for the samples, rows and folds of a block, grown
// only when a block is bigger than any before (so never in the steady state).
class BlockBuffers {
    constructor() {
        this.capacity = 0;
        this.samples = new BigUint64Array(0); // ns per batch
        this.rows = new Uint32Array(0);       // u64 per batch as two u32 words: [2i] low, [2i+1] always 0
        this.folds = new Uint32Array(0);      // fold per batch
        this.littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
    }

    ensure(n) {
        if (n <= this.capacity) return;
        let cap = Math.max(64, this.capacity);
        while (cap < n) cap *= 2;
        this.samples = new BigUint64Array(cap);
        this.rows = new Uint32Array(cap * 2);
        this.folds = new Uint32Array(cap);
        this.capacity = cap;
    }

    // The arrays frame of the first n batches (docs/bridge-protocol.md,
    // "arrays": "frame"): the frame's length, then the samples and the rows
    // as little-endian u64, the folds as little-endian u32: copied, not encoded.
    // null for n = 0 (a frame is never empty) and on a big-endian host: the
    // caller then sends the three arrays as base64.
    arraysFrame(n) {
        if (n === 0 || !this.littleEndian) return null;
        const len = 20 * n;
        const buf = Buffer.allocUnsafe(4 + len);
        buf.writeUInt32BE(len, 0);
        Buffer.from(this.samples.buffer, this.samples.byteOffset, 8 * n).copy(buf, 4);
        Buffer.from(this.rows.buffer, this.rows.byteOffset, 8 * n).copy(buf, 4 + 8 * n);
        Buffer.from(this.folds.buffer, this.folds.byteOffset, 4 * n).copy(buf, 4 + 16 * n);
        return buf;
    }

    // base64 of the first n entries as little-endian u64 / u32 (the reply's
    // string form of `samples`, `rows`, `folds`).
    samplesB64(n) { return this.b64(this.samples, n, 8); }
    rowsB64(n) { return this.b64(this.rows, n, 8); }
    foldsB64(n) { return this.b64(this.folds, n, 4); }

    b64(arr, n, width) {
        if (this.littleEndian) {
            return Buffer.from(arr.buffer, arr.byteOffset, n * width).toString('base64');
        }
        // A big-endian host: swap into a copy (never the case on x86 or arm64 Linux).
        const out = Buffer.alloc(n * width);
        const dv = new DataView(arr.buffer, arr.byteOffset);
        for (let i = 0; i < n; i++) {
            if (width === 4) out.writeUInt32LE(dv.getUint32(i * 4, false), i * 4);
            else if (arr instanceof BigUint64Array) out.writeBigUInt64LE(dv.getBigUint64(i * 8, false), i * 8);
            else out.writeUInt32LE(dv.getUint32(i * 8, false), i * 8); // rows: low word at [2i]
        }
        return out.toString('base64');
    }
}

// The state of one block's batches (runBatch's argument), made once per block.
class BatchState {
    constructor(client, plan) {
        this.client = client;
        this.exec = client.exec;
        this.rowsOf = client.rowsOf;
        this.stmt = plan.stmt;
        this.handle = plan.stmt.handle;
        this.beginHandle = plan.begin === null ? null : plan.begin.handle;
        this.commitHandle = plan.commit === null ? null : plan.commit.handle;
        this.depth = plan.depth;
        this.params = plan.params;
        this.kinds = plan.kinds;
        this.kindsKey = plan.kindsKey;
        this.off = this.beginHandle === null ? 0 : 1;
        const width = this.depth + 2 * this.off;
        this.single = width === 1;
        this.ps = new Array(width);
        this.issued = 0;   // executions of the current batch issued so far
        this.nrows = 0;    // rows of the last batch that completed
        this.res = null;   // its result(s): one, or Promise.all's array
        // A dump batch compiles (or re-checks) its fold from the result's own
        // column names; a timed block uses the fold of the statement's columns.
        this.fold = plan.dump ? null : plan.stmt.folds.lookup(plan.kinds, plan.kindsKey);
    }
}

// One batch (batch i of the block): its executions issued at once, awaited
// together, its results folded; returns the fold (int32) and leaves the row
// count in st.nrows. An async function of its own, called and awaited once
// per batch, as the standalone loop (adapters/node/standalone.mjs) and the
// public benchmark's script call theirs. Measured (docs/clients.md, "The
// shape of a block"): with the issue and the await inline in runBlock's loop,
// postgres.js at pipelined LIMIT 1 cost 64-76 us of CPU per query against
// 42-47 us in its standalone loop, and the same loop with the await inline
// costs the same 1.5-1.8x outside pgclientbench; node --trace-gc showed
// scavenges of 20-33 ms with the heap growing between mark-compacts, against
// 0.5-1.4 ms and a flat heap with this shape.
async function runBatch(st, i) {
    const exec = st.exec;
    const rowsOf = st.rowsOf;
    const ps = st.ps;
    const params = st.params;
    let h = FOLD_START;
    let nrows = 0;
    st.issued = 0;
    if (st.single) {
        const p = exec(st.handle, params === null ? undefined : params[i]);
        ps[0] = p;
        st.issued = 1;
        const res = await p;
        st.res = res;
        const rows = rowsOf(res);
        nrows = rows.length;
        if (st.fold === null) {
            if (nrows === 0) h = Math.imul(h ^ 0, FNV_PRIME);
            else h = (st.fold = st.stmt.folds.get(st.client.namesOf(res), st.kinds, st.kindsKey))(h, rows);
        } else {
            h = st.fold(h, rows);
        }
        st.nrows = nrows;
        return h;
    }
    const depth = st.depth;
    const off = st.off;
    let issued = 0;
    if (off === 1) { ps[0] = exec(st.beginHandle, undefined); issued = 1; }
    if (params === null) {
        for (let k = 0; k < depth; k++) { ps[issued] = exec(st.handle, undefined); issued++; }
    } else {
        const base = i * depth;
        for (let k = 0; k < depth; k++) { ps[issued] = exec(st.handle, params[base + k]); issued++; }
    }
    if (off === 1) { ps[issued] = exec(st.commitHandle, undefined); issued++; }
    st.issued = issued;
    const res = await Promise.all(ps);
    st.res = res;
    const end = off + depth;
    let fold = st.fold;
    for (let k = off; k < end; k++) {
        const r = res[k];
        const rows = rowsOf(r);
        const n = rows.length;
        nrows += n;
        if (fold === null) {
            if (n === 0) { h = Math.imul(h ^ 0, FNV_PRIME); continue; }
            fold = st.fold = st.stmt.folds.get(st.client.namesOf(r), st.kinds, st.kindsKey);
        }
        h = fold(h, rows);
    }
    st.nrows = nrows;
    return h;
}

// plan: {stmt, begin, commit (statement records or null), depth, batches,
//        params (null or array of value arrays), kinds, kindsKey, dump}
async function runBlock(client, plan, bufs) {
    const st = new BatchState(client, plan);
    const batches = plan.batches;
    const samples = bufs.samples;
    const rowsOut = bufs.rows;
    const folds = bufs.folds;
    let done = 0;
    let error = null;
    let last = null;

    const cpu0 = process.cpuUsage();
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < batches; i++) {
        let h;
        try {
            h = await runBatch(st, i);
        } catch (e) {
            error = e;
            break;
        }
        const t1 = process.hrtime.bigint();
        const d = t1 - t0;
        samples[i] = d === 0n ? 1n : d;  // > 0 by the protocol; a 0 could only be a clock artefact
        t0 = t1;
        rowsOut[2 * i] = st.nrows;
        folds[i] = h;
        done++;
    }
    const cpu1 = process.cpuUsage();
    const cpuNs = ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) * 1000;

    const ps = st.ps;
    if (error !== null) {
        // Drain the failed batch: every execution it issued must have
        // finished before the next request uses the connection.
        await Promise.allSettled(ps.slice(0, st.issued));
    } else if (plan.dump && done > 0) {
        last = st.single ? [st.res] : st.res.slice(st.off, st.off + st.depth);
    }
    ps.fill(undefined);
    return { done, cpuNs, error, last };
}

module.exports = { BlockBuffers, runBlock };
