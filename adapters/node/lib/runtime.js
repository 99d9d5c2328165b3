'use strict';
// The runtime as a result's header names it (hello's "runtime", every
// client's "links", which the bridge keeps to PGCB_LINKS_LEN bytes): the
// Node.js version, and the flags the process was started with that change
// how a client runs, briefly -- V8's collector without its tasks
// (drivers/bridge/br_config.c; docs/clients.md, "Blocks") as "no V8 GC
// tasks", any other flag (a profiled run's perf flags) as given.
// --expose-gc only makes global.gc callable: left out.

const GC_TASK_FLAGS = ['--no-minor-gc-task', '--no-incremental-marking-task'];

function nodeRuntime() {
    const argv = process.execArgv;
    const words = [];
    if (GC_TASK_FLAGS.every((f) => argv.includes(f))) words.push('no V8 GC tasks');
    for (const f of argv) {
        if (f !== '--expose-gc' && !GC_TASK_FLAGS.includes(f)) words.push(f);
    }
    return words.length ? `Node.js ${process.version} (${words.join(', ')})` : `Node.js ${process.version}`;
}

module.exports = { nodeRuntime };
