'use strict';
// The runtime as a result's header names it (hello's "runtime", every
// client's "links"): the Node.js version, and the flags the process was
// started with that change how a client runs -- V8's collector without its
// tasks (drivers/bridge/br_config.c; docs/clients.md, "Blocks"), a profiled
// run's perf flags. --expose-gc only makes global.gc callable: left out.

function nodeRuntime() {
    const flags = process.execArgv.filter((f) => f !== '--expose-gc');
    return flags.length ? `Node.js ${process.version} (${flags.join(' ')})` : `Node.js ${process.version}`;
}

module.exports = { nodeRuntime };
