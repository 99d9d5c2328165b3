'use strict';
// The timed execution of a `stream` request (docs/bridge-protocol.md,
// "stream"): one whole result, buffered or streamed, folded per column
// (streamfold.js).
//
// Contract of runStream(client, plan) -> outcome:
//   - one execution of plan.stmt binding plan.values (undefined: none):
//     'buffered' through client.exec, the call `run` times (the client holds
//     the whole result), then its rows folded; 'streamed' through
//     client.streamRows(handle, values, fetch, sink), the client's streaming
//     idiom, which gives the sink each row (or chunk) as it arrives, keeps
//     none, and settles once the client reported the result complete (or
//     failed) and the connection is idle again;
//   - t0 = process.hrtime.bigint() just before the issue (process.cpuUsage()
//     just before it), the first row's time when the first row is folded,
//     the end when the result is complete (process.cpuUsage() right after);
//     in between: no I/O with the bridge, no printing, no forced collection;
//   - returns {rows, firstNs, totalNs, cpuNs, columns, error (null or what
//     was thrown: rows is then the count folded before it)}; firstNs is
//     totalNs for a result of no rows; both > 0.

const { StreamFold } = require('./streamfold');

async function runStream(client, plan) {
    const stmt = plan.stmt;
    const sink = new StreamFold(stmt.streamFolds, (src) => client.columnsOf(src));
    let error = null;
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    try {
        if (plan.mode === 'buffered') {
            const res = await client.exec(stmt.handle, plan.values);
            sink.source = res;
            sink.chunk(client.rowsOf(res));
        } else {
            await client.streamRows(stmt.handle, plan.values, plan.fetch, sink);
        }
    } catch (e) {
        error = e;
    }
    const t1 = process.hrtime.bigint();
    const cpu1 = process.cpuUsage();
    const totalNs = Math.max(1, Number(t1 - t0));
    const firstNs = sink.firstAt === null ? totalNs : Math.max(1, Number(sink.firstAt - t0));
    return {
        rows: sink.n,
        firstNs,
        totalNs,
        cpuNs: ((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)) * 1000,
        columns: sink.columns(),
        error,
    };
}

module.exports = { runStream };
