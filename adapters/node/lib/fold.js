'use strict';
// The fold of a batch (docs/bridge-protocol.md, "The fold"), on 32 bits:
//
//   mix(h, x) = ((h XOR (x mod 2^32)) * 16777619) mod 2^32,  h0 = 2166136261
//   per execution: h = mix(h, rows); if rows > 0, per column j in order:
//       h = mix(h, nulls of column j); h = mix(h, sum of contributions mod 2^32)
//   contributions of a non-null value by kind: bool 1/0, int the value mod 2^32,
//   str its .length (UTF-16 code units), any 0.
//
// Contract: compileFold(names, kinds) returns fold(h, rows) -> h, where `h` is
// the running fold as an int32 (start with FOLD_START, report h >>> 0) and
// `rows` the rows of one execution, objects keyed by column name, as the
// clients deliver them. It reads every value of every row (row[name] for every
// column) on every call: nothing is cached between calls. A value is null when
// it is `null` or `undefined` (dump.js encodes both as null).
//
// The function is generated with the column names as constant property keys,
// so that V8 sees monomorphic property loads and local accumulators, the way a
// hand-written loop over known columns (the public benchmark's consume()) does.

const FOLD_START = 2166136261 | 0;  // as int32
const FNV_PRIME = 16777619;
const TWO32 = 4294967296;
const KIND_NAMES = ['any', 'bool', 'int', 'str'];

// mix() of the spec on int32 values (both sides of XOR are the same 32 bits).
function mix(h, x) {
    return Math.imul(h ^ x, FNV_PRIME);
}

// (s + v) mod 2^32 as int32 for an `int` value that is not an int32: any
// integral number exactly (v % 2^32 is exact, and s + it is below 2^53), a
// BigInt exactly; anything else contributes 0, without throwing (kinds come
// from a dump whose values were numbers: a later batch delivering something
// else is caught by the bridge, whose fold of the dump then disagrees).
function addWide(s, v) {
    if (typeof v === 'number') return (s + (v % TWO32)) | 0;
    if (typeof v === 'bigint') return (s + Number(BigInt.asIntN(32, v))) | 0;
    return s;  // not an integer at all: contributes 0 (never throws)
}

function kindCode(kind, key, j) {
    const n = `n${j}`;
    const s = `s${j}`;
    switch (kind) {
    case 'bool':
        return `v = r[${key}]; if (v == null) ${n}++; else if (v === true) ${s}++;`;
    case 'int':
        // int32 values (int2, int4, the common case) take the one-add path.
        // (a BigInt must not reach `v | 0`, which would throw).
        return `v = r[${key}]; if (v == null) ${n}++; ` +
            `else if (typeof v === 'number' && (v | 0) === v) ${s} = (${s} + v) | 0; ` +
            `else ${s} = addWide(${s}, v);`;
    case 'str':
        return `v = r[${key}]; if (v == null) ${n}++; else ${s} = (${s} + v.length) | 0;`;
    default:
        return `v = r[${key}]; if (v == null) ${n}++;`;
    }
}

// fold(h, rows) for a result whose columns are `names`, with `kinds` (null:
// every column `any`; a missing entry: `any`).
function compileFold(names, kinds) {
    const ncols = names.length;
    const lines = [];
    lines.push('return function fold(h, rows) {');
    lines.push('  const nrows = rows.length;');
    lines.push(`  h = Math.imul(h ^ nrows, ${FNV_PRIME});`);
    lines.push('  if (nrows === 0) return h;');
    for (let j = 0; j < ncols; j++) lines.push(`  let n${j} = 0, s${j} = 0;`);
    lines.push('  let v;');
    lines.push('  for (let i = 0; i < nrows; i++) {');
    lines.push('    const r = rows[i];');
    for (let j = 0; j < ncols; j++) {
        const kind = kinds && j < kinds.length ? kinds[j] : 'any';
        lines.push('    ' + kindCode(kind, JSON.stringify(String(names[j])), j));
    }
    lines.push('  }');
    for (let j = 0; j < ncols; j++) {
        lines.push(`  h = Math.imul(h ^ n${j}, ${FNV_PRIME});`);
        lines.push(`  h = Math.imul(h ^ s${j}, ${FNV_PRIME});`);
    }
    lines.push('  return h;');
    lines.push('};');
    // eslint-disable-next-line no-new-func
    return new Function('addWide', '"use strict";\n' + lines.join('\n'))(addWide);
}

// The key of a request's kinds (null, or an array of kind names) in a
// FoldCache: '' for null (every column `any`), else the names joined by ','.
function kindsKeyOf(kinds) {
    return kinds === null ? '' : kinds.join(',');
}

// Compiled folds of one statement, by column names and kinds. lookup() and
// get() are called once per block, never per batch.
class FoldCache {
    constructor() {
        this.names = null;   // the column names the cached folds read
        this.byKinds = new Map();
    }

    // The fold for these kinds if the statement's columns are known (from an
    // earlier result), compiled now if new, else null. Called before a
    // block's clock starts, so that no timed batch compiles a fold.
    lookup(kinds, kindsKey) {
        return this.names === null ? null : this.get(this.names, kinds, kindsKey);
    }

    // The fold for these names and kinds, compiled when new.
    get(names, kinds, kindsKey) {
        if (!sameNames(this.names, names)) {
            this.names = names.slice();
            this.byKinds.clear();
        }
        let f = this.byKinds.get(kindsKey);
        if (f === undefined) {
            f = compileFold(this.names, kinds);
            this.byKinds.set(kindsKey, f);
        }
        return f;
    }
}

function sameNames(a, b) {
    if (a === null || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
}

module.exports = { FOLD_START, KIND_NAMES, mix, compileFold, FoldCache, addWide, kindsKeyOf };
