'use strict';
// The timed load of a `load` request over the client's pool
// (docs/bridge-protocol.md, "load"; include/pgcb/driver.h, struct pgcb_load).
//
// Contract of runLoad(client, plan, bufs) -> outcome:
//   - queries are one execution each of plan.stmt through client.loadExec
//     (the pool's own query call: pg's pool.query(config, values),
//     postgres.js's sql.unsafe on the pool), numbered in issue order; query i
//     binds plan.params[i] when params is set;
//   - closed mode: plan.concurrency async workers on this one event loop, each
//     issuing its next query when its last one's result is folded; a query is
//     timed from the clock read just before it is issued;
//   - rate mode: query i is due at start + i / rate; it is issued when due if
//     fewer than plan.concurrency are in flight, else as soon as one completes;
//     it is timed from its due time. A timer wakes the dispatcher up to ~1 ms
//     before the next due time, then setImmediate turns until it is due;
//   - the stop rule: query i is issued while i < maxQueries and (i <
//     minQueries or the time since start is below durationNs) -- in rate mode
//     that time is query i's due time, so that the count is the schedule's;
//   - each query's latency ends after its rows are folded (fold.js, as a
//     block's batch of depth 1); results are written in completion order;
//   - the first failure stops the issuing; the queries in flight finish (and
//     count) or fail; outcome.error is the first failure -- or a later one
//     that is the server's own fatal message (severity FATAL or PANIC: a
//     terminated backend) when the first carries none (a reset socket of
//     the same broken connection, say), which describes it better;
//     once the issuing has ended (the first failure, the stop rule, or --
//     min_queries 0 -- durationNs since start) the queries in flight are
//     abandoned as soon as none completed or failed for SETTLE_MS (a client whose
//     connection broke may never settle a query, nor report the failure:
//     pg-native's pool after pg_terminate_backend did not): then they are
//     abandoned, a later completion is not recorded, and a load whose queries
//     never settled without a failure fails with client.lost (the pool's own
//     account of a connection it lost) or a message saying how many did not;
//   - a load that ends without a failure while the client says it is broken
//     (client.broken(): a pool connection lost, idle or not) fails too: a
//     connection of the pool died mid-load;
//   - between start and the last reply: no I/O with the bridge, no printing,
//     no garbage collection forced;
//   - returns {done, wallNs, cpuNs, lateNs, error}; the first `done` entries of
//     bufs (BlockBuffers, ensured for maxQueries) hold latencies, rows, folds.

const { FOLD_START } = require('./fold');
const { AdapterError } = require('./errors');

const FNV_PRIME = 16777619;
const MS = 1000000;
const SETTLE_MS = 2000;

function fatalOf(e) {
    return e != null && (e.severity === 'FATAL' || e.severity === 'PANIC');
}

const UNSETTLED = Symbol('unsettled');

// Record failure e into st (see the contract above).
function fail(st, e) {
    if (st.abandoned) return;
    st.failed++;
    const first = st.error === null;
    if (first || (fatalOf(e) && !fatalOf(st.error))) st.error = e;
    if (first) st.onStop();
}

// The failure of a load whose client lost a pool connection.
function lostError(client) {
    const why = typeof client.lost === 'string' && client.lost !== '' ? client.lost
        : 'a connection of the pool broke during the load';
    return new AdapterError('io', why);
}

// The failure of a load whose queries in flight never settled.
function unsettled(client, st) {
    if (client.broken()) return lostError(client);
    const n = st.issued - st.done - st.failed;
    const where = typeof client.unansweredWhere === 'function' ? client.unansweredWhere() : '';
    return new AdapterError('io', `${n} of the load's queries never answered${where === '' ? '' : ` (${where})`}: ` +
        `none completed for ${SETTLE_MS} ms after the issuing ended (a connection of the pool ` +
        'broke without an error from the client)');
}

// plan: {stmt, mode ('closed' | 'rate'), concurrency, rate, durationNs,
//        minQueries, maxQueries, params (null or value arrays), kinds, kindsKey}
async function runLoad(client, plan, bufs) {
    const exec = client.loadExec;
    const rowsOf = client.rowsOf;
    const stmt = plan.stmt;
    const handle = stmt.handle;
    const params = plan.params;
    const kinds = plan.kinds;
    const kindsKey = plan.kindsKey;
    const maxQ = plan.maxQueries;
    const minQ = plan.minQueries;
    const samples = bufs.samples;
    const rowsOut = bufs.rows;
    const folds = bufs.folds;
    const st = {
        fold: stmt.folds.lookup(kinds, kindsKey),
        done: 0,
        error: null,
        lastEnd: 0n,
        abandoned: false,
        issued: 0,     // queries issued (settled = done + failed)
        failed: 0,
        onStop: null,  // called once: at the first failure or when issuing ends
    };

    // Fold one query's result and record it, timed from t0 (a BigInt).
    const record = (res, t0) => {
        if (st.abandoned) return;
        const rows = rowsOf(res);
        const n = rows.length;
        let h = FOLD_START;
        if (n === 0) {
            h = Math.imul(h ^ 0, FNV_PRIME);
        } else {
            if (st.fold === null) st.fold = stmt.folds.get(client.namesOf(res), kinds, kindsKey);
            h = st.fold(h, rows);
        }
        const t1 = process.hrtime.bigint();
        const d = t1 - t0;
        const k = st.done;
        samples[k] = d > 0n ? d : 1n;  // > 0 by the protocol
        rowsOut[2 * k] = n;
        folds[k] = h;
        st.done = k + 1;
        st.lastEnd = t1;
    };

    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    let lateNs = 0;
    // After the first failure, or once the stop rule ended the issuing, the
    // loop gets SETTLE_MS to settle.
    let timer = null;
    let stopped = false;
    const settle = new Promise((resolve) => {
        st.onStop = () => {
            if (stopped) return;
            stopped = true;
            // Abandoned when no query completed or failed for SETTLE_MS: a
            // rate load running late still completes its due queries.
            let seen = -1;
            const check = () => {
                const progress = st.done + st.failed;
                if (progress === seen) {
                    resolve(UNSETTLED);
                    return;
                }
                seen = progress;
                timer = setTimeout(check, SETTLE_MS);
            };
            check();
        };
    });
    // A load bounded by its duration alone has ended its issuing by then
    // at the latest (every query in flight may be stuck).
    const byDuration = minQ === 0 ? setTimeout(() => st.onStop(), Number(plan.durationNs / MS)) : null;
    const loop = plan.mode === 'rate'
        ? rateLoop(plan, start, exec, handle, params, maxQ, minQ, record, st)
        : closedLoop(plan, start, exec, handle, params, maxQ, minQ, record, st).then(() => 0);
    const r = await Promise.race([loop, settle]);
    clearTimeout(timer);
    clearTimeout(byDuration);
    st.abandoned = true;
    const cpu = process.cpuUsage(cpu0);
    if (r === UNSETTLED) {
        if (st.error === null) st.error = unsettled(client, st);
    } else if (r !== undefined) {
        lateNs = r;
    }
    if (st.error === null && client.broken()) st.error = lostError(client);
    return {
        done: st.done,
        wallNs: st.done > 0 ? Number(st.lastEnd - start) : 0,
        cpuNs: (cpu.user + cpu.system) * 1000,
        lateNs,
        error: st.error,
    };
}

function closedLoop(plan, start, exec, handle, params, maxQ, minQ, record, st) {
    const dur = BigInt(plan.durationNs);
    let issued = 0;
    const worker = async () => {
        while (st.error === null) {
            const t0 = process.hrtime.bigint();
            if (issued >= maxQ || (issued >= minQ && t0 - start >= dur)) {
                st.onStop();
                break;
            }
            const i = issued++;
            st.issued = issued;
            try {
                const res = await exec(handle, params === null ? undefined : params[i]);
                record(res, t0);
            } catch (e) {
                fail(st, e);
                break;
            }
        }
    };
    const ws = new Array(plan.concurrency);
    for (let k = 0; k < ws.length; k++) ws[k] = worker();
    return Promise.all(ws);
}

// Resolves with late_ns once every query issued is settled.
function rateLoop(plan, start, exec, handle, params, maxQ, minQ, record, st) {
    const interval = 1e9 / plan.rate;       // ns between due times
    const dur = plan.durationNs;
    const conc = plan.concurrency;
    const dueOf = (i) => Math.round(i * interval);  // ns since start
    const mayIssue = (i) => i < maxQ && (i < minQ || dueOf(i) < dur);
    const sinceStart = () => Number(process.hrtime.bigint() - start);
    return new Promise((resolve) => {
        let next = 0;
        let inFlight = 0;
        let late = 0;
        let timeout = null;
        let immediate = null;
        let finished = false;

        const finish = () => {
            if (finished) return;
            finished = true;
            resolve(late);
        };
        const cancelWake = () => {
            if (timeout !== null) { clearTimeout(timeout); timeout = null; }
            if (immediate !== null) { clearImmediate(immediate); immediate = null; }
        };
        const settled = () => {
            inFlight--;
            cancelWake();
            pump();
        };
        const issue = (i, due, now) => {
            inFlight++;
            st.issued++;
            late = now > due ? now - due : 0;
            const t0 = start + BigInt(due);
            let p;
            try {
                p = exec(handle, params === null ? undefined : params[i]);
            } catch (e) {
                p = Promise.reject(e);
            }
            p.then((res) => {
                try {
                    record(res, t0);
                } catch (e) {
                    fail(st, e);
                }
                settled();
            }, (e) => {
                fail(st, e);
                settled();
            });
        };
        // Issue every query that is due while there is room, then sleep
        // until the next one is due (or until a completion makes room).
        function pump() {
            timeout = immediate = null;
            let now = sinceStart();
            while (st.error === null && inFlight < conc && mayIssue(next)) {
                const due = dueOf(next);
                if (due > now) break;
                issue(next, due, now);
                next++;
                now = sinceStart();
            }
            if (st.error !== null || !mayIssue(next)) {
                st.onStop();
                if (inFlight === 0) finish();
                return;
            }
            if (inFlight >= conc) return;  // a completion pumps again
            const wait = dueOf(next) - now;
            if (wait > 2 * MS) timeout = setTimeout(pump, Math.floor(wait / MS) - 1);
            else immediate = setImmediate(pump);
        }
        pump();
    });
}

module.exports = { runLoad };
