'use strict';
// The HTML report (docs/report.md) in a real browser: Debian's chromium,
// headless, driven by playwright-core (npm, pinned by
// scripts/report/package-lock.json; it downloads no browser of its own).
//
//   node tests/report/report_page.js BUILD_DIR [SCREENSHOT.png]
//                                           (tests/server/report_page.sh)
//
// Pages, each written by BUILD_DIR/aggregate --html (or the runner's page
// given in PGCB_REPORT_RUNNER_PAGE) and loaded from a file: URL:
// - the aggregate fixtures a, b, c (three runs; c partial with a FAILED
//   cell): every run, group and driver of each result file is on the page,
//   each row's median, client CPU and status as the file has them, each
//   driver's x lowest its median over the lowest client median (computed
//   here, not read from the page), every per-order median and every
//   percentile-curve point a mark of its figure (<title> "DRIVER, order K:
//   N ns"), the verdict line the page's data gives, the combined and per-run
//   ranking tables as `aggregate --format json` ranks them; the driver
//   filter hides a driver's rows and marks and brings them back; a heading
//   click sorts a table;
// - a real run (tests/aggregate/quick.json, conf/quick.ini on a throw-away
//   server): the same checks, and its screenshot (to SCREENSHOT.png when
//   given: docs/report.png is made so);
// - --baseline (ins15.json, ins16.json): each driver's relative throughput
//   table, every ratio and mark (▲ ▼ *, skipped) as aggregate's JSON says;
// - a concurrency run (tests/aggregate/conc.json): the same, and each
//   driver's throughput, p50 and p99;
// - a streaming run (tests/aggregate/stream.json): each cell's time to
//   first row, rows/s, peak RSS, growth, memory verdict and idiom;
// - the same real run with a FAILED and an INVALID cell: both rows marked
//   "(FAILED)" / "(INVALID)" as the text tables mark them, the error shown;
// - hostile strings (a driver named "</script><img onerror>", quotes, an
//   error message with markup): shown as text, no element injected, no
//   script run;
// and on every page: no console error, no page error, no request at all
// beyond the page itself.
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
const build = path.resolve(process.argv[2] || 'build');
const shotOut = process.argv[3] ? path.resolve(process.argv[3]) : null;
const aggregate = path.join(build, 'aggregate');
const t0 = Date.now();
const say = (msg) => console.log(`report_page: ${msg} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
const fail = (msg) => { console.error(`report_page: FAIL: ${msg}`); process.exit(1); };

let playwright;
try {
    playwright = require(path.join(root, 'build', 'report', 'node_modules', 'playwright-core'));
} catch (e) {
    fail(`playwright-core is not installed in build/report/node_modules (scripts/install-deps.sh installs it): ${e.message}`);
}
const chromiumPath = process.env.PGCB_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromiumPath)) fail(`${chromiumPath} not found: install Debian's package chromium (scripts/install-deps.sh does)`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgcb-report-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const fixture = (name) => path.join(root, 'tests', 'aggregate', name);
const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

function aggregateHtml(name, files, opts = []) {
    const page = path.join(tmp, `${name}.html`);
    const r = cp.spawnSync(aggregate, ['--html', page, ...opts, ...files], { encoding: 'utf8' });
    if (r.status !== 0) fail(`aggregate --html ${files.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return page;
}
function aggregateJson(files, opts = []) {
    const r = cp.spawnSync(aggregate, ['--format', 'json', ...opts, ...files], { encoding: 'utf8' });
    if (r.status !== 0) fail(`aggregate --format json: exit ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout);
}
const fmtNs = (v) => (typeof v === 'number' && Number.isFinite(v) ? String(Math.round(v)) : '-');

// Load a page; every console error, page error and request is recorded.
async function load(browser, file, width = 1200) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const problems = [];
    const pageUrl = `file://${file}`;
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (q) => problems.push(`request failed: ${q.url()}`));
    page.on('request', (q) => { if (q.url() !== pageUrl) problems.push(`request: ${q.url()}`); });
    await page.goto(pageUrl);
    await page.waitForSelector('html[data-rendered="yes"]', { timeout: 10000 });
    return { page, problems };
}

// What the page shows of group g of run i: the row texts by column, the
// figures' mark titles.
async function groupView(page, i, g) {
    return page.evaluate(([run, grp]) => {
        const sec = document.getElementById(`run${run}-g${grp}`);
        if (!sec) return null;
        const rows = {};
        for (const tr of sec.querySelectorAll('tbody tr[data-driver]')) {
            const cells = {};
            for (const c of tr.cells) cells[c.getAttribute('data-col')] = c.textContent;
            rows[tr.getAttribute('data-driver')] = { cells, hidden: tr.hidden, cls: tr.className };
        }
        const figs = {};
        for (const f of sec.querySelectorAll('figure[data-fig]')) figs[f.getAttribute('data-fig')] = Array.from(f.querySelectorAll('svg title')).map((t) => t.textContent);
        return {
            title: sec.querySelector('h3').textContent,
            verdict: sec.querySelector('.verdict').textContent,
            errors: Array.from(sec.querySelectorAll('ul.errors li')).map((l) => l.textContent),
            rows, figs,
        };
    }, [i + 1, g + 1]);
}
async function pageData(page) {
    return page.evaluate(() => JSON.parse(document.getElementById('pgcb-data').textContent));
}

// Every run, group and driver of the result files, with its figures.
async function checkRuns(page, files) {
    const data = await pageData(page);
    let cells = 0, marks = 0;
    for (let i = 0; i < files.length; i++) {
        const res = readJson(files[i]);
        const names = res.drivers.map((d) => d.name);
        const refs = res.drivers.map((d) => (d.caps || []).includes('reference'));
        for (let g = 0; g < res.groups.length; g++) {
            const gr = res.groups[g], where = `${path.basename(files[i])} group ${g + 1} (${gr.suite} / ${gr.query})`;
            const v = await groupView(page, i, g);
            assert(v, `${where}: no section on the page`);
            assert(v.title.startsWith(`${gr.suite} / ${gr.query}`), `${where}: title ${JSON.stringify(v.title)}`);
            assert.strictEqual(v.verdict, data.runs[i].groups[g].verdict, `${where}: verdict`);
            assert(/^(Winner|No clear winner|No verdict possible|Lowest median|No valid client)/.test(v.verdict), `${where}: verdict ${JSON.stringify(v.verdict)}`);
            const conc = !!gr.concurrency;
            const fig = (c) => (conc ? c.time_per_query_ns : c.median_ns);
            // the leader: the lowest median of a valid client driver
            let lowest = Infinity;
            gr.results.forEach((c, d) => { if (c.status === 'ok' && !refs[d] && Number.isFinite(fig(c))) lowest = Math.min(lowest, fig(c)); });
            const nvalid = gr.results.filter((c, d) => c.status === 'ok' && !refs[d]).length;
            gr.results.forEach((c, d) => {
                const row = v.rows[names[d]];
                assert(row, `${where}: no row for ${names[d]}`);
                const shown = row.cells.driver;
                assert(shown.startsWith(names[d]), `${where}: driver cell ${JSON.stringify(shown)}`);
                assert.strictEqual(shown, names[d] + data.runs[i].groups[g].marks[d], `${where}: ${names[d]}'s marks`);
                if (c.status !== 'ok') assert(shown.includes(`(${c.status === 'not_run' ? 'not run' : c.status === 'skipped' ? 'skipped' : c.status.toUpperCase()})`), `${where}: ${shown} unmarked (${c.status})`);
                if (refs[d] && c.status === 'ok') assert(shown.includes('(reference)'), `${where}: ${shown}: no (reference)`);
                if (conc) assert.strictEqual(row.cells.tpq, fmtNs(c.time_per_query_ns), `${where}: ${names[d]} time per query`);
                else assert.strictEqual(row.cells.median, fmtNs(c.median_ns), `${where}: ${names[d]} median`);
                assert.strictEqual(row.cells.cpu, fmtNs(c.cpu_ns_per_query), `${where}: ${names[d]} client CPU`);
                const st = row.cells.status;
                assert.strictEqual(st, c.status === 'ok' ? 'ok' : c.status.toUpperCase().replace('_', ' '), `${where}: ${names[d]} status`);
                if (c.status === 'ok' && nvalid >= 2 && Number.isFinite(fig(c)) && Number.isFinite(lowest)) {
                    const want = (fig(c) / lowest).toFixed(3);
                    assert(row.cells.ratio.startsWith(want), `${where}: ${names[d]} x lowest ${row.cells.ratio}, expected ${want}`);
                }
                if (c.status === 'ok') {
                    (c.order_medians_ns || []).forEach((m, k) => {
                        if (m === null) return;
                        const t = `${names[d]}, order ${k + 1}: ${fmtNs(m)} ns`;
                        assert((v.figs.orders || []).includes(t), `${where}: no per-order mark "${t}"`);
                        marks++;
                    });
                    const pts = (c.percentile_curve || []).filter(([q]) => q < 1);
                    const got = (v.figs.percentiles || []).filter((t) => t.startsWith(`${names[d]}, p`));
                    assert.strictEqual(got.length, pts.length, `${where}: ${names[d]}'s percentile curve has ${got.length} marks, the file ${pts.length} points`);
                    pts.forEach(([, ns], k) => assert(got[k].endsWith(`: ${fmtNs(ns)} ns`), `${where}: ${names[d]} curve point ${k}: ${got[k]}, expected ${fmtNs(ns)} ns`));
                    marks += pts.length;
                    if (Number.isFinite(c.cpu_ns_per_query)) assert((v.figs.cpu || []).includes(`${names[d]} client: ${fmtNs(c.cpu_ns_per_query)} ns`), `${where}: ${names[d]}'s client CPU bar`);
                }
                if (c.error) assert(v.errors.some((e) => e === `${shown}: ${c.error}`), `${where}: ${names[d]}'s error not shown`);
                cells++;
            });
        }
    }
    return { cells, marks };
}

// A ranking table as aggregate ranks it: driver order and relative latency.
async function checkRanking(page, id, rows) {
    const got = await page.evaluate((rid) => Array.from(document.querySelectorAll(`[data-ranking="${rid}"] tbody tr`))
        .map((tr) => [tr.getAttribute('data-driver'), tr.querySelector('[data-col="relative_latency"]').textContent]), id);
    assert.deepStrictEqual(got.map((r) => r[0]), rows.map((r) => r.driver), `ranking ${id}: drivers`);
    rows.forEach((r, k) => assert(got[k][1].startsWith(r.relative_latency.toFixed(3)), `ranking ${id}: ${r.driver} ${got[k][1]}`));
}

function noProblems(name, problems) {
    assert.deepStrictEqual(problems, [], `${name}: console errors or requests`);
}

async function main() {
    const browser = await playwright.chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] });
    try {
        // 1. three runs
        const abc = ['a.json', 'b.json', 'c.json'].map(fixture);
        let { page, problems } = await load(browser, aggregateHtml('abc', abc));
        const n = await checkRuns(page, abc);
        const agg = aggregateJson(abc);
        await checkRanking(page, 'combined-overall', agg.rankings.overall);
        for (let i = 0; i < abc.length; i++) await checkRanking(page, `run${i + 1}-overall`, agg.runs[i].rankings.overall);
        const combinedRows = await page.evaluate(() => document.querySelectorAll('#combined table')[0].tBodies[0].rows.length);
        assert.strictEqual(combinedRows, 3, 'the runs table has a row per run');
        // the filter: libpq_sync off hides its rows and marks, on brings them back
        const off = async (checked) => {
            await page.setChecked('#driver-filter input[value="libpq_sync"]', checked);
            return groupView(page, 0, 0);
        };
        let v = await off(false);
        assert(v.rows.libpq_sync.hidden && !v.rows.rawwire.hidden, 'filter: libpq_sync row not hidden');
        assert(!v.figs.orders.some((t) => t.startsWith('libpq_sync')), 'filter: libpq_sync marks still drawn');
        v = await off(true);
        assert(!v.rows.libpq_sync.hidden && v.figs.orders.some((t) => t.startsWith('libpq_sync')), 'filter: libpq_sync not back');
        // sorting: by median, ascending then descending
        const order = () => page.evaluate(() => Array.from(document.querySelectorAll('#run1-g1 tbody tr')).map((tr) => tr.getAttribute('data-driver')));
        const medHead = page.locator('#run1-g1 thead th', { hasText: 'Latency med' });
        await medHead.click();
        assert.deepStrictEqual(await order(), ['null', 'rawwire', 'libpq_sync'], 'sort ascending by median');
        await medHead.click();
        assert.deepStrictEqual(await order(), ['libpq_sync', 'rawwire', 'null'], 'sort descending by median');
        noProblems('abc', problems);
        await page.close();
        say(`ok: three runs: ${n.cells} cells and ${n.marks} figure marks match the files, rankings, filter, sorting`);

        // 2. a real run (conf/quick.ini), with its screenshot
        const quick = fixture('quick.json');
        ({ page, problems } = await load(browser, aggregateHtml('quick', [quick]), 1320));
        const q = await checkRuns(page, [quick]);
        await checkRanking(page, 'run1-overall', aggregateJson([quick]).runs[0].rankings.overall);
        noProblems('quick', problems);
        // the screenshot: the first group (its verdict, table and figures)
        const shot = path.join(tmp, 'quick.png');
        await page.locator('#run1-g1').screenshot({ path: shot });
        if (shotOut) fs.copyFileSync(shot, shotOut);
        assert(fs.statSync(shot).size > 10000, 'the screenshot is empty');
        await page.close();
        // on a phone: no horizontal scroll of the page itself (tables scroll in their box)
        ({ page, problems } = await load(browser, path.join(tmp, 'quick.html'), 390));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 1, `on a 390 px screen the page is ${overflow} px too wide`);
        noProblems('quick (phone)', problems);
        await page.close();
        say(`ok: a real run: ${q.cells} cells and ${q.marks} figure marks; screenshot ${shotOut || shot}; fits a phone`);

        // a concurrency group (conf/concurrency.ini, three drivers, a tiny budget):
        // throughput, time per query, p50 and p99
        const conc = fixture('conc.json');
        ({ page, problems } = await load(browser, aggregateHtml('conc', [conc])));
        const c = await checkRuns(page, [conc]);
        const cres = readJson(conc);
        v = await groupView(page, 0, 0);
        cres.groups[0].results.forEach((cell, d) => {
            const row = v.rows[cres.drivers[d].name].cells;
            assert.strictEqual(row.qps, fmtNs(cell.queries_per_s), `conc: ${cres.drivers[d].name} throughput`);
            assert.strictEqual(row.p50, fmtNs(cell.percentiles_ns['50']), `conc: ${cres.drivers[d].name} p50`);
            assert.strictEqual(row.p99, fmtNs(cell.percentiles_ns['99']), `conc: ${cres.drivers[d].name} p99`);
        });
        noProblems('conc', problems);
        await page.close();
        say(`ok: a concurrency run: ${c.cells} cells, throughput, p50 and p99`);

        // a streaming run (tests/aggregate/stream.json: conf/stream.ini's shape
        // over libpq_sync and rawwire): each cell's time to first row, rows/s,
        // peak RSS and growth, memory verdict and idiom as the file has them
        const sj = fixture('stream.json');
        ({ page, problems } = await load(browser, aggregateHtml('stream', [sj])));
        const sc = await checkRuns(page, [sj]);
        const sres = readJson(sj);
        let verdicts = 0;
        for (let g = 0; g < sres.groups.length; g++) {
            const sv = await groupView(page, 0, g);
            sres.groups[g].results.forEach((cell, d) => {
                const name = sres.drivers[d].name, row = sv.rows[name].cells, st = cell.stream || {};
                const at = `stream: group ${g + 1}, ${name}`;
                assert.strictEqual(row.first, (st.first_row_ns / 1e6).toFixed(2), `${at}: first row`);
                assert.strictEqual(row.rps, fmtNs(cell.rows_per_s), `${at}: rows/s`);
                assert.strictEqual(row.peak, (cell.memory.peak_kib / 1024).toFixed(1), `${at}: peak RSS`);
                assert.strictEqual(row.growth, (cell.memory.growth_kib / 1024).toFixed(1), `${at}: growth`);
                assert.strictEqual(row.idiom, st.idiom, `${at}: idiom`);
                const want = st.memory_verdict ? `${st.memory_verdict} (${Math.round(st.bytes_per_row)} B/row)` : '';
                assert.strictEqual(row.verdict, want, `${at}: memory verdict`);
                verdicts += !!st.memory_verdict;
            });
        }
        assert.strictEqual(verdicts, 4, 'stream: a verdict for each driver in each suite\'s largest group');
        noProblems('stream', problems);
        await page.close();
        say(`ok: a streaming run: ${sc.cells} cells, first row, rows/s, memory and ${verdicts} verdicts`);

        // --baseline: each driver's relative throughput table, as aggregate's
        // JSON has it, marked as the text marks it
        const ins = ['ins15.json', 'ins16.json'].map(fixture), bopts = ['--baseline', 'pg15', '--label', 'pg15', '--label', 'pg16'];
        ({ page, problems } = await load(browser, aggregateHtml('ins', ins, bopts)));
        const base = aggregateJson(ins, bopts).baseline;
        const shownBase = await page.evaluate(() => Array.from(document.querySelectorAll('.baseline table')).map((t) => [t.caption.textContent,
            Array.from(t.tBodies[0].rows).map((tr) => Array.from(tr.cells).map((c) => c.textContent))]));
        assert.deepStrictEqual(shownBase.map((t) => t[0]), Object.keys(base.drivers), 'baseline: a table per driver');
        let steps = 0;
        for (const [driver, rows] of shownBase) {
            const d = base.drivers[driver];
            const want = (r) => (r.skipped ? 'skipped' : typeof r.ratio !== 'number' ? '-'
                : r.ratio.toFixed(2) + (r.mark === 'up' ? ' ▲' : r.mark === 'down' ? ' ▼' : '') + (r.sla_failed ? ' *' : ''));
            d.steps.forEach((st, k) => { assert.deepStrictEqual(rows[k].slice(2), st.runs.map(want), `baseline: ${driver} step ${k + 1}`); steps++; });
            assert.deepStrictEqual(rows[d.steps.length].slice(2), d.overall.map(want), `baseline: ${driver} overall`);
        }
        noProblems('ins', problems);
        await page.close();
        say(`ok: --baseline: ${steps} steps of ${shownBase.length} drivers, marks as the text's`);

        // 3. the same run with a FAILED and an INVALID cell
        const bad = readJson(quick);
        const g0 = bad.groups[0].results;
        const fd = bad.drivers.findIndex((d) => !(d.caps || []).includes('reference'));
        const id = bad.drivers.findIndex((d, k) => k > fd && !(d.caps || []).includes('reference'));
        g0[fd].status = 'failed';
        g0[fd].error = 'server closed the connection unexpectedly';
        g0[id].status = 'invalid';
        g0[id].error = 'checksum differs from the reference';
        const badFile = path.join(tmp, 'bad.json');
        fs.writeFileSync(badFile, JSON.stringify(bad));
        ({ page, problems } = await load(browser, aggregateHtml('bad', [badFile])));
        await checkRuns(page, [badFile]);
        v = await groupView(page, 0, 0);
        const fname = bad.drivers[fd].name, iname = bad.drivers[id].name;
        assert(v.rows[fname].cells.driver.startsWith(`${fname} (FAILED)`) && v.rows[fname].cells.status === 'FAILED', 'FAILED not marked');
        assert(v.rows[iname].cells.driver.startsWith(`${iname} (INVALID)`) && v.rows[iname].cells.status === 'INVALID', 'INVALID not marked');
        assert(/status-failed/.test(v.rows[fname].cls) && /status-invalid/.test(v.rows[iname].cls), 'FAILED/INVALID rows not styled');
        assert(!v.figs.orders.some((t) => t.startsWith(`${fname},`) || t.startsWith(`${iname},`)), 'a FAILED or INVALID cell is drawn');
        noProblems('bad', problems);
        await page.close();
        say(`ok: ${fname} (FAILED) and ${iname} (INVALID) marked, not drawn`);

        // 4. hostile strings
        const evil = readJson(fixture('a.json'));
        const name = '</script><img src=x onerror="window.__pwned=1">"\'&amp;\u2028';
        const error = '<!-- --></script><b id="injected">bold</b><script>window.__pwned=2</script>';
        evil.drivers[0].name = name;
        evil.drivers[0].description = error;
        for (const gr of evil.groups) { gr.results[0].driver = name; }
        evil.groups[0].results[0].status = 'failed';
        evil.groups[0].results[0].error = error;
        for (const o of evil.orders) o.forEach((d, k) => { if (d === 'libpq_sync') o[k] = name; });
        const evilFile = path.join(tmp, 'evil.json');
        fs.writeFileSync(evilFile, JSON.stringify(evil));
        const evilPage = aggregateHtml('evil', [evilFile]);
        const html = fs.readFileSync(evilPage, 'utf8');
        assert(!html.includes('<img src=x') && !html.includes('<b id="injected">'), 'a hostile string is in the page unescaped');
        assert.strictEqual((html.match(/<\/script>/g) || []).length, 4, 'the page has other than its four </script>');
        ({ page, problems } = await load(browser, evilPage));
        const seen = await page.evaluate(() => ({
            pwned: window.__pwned, imgs: document.querySelectorAll('img').length, injected: !!document.getElementById('injected'),
            bolds: document.querySelectorAll('main b').length,
        }));
        assert.deepStrictEqual(seen, { pwned: undefined, imgs: 0, injected: false, bolds: 0 }, 'hostile strings became markup');
        v = await groupView(page, 0, 0);
        assert(v.rows[name], 'the hostile driver\'s row (data-driver) is missing');
        assert.strictEqual(v.rows[name].cells.driver, `${name} (FAILED)`, 'the hostile name is not shown as text');
        assert(v.errors.includes(`${name} (FAILED): ${error}`), 'the hostile error is not shown as text');
        const header = await page.evaluate(() => document.querySelector('details.header pre').textContent);
        assert(header.includes(name.replace('\u2028', '')) || header.includes(name), 'the header does not name the hostile driver');
        noProblems('evil', problems);
        await page.close();
        say('ok: hostile strings shown as text, nothing injected');

        // 5. the runner's own page (tests/server/report_page.sh makes it)
        const runnerPage = process.env.PGCB_REPORT_RUNNER_PAGE;
        if (runnerPage) {
            ({ page, problems } = await load(browser, path.resolve(runnerPage)));
            const r = await checkRuns(page, [path.resolve(process.env.PGCB_REPORT_RUNNER_JSON)]);
            noProblems('runner', problems);
            await page.close();
            say(`ok: runner --html: ${r.cells} cells match its result file`);
        }
    } finally {
        await browser.close();
    }
}

main().then(() => say('all checks passed'), (e) => fail(e.stack || e.message));
