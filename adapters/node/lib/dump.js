'use strict';
// Dumps (docs/bridge-protocol.md, "Dumps"): what the client delivered, one
// entry per execution, encoded after the batch was timed and folded:
//   {"columns": [{"name": ..., "type": OID}, ...], "rows": [[v, ...], ...]}
//
// Contract: encodeResults(entries, opts) returns the JSON text of the array of
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
//
// By the column's type OID (encodeTyped), so that the bridge can fold the
// types the C drivers convert exactly when the client kept the value exactly:
//   Date in a timestamptz column -> {"other": "YYYY-MM-DD HH:MM:SS.mmm+00"}
//                                   (UTC; a Date holds milliseconds only)
//   Date in a timestamp column   -> the same without the zone, from the UTC
//                                   or local fields as the client made the
//                                   Date (opts.timestampLocal: postgres.js's
//                                   new Date(text) reads a zone-less text as
//                                   local time; pg-types as UTC)
//   Date in a date column        -> {"other": "YYYY-MM-DD"} (UTC fields: a
//                                   date-only text parses as UTC midnight)
//   (a year <= 0 is printed as the server does: 1 - year and " BC";
//   +-Infinity in these columns -> "infinity" / "-infinity"; an invalid Date
//   -> "Invalid Date", which the bridge folds as no value of the type)
//   PostgresInterval             -> {"other": "Y years M mons D days
//                                   [-]H:MM:SS.ffffff"} of its fields
//   anything in a json/jsonb column (every Node client parses it) ->
//                                   {"other": JSON.stringify(v)}: the
//                                   re-serialised text, not the server's
//   an Array in an int4[]/int8[]/text[]/float8[] column -> a JSON array of
//                                   the elements' encodings (nested arrays
//                                   nested)
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

const OID_JSON = 114, OID_JSONB = 3802, OID_DATE = 1082, OID_TIMESTAMP = 1114;
const OID_TIMESTAMPTZ = 1184, OID_INTERVAL = 1186;
const ARRAY_OIDS = new Set([1007, 1009, 1016, 1022]);

function pad(n, w) {
    return String(n).padStart(w, '0');
}

// A Date as the server prints a value of type oid, from its UTC fields or
// its local ones.
function dateText(d, oid, local) {
    if (Number.isNaN(d.getTime())) return 'Invalid Date';
    const u = !local || oid === OID_TIMESTAMPTZ || oid === OID_DATE;
    const y = u ? d.getUTCFullYear() : d.getFullYear();
    const bc = y <= 0;
    let t = `${pad(bc ? 1 - y : y, 4)}-${pad((u ? d.getUTCMonth() : d.getMonth()) + 1, 2)}-` +
        pad(u ? d.getUTCDate() : d.getDate(), 2);
    if (oid !== OID_DATE) {
        const ms = u ? d.getUTCMilliseconds() : d.getMilliseconds();
        t += ` ${pad(u ? d.getUTCHours() : d.getHours(), 2)}:` +
            `${pad(u ? d.getUTCMinutes() : d.getMinutes(), 2)}:` +
            pad(u ? d.getUTCSeconds() : d.getSeconds(), 2) + (ms ? `.${pad(ms, 3)}` : '');
        if (oid === OID_TIMESTAMPTZ) t += '+00';
    }
    return bc ? t + ' BC' : t;
}

// A PostgresInterval (postgres-interval: years, months, days, hours,
// minutes, seconds, milliseconds with a fraction) in the server's syntax.
function intervalText(v) {
    const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
    let us = ((BigInt(Math.trunc(n(v.hours))) * 60n + BigInt(Math.trunc(n(v.minutes)))) * 60n +
        BigInt(Math.trunc(n(v.seconds)))) * 1000000n + BigInt(Math.round(n(v.milliseconds) * 1000));
    const parts = [];
    const y = n(v.years), m = n(v.months), d = n(v.days);
    if (y) parts.push(`${y} year${y === 1 ? '' : 's'}`);
    if (m) parts.push(`${m} mon${m === 1 ? '' : 's'}`);
    if (d) parts.push(`${d} day${d === 1 ? '' : 's'}`);
    if (us !== 0n || parts.length === 0) {
        const neg = us < 0n;
        if (neg) us = -us;
        const sec = us / 1000000n, frac = us % 1000000n;
        let c = `${neg ? '-' : ''}${pad(sec / 3600n, 2)}:${pad((sec / 60n) % 60n, 2)}:${pad(sec % 60n, 2)}`;
        if (frac) c += '.' + pad(frac, 6);
        parts.push(c);
    }
    return parts.join(' ');
}

function other(text, v) {
    return `{"other":${JSON.stringify(text)},"type":${JSON.stringify(typeName(v))}}`;
}

// A value of a column of type oid (see the header).
function encodeTyped(v, oid, opts) {
    if (v === null || v === undefined) return 'null';
    switch (oid) {
    case OID_JSON:
    case OID_JSONB: {
        let t;
        try {
            t = JSON.stringify(v);
        } catch (e) {
            t = undefined;
        }
        return other(typeof t === 'string' ? t : otherText(v), v);
    }
    case OID_DATE:
    case OID_TIMESTAMP:
    case OID_TIMESTAMPTZ:
        if (v instanceof Date) return other(dateText(v, oid, opts.timestampLocal), v);
        if (v === Infinity || v === -Infinity) return other(v > 0 ? 'infinity' : '-infinity', v);
        break;
    case OID_INTERVAL:
        if (typeof v === 'object' && 'milliseconds' in v && 'days' in v) return other(intervalText(v), v);
        break;
    default:
        if (ARRAY_OIDS.has(oid) && Array.isArray(v)) return '[' + v.map((e) => encodeTyped(e, oid, opts)).join(',') + ']';
    }
    return encodeValue(v);
}

function encodeEntry(entry, opts) {
    const cols = entry.columns;
    const names = cols.map((c) => String(c.name));
    const oids = cols.map((c) => Number(c.type) >>> 0);
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
            line += encodeTyped(r[names[j]], oids[j], opts);
        }
        parts.push(line + ']');
    }
    parts.push(']}');
    return parts.join('');
}

// opts: {timestampLocal} (see the header); the client's dumpOptions.
function encodeResults(entries, opts) {
    const o = opts || {};
    return '[' + entries.map((e) => encodeEntry(e, o)).join(',') + ']';
}

module.exports = { encodeResults, encodeValue, encodeTyped };
