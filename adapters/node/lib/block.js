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
//   - between the first read and the last: no I/O with the bridge, no printing,
//     no garbage collection forced, and no allocation of its own beyond the
//     clock's BigInts and the array Promise.all returns;
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
    arraysFrame(n) {
        if (!this.littleEndian) return null; // the caller falls back to base64
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

// plan: {stmt, begin, commit (statement records or null), depth, batches,
//        params (null or array of value arrays), kinds, kindsKey, dump}
async function runBlock(client, plan, bufs) {
    const exec = client.exec;
    const rowsOf = client.rowsOf;
    const stmt = plan.stmt;
    const handle = stmt.handle;
    const beginHandle = plan.begin === null ? null : plan.begin.handle;
    const commitHandle = plan.commit === null ? null : plan.commit.handle;
    const depth = plan.depth;
    const batches = plan.batches;
    const params = plan.params;
    const kinds = plan.kinds;
    const kindsKey = plan.kindsKey;
    const dump = plan.dump;
    const off = beginHandle === null ? 0 : 1;
    const width = depth + 2 * off;
    const single = width === 1;
    const ps = new Array(width);
    const samples = bufs.samples;
    const rowsOut = bufs.rows;
    const folds = bufs.folds;
    // A dump batch compiles (or re-checks) its fold from the result's own
    // column names; a timed block uses the fold of the statement's columns.
    let fold = dump ? null : stmt.folds.lookup(kinds, kindsKey);
    let done = 0;
    let error = null;
    let issued = 0;
    let res = null;
    let last = null;

    const cpu0 = process.cpuUsage();
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < batches; i++) {
        let h = FOLD_START;
        let nrows = 0;
        try {
            issued = 0;
            if (single) {
                const p = exec(handle, params === null ? undefined : params[i]);
                ps[0] = p;
                issued = 1;
                res = await p;
                const rows = rowsOf(res);
                nrows = rows.length;
                if (fold === null) {
                    if (nrows === 0) h = Math.imul(h ^ 0, FNV_PRIME);
                    else h = (fold = stmt.folds.get(client.namesOf(res), kinds, kindsKey))(h, rows);
                } else {
                    h = fold(h, rows);
                }
            } else {
                if (off === 1) { ps[0] = exec(beginHandle, undefined); issued = 1; }
                if (params === null) {
                    for (let k = 0; k < depth; k++) { ps[issued] = exec(handle, undefined); issued++; }
                } else {
                    const base = i * depth;
                    for (let k = 0; k < depth; k++) { ps[issued] = exec(handle, params[base + k]); issued++; }
                }
                if (off === 1) { ps[issued] = exec(commitHandle, undefined); issued++; }
                res = await Promise.all(ps);
                const end = off + depth;
                for (let k = off; k < end; k++) {
                    const r = res[k];
                    const rows = rowsOf(r);
                    const n = rows.length;
                    nrows += n;
                    if (fold === null) {
                        if (n === 0) { h = Math.imul(h ^ 0, FNV_PRIME); continue; }
                        fold = stmt.folds.get(client.namesOf(r), kinds, kindsKey);
                    }
                    h = fold(h, rows);
                }
            }
        } catch (e) {
            error = e;
            break;
        }
        const t1 = process.hrtime.bigint();
        const d = t1 - t0;
        samples[i] = d === 0n ? 1n : d;  // > 0 by the protocol; a 0 could only be a clock artefact
        t0 = t1;
        rowsOut[2 * i] = nrows;
        folds[i] = h;
        done++;
    }
    const cpu1 = process.cpuUsage();
    const cpuNs = ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) * 1000;

    if (error !== null) {
        // Drain the failed batch: every execution it issued must have
        // finished before the next request uses the connection.
        await Promise.allSettled(ps.slice(0, issued));
    } else if (dump && done > 0) {
        last = single ? [res] : res.slice(off, off + depth);
    }
    ps.fill(undefined);
    return { done, cpuNs, error, last };
}

module.exports = { BlockBuffers, runBlock };
