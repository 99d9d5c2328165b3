#!/usr/bin/env node
'use strict';
// flame-dir -- the flame graph pages of a profile directory (installed as
// build/profile/flame-dir by mk/profile.mk; the runner calls it at the end of
// a profiled run).
//
//   flame-dir PDIR [--order DRIVER,DRIVER,...] [--title TEXT]
//
// PDIR/<group>/ holds <driver>.client.folded and <driver>.backend.folded
// (fold.py's, with their .top.tsv): the layout of issue 28's contract. For
// every such group directory it writes PDIR/<group>/index.html: each
// driver's client and backend graphs side by side, then a differential of
// every other driver against the group's first driver (client and backend),
// and PDIR/index.html linking the groups. The first driver is the first of
// --order present in the group (the runner passes its config's order);
// drivers not in --order follow by name. A group that cannot be rendered
// (a bad folded file) is named on stderr and skipped; exit status 1 if any
// was, 2 on bad usage.
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, 'flamelib.js'));

const prog = 'flame-dir';
const SIDES = ['client', 'backend'];
function usage(msg) {
    if (msg) process.stderr.write(`${prog}: ${msg}\n`);
    process.stderr.write(`usage: ${prog} PDIR [--order DRIVER,DRIVER,...] [--title TEXT]\n`);
    process.exit(2);
}

// The drivers of a group directory: {driver: {client: file, backend: file}}.
function groupDrivers(dir) {
    const drivers = new Map();
    for (const f of fs.readdirSync(dir)) {
        for (const side of SIDES) {
            const suffix = `.${side}.folded`;
            if (f.endsWith(suffix) && f.length > suffix.length) {
                const name = f.slice(0, -suffix.length);
                if (!drivers.has(name)) drivers.set(name, {});
                drivers.get(name)[side] = path.join(dir, f);
            }
        }
    }
    return drivers;
}

function ordered(names, order) {
    const rank = (n) => (order.includes(n) ? order.indexOf(n) : order.length);
    return [...names].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function groupPage(pdir, group, order, title) {
    const dir = path.join(pdir, group);
    const drivers = groupDrivers(dir);
    const names = ordered(drivers.keys(), order);
    const doc = {
        title: `${title ? title + ': ' : ''}${group}`,
        note: `Profiles of group ${group}: each driver's client process and its backends, sampled during ` +
            'its measured orders only (cpu-clock). Differentials against the first driver, ' + names[0] + '.',
        links: [{ href: '../index.html', text: 'all groups' }],
        sections: [],
    };
    for (const n of names) {
        const panels = SIDES.filter((s) => drivers.get(n)[s]).map((s) => {
            const f = path.basename(drivers.get(n)[s]);
            return Object.assign(lib.graphPanel(`${n} ${s}`, f), { href: encodeURIComponent(f) });
        });
        doc.sections.push({ heading: n, panels });
    }
    const base = names[0];
    for (const n of names.slice(1)) {
        const panels = SIDES.filter((s) => drivers.get(n)[s] && drivers.get(base)[s]).map((s) => {
            const b = path.basename(drivers.get(base)[s]);
            const o = path.basename(drivers.get(n)[s]);
            return Object.assign(lib.diffPanel(`${n} against ${base}, ${s}`, b, o),
                { baseHref: encodeURIComponent(b), otherHref: encodeURIComponent(o) });
        });
        if (panels.length) doc.sections.push({ heading: `differential: ${n} against ${base}`, panels });
    }
    return { doc, names };
}

function main(argv) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') usage();
    const pdir = argv[0];
    let order = [];
    let title = '';
    for (let i = 1; i < argv.length; i += 2) {
        if (argv[i + 1] === undefined) usage(`${argv[i]} needs a value`);
        if (argv[i] === '--order') order = argv[i + 1].split(',').filter((s) => s !== '');
        else if (argv[i] === '--title') title = argv[i + 1];
        else usage(`unknown argument ${JSON.stringify(argv[i])}`);
    }
    let entries;
    try {
        entries = fs.readdirSync(pdir, { withFileTypes: true });
    } catch (e) {
        throw new lib.FlameError(`${pdir}: ${e.code === 'ENOENT' ? 'no such directory' : e.message}`);
    }
    const groups = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort()
        .filter((g) => groupDrivers(path.join(pdir, g)).size > 0);
    if (!groups.length) throw new lib.FlameError(`${pdir}: no group directory with *.client.folded or *.backend.folded files`);
    const links = [];
    let failed = 0;
    // Folded paths are relative to the group's directory (the page names them so).
    const cwd = process.cwd();
    for (const g of groups) {
        try {
            process.chdir(path.resolve(cwd, pdir, g));
            const { doc, names } = groupPage(path.resolve(cwd, pdir), g, order, title);
            lib.writeFileAtomic('index.html', lib.renderPage(doc, __dirname));
            links.push({ href: `${encodeURIComponent(g)}/index.html`, text: `${g}: ${names.join(', ')}` });
        } catch (e) {
            if (!(e instanceof lib.FlameError)) throw e;
            process.stderr.write(`${prog}: group ${g}: ${e.message}\n`);
            failed++;
        } finally {
            process.chdir(cwd);
        }
    }
    const index = {
        title: title || `profiles in ${path.basename(path.resolve(pdir))}`,
        note: `${links.length} groups${failed ? `, ${failed} not rendered (see the runner's log)` : ''}. Each page has ` +
            'the client and backend flame graphs of every profiled driver and the differentials against the first driver.',
        links,
        sections: [],
    };
    lib.writeFileAtomic(path.join(pdir, 'index.html'), lib.renderPage(index, __dirname));
    return failed ? 1 : 0;
}

try {
    process.exitCode = main(process.argv.slice(2));
} catch (e) {
    if (!(e instanceof lib.FlameError)) throw e;
    process.stderr.write(`${prog}: ${e.message}\n`);
    process.exit(1);
}
