'use strict';
// The fold of a `stream` request (docs/bridge-protocol.md, "stream"): per
// result column [kind, nulls, sum mod 2^32], the kind chosen from the first
// non-null value the client delivers in the column, rows folded one at a
// time (streamed) or over an array of them (a chunk, a buffered result).
//
// Contract of StreamFold (one per request; `cache` a StreamFoldCache kept per
// statement):
//   - sink.source: what the client describes the columns with (a result, or
//     pg-query-stream's Result), read with columnsOf(source) once, at the
//     first row; when null, the first chunk itself is the source;
//   - sink.row(r) folds one row; sink.chunk(rows) folds every row of an
//     array (nothing is kept: the rows are the caller's to drop);
//   - sink.n: the rows folded; sink.firstAt: process.hrtime.bigint() read
//     right after the first row was folded (null before);
//   - sink.columns(): [[kind, nulls, sum], ...], [] when no row was folded.
// Kinds: `bool` for a boolean, `int` for a BigInt or for a Number that is an
// integer in an integer-typed column (int2, int4, int8, oid: JavaScript has
// one number type, and float8's 3.0 is a Number that Number.isInteger calls
// integral; a column whose type the client does not say takes any integral
// Number), `str` for a string (its .length, UTF-16 code units: hello's
// text_length), `any` for anything else and for a column with no non-null
// value. Contributions as in fold.js.
//
// The per-row code is generated for the kinds known so far (a column not yet
// decided counts its nulls and flags a non-null value), with the column
// names as constant keys, as fold.js does for `run`: no per-value dispatch on
// the kind. A flagged value is decided and folded outside it (decide()), and
// the code for the new kinds taken from the statement's cache (compiled when
// new): at most one switch per column per result.

const { addWide } = require('./fold');

const UNDECIDED = 0;
const ANY = 1;
const BOOL = 2;
const INT = 3;
const STR = 4;
const KIND_LETTER = ['u', 'a', 'b', 'i', 's'];
const KIND_NAME = ['any', 'any', 'bool', 'int', 'str'];
// int2, int4, int8, oid
const INT_TYPES = new Set([21, 23, 20, 26]);

// An integer-typed column, or one whose type the client did not say (0).
function integerTyped(oid) {
    return oid === 0 || INT_TYPES.has(oid);
}

// One column's code on value v of row r; n / s name its null count and sum.
function columnCode(kind, key, n, s) {
    const load = `v = r[${key}]; if (v == null) ${n}++; `;
    switch (kind) {
    case BOOL: return `${load}else if (v === true) ${s} = (${s} + 1) | 0;`;
    case INT:
        return `${load}else if (typeof v === 'number' && (v | 0) === v) ${s} = (${s} + v) | 0; ` +
            `else ${s} = addWide(${s}, v);`;
    case STR: return `${load}else ${s} = (${s} + v.length) | 0;`;
    case UNDECIDED: return `${load}else u = 1;`;
    default: return `v = r[${key}]; if (v == null) ${n}++;`;
    }
}

// {row(a, r) -> 0 | 1, chunk(a, rows, i, end) -> -1 | k} for these names
// and kinds; `a` is the Int32Array [nulls0, sum0, nulls1, sum1, ...]. row
// returns 1 when a column not yet decided had a value in r (left unfolded).
// chunk folds rows[i..end) and returns -1, or k when row k - 1 had such a
// value (rows before k folded, row k - 1 but for those values).
function compile(names, kinds) {
    const m = names.length;
    const keys = names.map((x) => JSON.stringify(String(x)));
    const open = kinds.includes(UNDECIDED);
    const L = [];
    L.push('const row = function (a, r) {', '  let v, u = 0;');
    for (let j = 0; j < m; j++) L.push('  ' + columnCode(kinds[j], keys[j], `a[${2 * j}]`, `a[${2 * j + 1}]`));
    L.push('  return u;', '};');
    L.push('const chunk = function (a, rows, i, end) {', '  let v, u = 0;');
    for (let j = 0; j < m; j++) L.push(`  let n${j} = a[${2 * j}], s${j} = a[${2 * j + 1}];`);
    const store = [];
    for (let j = 0; j < m; j++) store.push(`a[${2 * j}] = n${j}; a[${2 * j + 1}] = s${j};`);
    L.push('  for (; i < end; i++) {', '    const r = rows[i];');
    for (let j = 0; j < m; j++) L.push('    ' + columnCode(kinds[j], keys[j], `n${j}`, `s${j}`));
    if (open) L.push(`    if (u !== 0) { ${store.join(' ')} return i + 1; }`);
    L.push('  }', '  ' + store.join(' '), '  return -1;', '};', 'return { row, chunk };');
    // eslint-disable-next-line no-new-func
    return new Function('addWide', '"use strict";\n' + L.join('\n'))(addWide);
}

// The compiled folds of one statement, by column names and kinds.
class StreamFoldCache {
    constructor() {
        this.key = null;   // the column names the folds read, as one key
        this.byKinds = new Map();
    }

    get(names, kinds) {
        const key = JSON.stringify(names);
        if (key !== this.key) {
            this.key = key;
            this.byKinds.clear();
        }
        const k = kinds.map((x) => KIND_LETTER[x]).join('');
        let f = this.byKinds.get(k);
        if (f === undefined) {
            f = compile(names, kinds);
            this.byKinds.set(k, f);
        }
        return f;
    }
}

class StreamFold {
    constructor(cache, columnsOf) {
        this.cache = cache;
        this.columnsOf = columnsOf;   // the client's: source -> [{name, type}]
        this.source = null;
        this.n = 0;
        this.firstAt = null;
        this.names = null;
        this.types = null;
        this.kinds = null;
        this.acc = null;
        this.f = null;
    }

    // The columns, from the source (or `r`'s keys when it names none).
    begin(source, r) {
        const cols = source == null ? [] : this.columnsOf(source);
        this.names = cols.length > 0 ? cols.map((c) => c.name) : Object.keys(r);
        this.types = cols.length > 0 ? cols.map((c) => c.type) : this.names.map(() => 0);
        this.kinds = this.names.map(() => UNDECIDED);
        this.acc = new Int32Array(2 * this.names.length);
        this.f = this.cache.get(this.names, this.kinds);
    }

    row(r) {
        if (this.n === 0) {
            this.begin(this.source, r);
            if (this.f.row(this.acc, r) !== 0) this.decide(r);
            this.n = 1;
            this.firstAt = process.hrtime.bigint();
            return;
        }
        this.n++;
        if (this.f.row(this.acc, r) !== 0) this.decide(r);
    }

    chunk(rows) {
        const end = rows.length;
        if (end === 0) return;
        let i = 0;
        if (this.n === 0) {
            if (this.source === null) this.source = rows;
            this.row(rows[0]);
            i = 1;
        }
        this.n += end - i;
        while (i < end) {
            const k = this.f.chunk(this.acc, rows, i, end);
            if (k < 0) break;
            this.decide(rows[k - 1]);
            i = k;
        }
    }

    // Kinds for the undecided columns with a value in r, that value folded,
    // and the code for the new kinds.
    decide(r) {
        const a = this.acc;
        for (let j = 0; j < this.kinds.length; j++) {
            if (this.kinds[j] !== UNDECIDED) continue;
            const v = r[this.names[j]];
            if (v == null) continue;
            let kind = ANY;
            if (typeof v === 'boolean') {
                kind = BOOL;
                if (v) a[2 * j + 1] += 1;
            } else if (typeof v === 'string') {
                kind = STR;
                a[2 * j + 1] += v.length;
            } else if (typeof v === 'bigint' ||
                (typeof v === 'number' && Number.isInteger(v) && integerTyped(this.types[j]))) {
                kind = INT;
                a[2 * j + 1] = addWide(a[2 * j + 1], v);
            }
            this.kinds[j] = kind;
        }
        this.f = this.cache.get(this.names, this.kinds);
    }

    columns() {
        if (this.n === 0) return [];
        const a = this.acc;
        return this.kinds.map((k, j) => [KIND_NAME[k], a[2 * j] >>> 0, a[2 * j + 1] >>> 0]);
    }
}

module.exports = { StreamFold, StreamFoldCache };
