'use strict';
// Dumps (docs/bridge-protocol.md, "Dumps"): what the client delivered, one
// entry per execution, encoded after the batch was timed and folded:
//   {"columns": [{"name": ..., "type": OID}, ...], "rows": [[v, ...], ...]}
//
// Contract: encodeResults(entries) returns the JSON text of the array of
// entries, where each entry is {columns: [{name, type}], rows: [row objects]}
// and every row is read as row[column.name] in column order (as fold.js reads
// it). Values are encoded by what the client made of them:
//   null, undefined          -> null
//   boolean                  -> true / false
//   number: safe integer     -> the integer (-0 -> {"float": "-0"})
//           NaN, +-Infinity  -> {"float": "NaN" | "Infinity" | "-Infinity"}
//           other            -> its shortest round-trip form; an integral value
//                               beyond 2^53 in exponent form (1.2e+21), so that
//                               the bridge reads a float, not an integer the
//                               double only approximates
//   bigint                   -> {"int": "<decimal>"}
//   string                   -> the string
//   Buffer, Uint8Array       -> {"bytes": "<lower-case hex>"}
//   Date                     -> {"other": toISOString(), "type": "Date"}
//   anything else            -> {"other": JSON.stringify(v) or String(v),
//                                "type": its constructor's name}
// The text is built directly (not through JSON.stringify of a tree), which
// both controls the number forms above and keeps big dumps cheap.

function encodeNumber(v) {
    if (Number.isSafeInteger(v)) {
        return Object.is(v, -0) ? '{"float":"-0"}' : String(v);
    }
    if (Number.isNaN(v)) return '{"float":"NaN"}';
    if (v === Infinity) return '{"float":"Infinity"}';
    if (v === -Infinity) return '{"float":"-Infinity"}';
    if (Number.isInteger(v)) return v.toExponential();  // shortest digits, exponent form
    return String(v);  // shortest round trip; "1e-7" and "1.5e+300" are JSON numbers
}

function typeName(v) {
    if (v === null || typeof v !== 'object') return typeof v;
    const ctor = Object.getPrototypeOf(v) === null ? null : v.constructor;
    return ctor && typeof ctor.name === 'string' && ctor.name !== '' ? ctor.name : 'Object';
}

function otherText(v) {
    if (typeof v === 'object' && v !== null) {
        try {
            const j = JSON.stringify(v);
            if (typeof j === 'string') return j;
        } catch (e) {
            // a BigInt inside, a cycle: fall back to String()
        }
    }
    try {
        return String(v);
    } catch (e) {
        return Object.prototype.toString.call(v);
    }
}

function encodeValue(v) {
    if (v === null || v === undefined) return 'null';
    switch (typeof v) {
    case 'boolean':
        return v ? 'true' : 'false';
    case 'number':
        return encodeNumber(v);
    case 'bigint':
        return `{"int":"${v.toString()}"}`;
    case 'string':
        return JSON.stringify(v);
    default:
        break;
    }
    if (v instanceof Uint8Array) {  // Buffer included
        const hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
        return `{"bytes":"${hex}"}`;
    }
    if (v instanceof Date) {
        const t = Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
        return `{"other":${JSON.stringify(t)},"type":"Date"}`;
    }
    return `{"other":${JSON.stringify(otherText(v))},"type":${JSON.stringify(typeName(v))}}`;
}

function encodeEntry(entry) {
    const cols = entry.columns;
    const names = cols.map((c) => String(c.name));
    const parts = [];
    parts.push('{"columns":[');
    parts.push(cols.map((c, j) => `{"name":${JSON.stringify(names[j])},"type":${Number(c.type) >>> 0}}`).join(','));
    parts.push('],"rows":[');
    const rows = entry.rows;
    for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        let line = i === 0 ? '[' : ',[';
        for (let j = 0; j < names.length; j++) {
            if (j > 0) line += ',';
            line += encodeValue(r[names[j]]);
        }
        parts.push(line + ']');
    }
    parts.push(']}');
    return parts.join('');
}

function encodeResults(entries) {
    return '[' + entries.map(encodeEntry).join(',') + ']';
}

module.exports = { encodeResults, encodeValue };
