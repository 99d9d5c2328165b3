'use strict';
// The flame graph pages (build/profile/flame, flame-dir) from hand-made folded
// files:   node tests/profile/flame_page.js BUILD_DIR   (tests/server/profile_flame.sh)
// - a page with two graphs and a differential: its one JSON data block parses
//   back to both graphs (totals, root values, every stack's count), the
//   differential's values and deltas are the shares and share differences
//   computed by hand below (normalised to each profile's total), no script or
//   link element has a src/href (everything inlined, nothing fetched), and a
//   hostile symbol ("</script><b>x") reaches the page only escaped, as data;
// - bad input: a malformed line is named file:line with exit status 1, a
//   missing file exit status 1, bad usage exit status 2;
// - flame-dir: a profile directory with one group of two drivers gets the
//   group's page (each driver's client and backend, the differentials against
//   the --order's first driver) and the index linking it.
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const build = path.resolve(process.argv[2] || 'build');
const flame = path.join(build, 'profile', 'flame');
const flameDir = path.join(build, 'profile', 'flame-dir');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgcb-flame-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const ok = (msg) => console.log(`profile_flame: ok: ${msg}`);

function run(cmd, args) {
    return cp.spawnSync(cmd, args, { encoding: 'utf8' });
}
function write(name, text) {
    const f = path.join(tmp, name);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
    return f;
}
// The page's data: its one <script type="application/json" id="pgcb-data">.
function pageData(html) {
    const re = /<script type="application\/json" id="pgcb-data">([^]*?)<\/script>/g;
    const m = [...html.matchAll(re)];
    assert.strictEqual(m.length, 1, 'one JSON data block');
    return JSON.parse(m[0][1]);
}
function noExternal(html, what) {
    for (const tag of html.match(/<(script|link|img|iframe|object|embed)\b[^>]*>/gi) || []) {
        assert.ok(!/\b(src|href)\s*=/i.test(tag), `${what}: ${tag} loads something`);
    }
    assert.ok(!/<link\b/i.test(html), `${what}: a <link> element`);
    const scripts = html.match(/<script\b[^>]*>/gi);
    assert.ok(scripts.length >= 4, `${what}: d3, d3-flame-graph, page.js inlined + data (${scripts.length} script elements)`);
}
// Every root-to-leaf path with its self count, from a tree.
function stacks(node, prefix, out) {
    const here = prefix ? `${prefix};${node.name}` : node.name;
    const below = (node.children || []).reduce((s, c) => s + c.value, 0);
    if (node.value - below > 0) out[here] = node.value - below;
    (node.children || []).forEach((c) => stacks(c, here, out));
    return out;
}
function find(tree, names) {
    let node = tree;
    for (const n of names) {
        node = (node.children || []).find((c) => c.name === n);
        assert.ok(node, `frame ${names.join(';')} in the tree`);
    }
    return node;
}
const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} != ${b}`);

assert.ok(fs.existsSync(flame), `${flame} not built (make)`);
assert.ok(fs.existsSync(flameDir), `${flameDir} not built (make)`);

// --- two graphs and a differential
// BASE: 10 samples; OTHER: 20 (the differential compares shares, not counts).
const base = write('base.folded', 'main;b;c 5\nmain;b;d 3\nmain;e 2\n');
const other = write('other.folded', 'main;b;c 4\nmain;b;d 12\nmain;f 4\n');
const hostileName = '</script><b>x';
const hostile = write('hostile.folded', `h;${hostileName};recv_[k] 4\nh;JS:*parse a.js:1_[j] 3\n`);
const page = path.join(tmp, 'page.html');
let r = run(flame, [page, '--title', 'T </script><i>', '--section', 'graphs', '--graph', `base=${base}`,
    '--graph', `hostile <b>=${hostile}`, '--section', 'diff', '--diff', `other vs base=${base},${other}`]);
assert.strictEqual(r.status, 0, `flame exited ${r.status}: ${r.stderr}`);
const html = fs.readFileSync(page, 'utf8');
const data = pageData(html);
assert.strictEqual(data.title, 'T </script><i>');
assert.deepStrictEqual(data.sections.map((s) => s.heading), ['graphs', 'diff']);
const [g1, g2] = data.sections[0].panels;
assert.strictEqual(g1.total, 10);
assert.strictEqual(g1.tree.value, 10);
assert.deepStrictEqual(stacks(g1.tree, '', {}), { 'all;main;b;c': 5, 'all;main;b;d': 3, 'all;main;e': 2 });
assert.strictEqual(g2.total, 7);
assert.strictEqual(g2.tree.value, 7);
assert.strictEqual(g2.label, 'hostile <b>');
assert.strictEqual(g1.href, 'base.folded', 'the link to the folded file, relative to the page');
ok('both graphs parse back out of the page: totals 10 and 7, every stack\'s count');

// The hostile symbol: present in the data, never as markup.
const h = find(g2.tree, ['h', hostileName]);
assert.strictEqual(h.value, 4);
const k = find(g2.tree, ['h', hostileName, 'recv']);
assert.strictEqual(k.libtype, 'kernel');
assert.strictEqual(find(g2.tree, ['h', 'JS:*parse a.js:1']).libtype, 'jit');
assert.ok(!html.includes(hostileName), 'the hostile symbol appears raw in the page');
assert.ok(!html.includes('<b>x') && !html.includes('<i>') && !html.includes('hostile <b>'), 'a name became markup');
assert.ok(html.includes('\\u003c/script\\u003e\\u003cb\\u003ex'), 'the symbol escaped as \\u003c...');
ok('the symbol "</script><b>x" reaches the page as escaped JSON only');
noExternal(html, 'page');
ok('nothing fetched: no src/href on any script, link or img element');

// The differential, by hand. Shares of OTHER (of 20) and of BASE (of 10):
//   main      20/20 = 1.0    10/10 = 1.0   delta  0
//   main;b    16/20 = 0.8     8/10 = 0.8   delta  0
//   main;b;c   4/20 = 0.2     5/10 = 0.5   delta -0.3
//   main;b;d  12/20 = 0.6     3/10 = 0.3   delta +0.3
//   main;f     4/20 = 0.2     0            delta +0.2 (= its value: new)
//   main;e     0              2/10 = 0.2   not drawn: onlyBase 0.2
const d = data.sections[1].panels[0];
assert.strictEqual(d.kind, 'diff');
assert.strictEqual(d.total, 20);
assert.strictEqual(d.baseTotal, 10);
close(d.onlyBase, 0.2, 'onlyBase');
const want = [[[], 1, 0, 20, 10], [['main'], 1, 0, 20, 10], [['main', 'b'], 0.8, 0, 16, 8],
    [['main', 'b', 'c'], 0.2, -0.3, 4, 5], [['main', 'b', 'd'], 0.6, 0.3, 12, 3], [['main', 'f'], 0.2, 0.2, 4, 0]];
for (const [names, value, delta, samples, baseSamples] of want) {
    const n = names.length ? find(d.tree, names) : d.tree;
    const what = names.join(';') || 'all';
    close(n.value, value, `${what} value`);
    close(n.delta, delta, `${what} delta`);
    assert.strictEqual(n.samples, samples, `${what} samples`);
    assert.strictEqual(n.baseSamples, baseSamples, `${what} baseSamples`);
}
assert.ok(!(find(d.tree, ['main']).children || []).some((c) => c.name === 'e'), 'main;e (only in BASE) is drawn');
ok('the differential\'s values and deltas are the share differences computed by hand');

// --- bad input
const bad = write('bad.folded', 'main;a 3\nmain;b three\n');
r = run(flame, [path.join(tmp, 'x.html'), '--graph', `x=${bad}`]);
assert.strictEqual(r.status, 1, `bad line: exit ${r.status}`);
assert.ok(r.stderr.startsWith(`flame: ${bad}:2: `), `bad line: ${r.stderr}`);
assert.strictEqual(r.stderr.trim().split('\n').length, 1, 'one line');
r = run(flame, [path.join(tmp, 'x.html'), '--graph', `x=${path.join(tmp, 'none.folded')}`]);
assert.strictEqual(r.status, 1);
assert.ok(/none\.folded: no such file/.test(r.stderr), r.stderr);
r = run(flame, [path.join(tmp, 'x.html'), '--graph', 'nolabel']);
assert.strictEqual(r.status, 2);
r = run(flame, [path.join(tmp, 'x.html')]);
assert.strictEqual(r.status, 2);
assert.ok(!fs.existsSync(path.join(tmp, 'x.html')), 'a failed run left a page');
ok('bad input: file:line and exit 1; bad usage: exit 2; no page written');

// --- flame-dir
const grp = 'sequential.limit_500.d1';
write(`pd/${grp}/zz.client.folded`, 'runner;main;a 6\n');
write(`pd/${grp}/zz.backend.folded`, 'postgres;main;PortalRun 9\n');
write(`pd/${grp}/zz.client.top.tsv`, 'total\t\t6\ncategory\trunner\t6\nfunction\ta (runner)\t6\n');
write(`pd/${grp}/aa.client.folded`, 'runner;main;b 4\n');
write(`pd/${grp}/aa.backend.folded`, 'postgres;main;PortalRun 5\n');
write('pd/empty/readme.txt', 'no folded files\n');
r = run(flameDir, [path.join(tmp, 'pd'), '--order', 'zz,aa']);
assert.strictEqual(r.status, 0, `flame-dir exited ${r.status}: ${r.stderr}`);
const gpage = fs.readFileSync(path.join(tmp, 'pd', grp, 'index.html'), 'utf8');
const gd = pageData(gpage);
noExternal(gpage, 'group page');
assert.deepStrictEqual(gd.sections.map((s) => s.heading), ['zz', 'aa', 'differential: aa against zz']);
assert.deepStrictEqual(gd.sections[0].panels.map((p) => [p.label, p.total]), [['zz client', 6], ['zz backend', 9]]);
assert.deepStrictEqual(gd.sections[0].panels[0].top.categories, [['runner', 6]]);
assert.strictEqual(gd.sections[0].panels[0].href, 'zz.client.folded');
assert.deepStrictEqual([gd.sections[2].panels[0].baseHref, gd.sections[2].panels[0].otherHref], ['zz.client.folded', 'aa.client.folded']);
assert.deepStrictEqual(gd.sections[2].panels.map((p) => [p.base, p.other]),
    [['zz.client.folded', 'aa.client.folded'], ['zz.backend.folded', 'aa.backend.folded']]);
close(find(gd.sections[2].panels[1].tree, ['postgres', 'main', 'PortalRun']).delta, 0, 'PortalRun delta');
const idx = pageData(fs.readFileSync(path.join(tmp, 'pd', 'index.html'), 'utf8'));
assert.deepStrictEqual(idx.links, [{ href: `${grp}/index.html`, text: `${grp}: zz, aa` }]);
assert.ok(!fs.existsSync(path.join(tmp, 'pd', 'empty', 'index.html')), 'a directory without folded files got a page');
ok('flame-dir: the group page (graphs side by side, differentials against the first driver) and the index');
