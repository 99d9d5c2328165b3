#!/usr/bin/env node
'use strict';
// flame -- one self-contained HTML page of flame graphs from folded stacks
// (installed as build/profile/flame by mk/profile.mk).
//
//   flame PAGE.html [--title TEXT] [--note TEXT] [--section HEADING] PANEL...
//     PANEL = --graph LABEL=FILE.folded          a flame graph (search, zoom)
//           | --diff LABEL=BASE.folded,OTHER.folded
//                   a differential graph: OTHER's stacks coloured by how much
//                   more (red) or less (blue) of OTHER's samples they take
//                   than of BASE's, both normalised to shares of their totals
//     --section HEADING   starts a new row of panels under HEADING (panels of
//                         one section sit side by side on a wide window)
//
// d3 and d3-flame-graph (npm, pinned: scripts/profile/flame/package-lock.json)
// are inlined into the page with its data: opening it fetches nothing. A
// graph's FILE.top.tsv (fold.py writes it beside FILE.folded), when there is
// one, adds its category table under the graph. docs/flamegraphs.md says how
// to read the pages. Bad input: one line naming file:line, exit status 1;
// bad usage: exit status 2.
const fs = require('fs');
const path = require('path');
const lib = require(path.join(__dirname, 'flamelib.js'));

const prog = 'flame';
function usage(msg) {
    if (msg) process.stderr.write(`${prog}: ${msg}\n`);
    process.stderr.write(`usage: ${prog} PAGE.html [--title TEXT] [--note TEXT] [--section HEADING] ` +
        '(--graph LABEL=FILE.folded | --diff LABEL=BASE.folded,OTHER.folded)...\n');
    process.exit(2);
}

// "LABEL=REST": the label ends at the first '='.
function labelled(opt, arg) {
    const eq = arg.indexOf('=');
    if (eq <= 0 || eq === arg.length - 1) usage(`${opt} ${JSON.stringify(arg)}: expected LABEL=FILE`);
    return [arg.slice(0, eq), arg.slice(eq + 1)];
}

// "BASE,OTHER": split at the one ',' (or, when the paths hold commas, at the
// one where both files exist).
function pair(opt, arg) {
    const cuts = [];
    for (let i = arg.indexOf(','); i > 0 && i < arg.length - 1; i = arg.indexOf(',', i + 1)) cuts.push(i);
    const found = cuts.length === 1 ? cuts : cuts.filter((i) => fs.existsSync(arg.slice(0, i)) && fs.existsSync(arg.slice(i + 1)));
    if (found.length !== 1) usage(`${opt} ...=${JSON.stringify(arg)}: expected BASE.folded,OTHER.folded`);
    return [arg.slice(0, found[0]), arg.slice(found[0] + 1)];
}

function main(argv) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') usage();
    const page = argv[0];
    if (page.startsWith('-')) usage('the first argument is the page to write (PAGE.html)');
    const pageDir = path.dirname(path.resolve(page));
    const doc = { title: 'flame graphs', sections: [] };
    let section = null;
    const panels = () => {
        if (!section) {
            section = { heading: '', panels: [] };
            doc.sections.push(section);
        }
        return section.panels;
    };
    for (let i = 1; i < argv.length; i += 2) {
        const opt = argv[i];
        const val = argv[i + 1];
        if (!['--title', '--note', '--section', '--graph', '--diff'].includes(opt)) usage(`unknown argument ${JSON.stringify(opt)}`);
        if (val === undefined) usage(`${opt} needs a value`);
        if (opt === '--title') doc.title = val;
        else if (opt === '--note') doc.note = val;
        else if (opt === '--section') {
            section = { heading: val, panels: [] };
            doc.sections.push(section);
        } else if (opt === '--graph') {
            const [label, file] = labelled(opt, val);
            panels().push(Object.assign(lib.graphPanel(label, file), { href: lib.hrefFrom(pageDir, file) }));
        } else {
            const [label, files] = labelled(opt, val);
            const [base, other] = pair(opt, files);
            panels().push(Object.assign(lib.diffPanel(label, base, other),
                { baseHref: lib.hrefFrom(pageDir, base), otherHref: lib.hrefFrom(pageDir, other) }));
        }
    }
    if (!doc.sections.some((s) => s.panels.length)) usage('no panel (--graph or --diff)');
    lib.writeFileAtomic(page, lib.renderPage(doc, __dirname));
}

try {
    main(process.argv.slice(2));
} catch (e) {
    if (!(e instanceof lib.FlameError)) throw e;
    process.stderr.write(`${prog}: ${e.message}\n`);
    process.exit(1);
}
