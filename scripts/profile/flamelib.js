'use strict';
// flamelib.js -- folded stacks -> d3-flame-graph trees -> one self-contained HTML page.
//
// Used by build/profile/flame and build/profile/flame-dir (and by
// tests/profile/flame_page.test.js); docs/flamegraphs.md describes the pages.
//
// Trees are d3-flame-graph's input: {name, value, children}, value being a
// node's inclusive weight (d3-flame-graph derives self = value - children).
// A plain graph's values are samples. A differential graph is OTHER's tree
// with its values as shares of OTHER's total samples and, on every node,
// delta = OTHER's share - BASE's share of the samples through that node
// (inclusive, so d3-flame-graph's differentialColorMapper colours a frame by
// the change of everything above it; `samples` and `baseSamples` keep the
// raw counts for the labels). Frames only in BASE are not drawn (their share
// is still in their parents' deltas, and in the panel's `onlyBase` figure).
//
// Every string that comes from a folded file or the command line goes into
// the page as JSON inside <script type="application/json">, with <, >, &,
// U+2028 and U+2029 escaped as \uXXXX: no symbol can end the script element or
// become markup. The page's own code (page.js) puts names into the DOM only as
// text (textContent, d3's .text()).

const fs = require('fs');
const path = require('path');

// The vendored packages' files inlined into every page: npm ci'd from
// scripts/profile/flame/package-lock.json into <dir of the installed
// scripts>/node_modules (build/profile/node_modules) by scripts/install-deps.sh.
const VENDOR = [
    ['d3', 'dist/d3.min.js'],
    ['d3-flame-graph', 'dist/d3-flamegraph.umd.min.js'],
];
const VENDOR_CSS = [['d3-flame-graph', 'dist/d3-flamegraph.css']];

class FlameError extends Error {}

// parseFolded(text, file) -> {root, total, stacks}: the tree of a folded file.
// A line is "frame;frame;... COUNT" (COUNT after the last space, a
// non-negative integer); blank lines are skipped; anything else throws a
// FlameError naming file:line.
function parseFolded(text, file) {
    const root = { name: 'all', value: 0, children: new Map() };
    let total = 0;
    let stacks = 0;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i].replace(/\r$/, '');
        if (line.trim() === '') continue;
        const sp = line.lastIndexOf(' ');
        const count = sp > 0 ? line.slice(sp + 1) : '';
        if (!/^[0-9]+$/.test(count)) {
            throw new FlameError(`${file}:${i + 1}: not a folded stack ("frame;frame;... COUNT"): ${JSON.stringify(line.slice(0, 80))}`);
        }
        const n = Number(count);
        if (!Number.isSafeInteger(n)) throw new FlameError(`${file}:${i + 1}: count ${count} too large`);
        const frames = line.slice(0, sp).split(';');
        if (frames.some((f) => f === '')) throw new FlameError(`${file}:${i + 1}: empty frame in stack`);
        let node = root;
        node.value += n;
        for (const f of frames) {
            let child = node.children.get(f);
            if (!child) {
                child = { name: f, value: 0, children: new Map() };
                node.children.set(f, child);
            }
            child.value += n;
            node = child;
        }
        total += n;
        stacks++;
    }
    return { root, total, stacks };
}

// A frame's display name and kind: "recv_[k]" -> ["recv", "kernel"], "x_[j]" -> ["x", "jit"].
function splitKind(name) {
    if (name.endsWith('_[k]')) return [name.slice(0, -4), 'kernel'];
    if (name.endsWith('_[j]')) return [name.slice(0, -4), 'jit'];
    return [name, ''];
}

// The plain graph's tree: Maps -> arrays, suffixes -> libtype: d3-flame-graph
// colours 'kernel' frames orange, 'jit' green, and any other libtype red, or
// yellow for a C++ name (with '::'): FlameGraph's palette for mixed stacks.
function toGraphTree(node) {
    const [name, libtype] = splitKind(node.name);
    const out = { name, value: node.value, libtype: libtype || 'native' };
    if (node.children.size) out.children = [...node.children.values()].map(toGraphTree);
    return out;
}

// The differential tree of OTHER against BASE (both parseFolded results).
function toDiffTree(base, other) {
    const tb = base.total;
    const to = other.total;
    function walk(o, b) {
        const [name, libtype] = splitKind(o.name);
        const bs = b ? b.value : 0;
        const out = {
            name,
            value: o.value / to,
            delta: o.value / to - bs / tb,
            samples: o.value,
            baseSamples: bs,
        };
        if (libtype) out.libtype = libtype;
        if (o.children.size) {
            out.children = [...o.children.values()].map((c) => walk(c, b ? b.children.get(c.name) : undefined));
        }
        return out;
    }
    // Samples of BASE under frames OTHER never reached.
    function onlyBase(b, o) {
        if (!o) return b.value;
        let s = 0;
        for (const c of b.children.values()) s += onlyBase(c, o.children.get(c.name));
        return s;
    }
    return { tree: walk(other.root, base.root), onlyBase: tb ? onlyBase(base.root, other.root) / tb : 0 };
}

// readTop(foldedFile) -> {categories: [[name, n]], functions: [[name, n]], total} from
// the top.tsv beside FILE.folded (fold.py writes both), or null when there is none.
function readTop(foldedFile) {
    if (!foldedFile.endsWith('.folded')) return null;
    const file = foldedFile.slice(0, -'.folded'.length) + '.top.tsv';
    let text;
    try {
        text = fs.readFileSync(file, 'utf8');
    } catch (e) {
        if (e.code === 'ENOENT') return null;
        throw new FlameError(`${file}: ${e.message}`);
    }
    const top = { total: null, categories: [], functions: [] };
    text.split('\n').forEach((line, i) => {
        if (line === '') return;
        const f = line.split('\t');
        if (f.length !== 3 || !/^[0-9]+$/.test(f[2])) throw new FlameError(`${file}:${i + 1}: not "KIND\\tNAME\\tCOUNT"`);
        const n = Number(f[2]);
        if (f[0] === 'total') top.total = n;
        else if (f[0] === 'category') top.categories.push([f[1], n]);
        else if (f[0] === 'function') top.functions.push([f[1], n]);
        else throw new FlameError(`${file}:${i + 1}: unknown record kind ${JSON.stringify(f[0])}`);
    });
    return top;
}

function readFolded(file) {
    let text;
    try {
        text = fs.readFileSync(file, 'utf8');
    } catch (e) {
        throw new FlameError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
    }
    return parseFolded(text, file);
}

// A panel's data: {kind: 'graph', label, file, total, tree, top} or
// {kind: 'diff', label, base, other, baseTotal, total, tree, onlyBase}; the
// callers add links to the files (href; baseHref and otherHref), relative to
// the page.
function graphPanel(label, file) {
    const p = readFolded(file);
    return { kind: 'graph', label, file, total: p.total, tree: toGraphTree(p.root), top: readTop(file) };
}

function diffPanel(label, baseFile, otherFile) {
    const base = readFolded(baseFile);
    const other = readFolded(otherFile);
    const panel = { kind: 'diff', label, base: baseFile, other: otherFile, baseTotal: base.total, total: other.total, tree: null, onlyBase: 0 };
    if (base.total > 0 && other.total > 0) Object.assign(panel, toDiffTree(base, other));
    return panel;
}

// A link from a page in pageDir to file: relative, each segment percent-encoded.
function hrefFrom(pageDir, file) {
    return path.relative(pageDir, path.resolve(file)).split(path.sep).map(encodeURIComponent).join('/');
}

// JSON that is safe inside a <script> element (and anywhere in HTML text).
function jsonForScript(value) {
    return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

// Inlined JavaScript: a "</script" inside it would end the element early.
function scriptText(js, what) {
    if (/<\/script/i.test(js)) throw new FlameError(`${what}: contains "</script": cannot be inlined`);
    return js;
}

function vendorDir(dir) {
    return path.join(dir, 'node_modules');
}

function readVendor(dir, [pkg, file]) {
    const p = path.join(vendorDir(dir), pkg, file);
    try {
        return fs.readFileSync(p, 'utf8');
    } catch (e) {
        throw new FlameError(`${p}: ${e.code === 'ENOENT' ? 'missing' : e.message} (scripts/install-deps.sh installs the renderer's npm packages: make)`);
    }
}

function vendorVersions(dir) {
    const out = {};
    for (const [pkg] of VENDOR) {
        out[pkg] = JSON.parse(readVendor(dir, [pkg, 'package.json'])).version;
    }
    return out;
}

// renderPage(doc, dir) -> the HTML text. doc = {title, sections: [{heading,
// panels: [...]}], links: [{href, text}], note}; dir: where page.js, page.css
// and node_modules are (the installed scripts' directory).
function renderPage(doc, dir) {
    const own = (f) => {
        try {
            return fs.readFileSync(path.join(dir, f), 'utf8');
        } catch (e) {
            throw new FlameError(`${path.join(dir, f)}: ${e.message}`);
        }
    };
    const data = Object.assign({ generated: new Date().toISOString(), versions: vendorVersions(dir) }, doc);
    const css = VENDOR_CSS.map((v) => readVendor(dir, v)).join('\n') + '\n' + own('page.css');
    if (/<\/style/i.test(css)) throw new FlameError('page CSS contains "</style"');
    const scripts = VENDOR.map((v) => scriptText(readVendor(dir, v), v.join('/')));
    scripts.push(scriptText(own('page.js'), 'page.js'));
    return [
        '<!DOCTYPE html>',
        '<html lang="en">',
        '<head>',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<title>flame graphs</title>',
        '<style>', css, '</style>',
        '</head>',
        '<body>',
        '<noscript>These flame graphs are drawn by JavaScript (inlined in this file; nothing is fetched).</noscript>',
        '<main id="pgcb-main"></main>',
        '<script type="application/json" id="pgcb-data">' + jsonForScript(data) + '</script>',
        ...scripts.map((s) => '<script>\n' + s + '\n</script>'),
        '</body>',
        '</html>',
        '',
    ].join('\n');
}

// Write a file through a temporary name renamed into place.
function writeFileAtomic(file, text) {
    const tmp = `${file}.tmp${process.pid}`;
    try {
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, file);
    } catch (e) {
        try { fs.unlinkSync(tmp); } catch (_) { /* not created */ }
        throw new FlameError(`${file}: cannot write: ${e.message}`);
    }
}

module.exports = {
    FlameError, parseFolded, toGraphTree, toDiffTree, readTop, graphPanel, diffPanel,
    jsonForScript, renderPage, writeFileAtomic, splitKind, hrefFrom,
};
