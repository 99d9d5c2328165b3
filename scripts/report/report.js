'use strict';
// report.js -- draws the HTML report (docs/report.md) from its data block,
// <script type="application/json" id="pgcb-data">, which common/html.c
// writes: {generator, runs: [{label, file, header, groups: [{title, verdict,
// marks, x_floor, text}], result}], combined}. `result` is the run's result
// JSON (docs/results.md); the titles, verdicts and marks are the console
// report's own words. d3 and Observable Plot (window.d3, window.Plot) are
// inlined before this script.
//
// Every string reaches the page through textContent or an attribute value,
// never as markup (no innerHTML anywhere): a driver named "<b>" (or a
// closing script tag)
// shows as those characters. The figures are SVG (Plot): each mark carries a
// <title> with its figure ("rawwire: 24000 ns"), which a reader sees on hover
// and the browser test (tests/report/) compares with the JSON.
(function () {
    const data = JSON.parse(document.getElementById('pgcb-data').textContent);
    const root = document.getElementById('report');
    const redraws = []; // figures, drawn again when the driver filter changes
    const shown = new Set(); // the drivers the filter shows

    // ---- DOM helpers ------------------------------------------------------
    // el('td', {class: 'num', 'data-sort': 3}, 'text', child...): attributes
    // by setAttribute, children strings as text nodes.
    function el(tag, attrs, ...kids) {
        const e = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v !== null && v !== undefined && v !== false) e.setAttribute(k, String(v));
        }
        for (const k of kids) {
            if (k === null || k === undefined) continue;
            e.appendChild(typeof k === 'string' || typeof k === 'number' ? document.createTextNode(String(k)) : k);
        }
        return e;
    }
    const fin = (v) => typeof v === 'number' && Number.isFinite(v);
    const ns = (v) => (fin(v) ? String(Math.round(v)) : '-');
    const ratio = (v) => (fin(v) ? v.toFixed(3) : '-');
    const interval = (iv) => (Array.isArray(iv) && fin(iv[0]) && fin(iv[1]) ? ` [${iv[0].toFixed(3)}, ${iv[1].toFixed(3)}]` : '');
    const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

    // ---- sortable tables --------------------------------------------------
    // table(columns, rows): columns [{name, num}], rows [{driver, cells:
    // [{text, sort, cls, title}]}]. A click on a heading sorts by it
    // (numbers by data-sort, else by text; again: the other way).
    function table(columns, rows, caption) {
        const t = el('table', { class: 'sortable' });
        if (caption) t.appendChild(el('caption', {}, caption));
        const head = el('tr');
        columns.forEach((c, i) => {
            const th = el('th', { scope: 'col', class: c.num ? 'num' : null, tabindex: 0, 'aria-sort': 'none' }, c.name);
            const sort = () => sortBy(t, i, c.num, th);
            th.addEventListener('click', sort);
            th.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); sort(); } });
            head.appendChild(th);
        });
        t.appendChild(el('thead', {}, head));
        const body = el('tbody');
        for (const r of rows) {
            const tr = el('tr', { 'data-driver': r.driver, class: r.cls });
            r.cells.forEach((c, i) => {
                tr.appendChild(el(i === 0 ? 'th' : 'td', {
                    scope: i === 0 ? 'row' : null, class: [columns[i].num ? 'num' : '', c.cls || ''].join(' ').trim() || null,
                    'data-sort': fin(c.sort) ? c.sort : null, 'data-col': columns[i].key || null, title: c.title,
                }, c.text));
            });
            body.appendChild(tr);
        }
        t.appendChild(body);
        return el('div', { class: 'table-wrap' }, t);
    }
    function sortBy(t, col, num, th) {
        const asc = th.getAttribute('aria-sort') !== 'ascending';
        for (const h of t.tHead.rows[0].cells) h.setAttribute('aria-sort', 'none');
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        const body = t.tBodies[0];
        const key = (tr) => {
            const c = tr.cells[col];
            if (!num) return c.textContent;
            const v = parseFloat(c.getAttribute('data-sort'));
            return Number.isFinite(v) ? v : Infinity; // unknown figures last
        };
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
            const x = key(a), y = key(b);
            const d = num ? (x === y ? 0 : x < y ? -1 : 1) : String(x).localeCompare(String(y));
            return asc ? d : -d;
        });
        for (const r of rows) body.appendChild(r);
    }

    // ---- figures (Observable Plot) ----------------------------------------
    // figure(kind, caption, draw): a <figure data-fig=kind> whose SVG
    // draw(drivers shown, width) makes; drawn again on a filter change.
    // draw returns null when there is nothing to draw.
    function figure(kind, caption, draw) {
        const f = el('figure', { class: 'fig', 'data-fig': kind });
        const body = el('div', { class: 'fig-body' });
        f.appendChild(body);
        f.appendChild(el('figcaption', {}, caption));
        const redraw = () => {
            const width = Math.max(280, Math.min(640, (f.parentElement || root).clientWidth - 8 || 640));
            const svg = draw((d) => shown.has(d), width);
            body.replaceChildren(svg || el('p', { class: 'empty' }, 'Nothing to draw for the drivers shown.'));
        };
        redraws.push(redraw);
        return { node: f, redraw };
    }
    const colour = (() => {
        const all = [];
        for (const run of data.runs) for (const d of run.result.drivers || []) if (!all.includes(d.name)) all.push(d.name);
        const scheme = d3.schemeTableau10;
        return { domain: all, range: all.map((_, i) => scheme[i % scheme.length]) };
    })();
    // Drivers in the run's order, as the tables list them.
    const byRunOrder = (names) => colour.domain.filter((d) => names.includes(d));
    const sortedDomain = (rows) => rows.map((r) => r.driver); // as given: rank order, run order

    // The medians relative to the lowest, with their intervals (x lowest):
    // a dot and a line per driver.
    function drawRatios(rows, keep, width, label) {
        rows = rows.filter((r) => keep(r.driver) && fin(r.ratio));
        if (!rows.length) return null;
        const hi = d3.max(rows, (r) => (fin(r.hi) ? r.hi : r.ratio));
        return Plot.plot({
            width, height: 40 + 28 * rows.length, marginLeft: 130, marginRight: 60,
            x: { label, domain: [Math.min(1, d3.min(rows, (r) => (fin(r.lo) ? r.lo : r.ratio))) * 0.98, hi * 1.04], grid: true },
            y: { label: null, domain: sortedDomain(rows) },
            color: colour,
            marks: [
                Plot.ruleX([1], { stroke: '#999' }),
                Plot.link(rows.filter((r) => fin(r.lo)), { x1: 'lo', x2: 'hi', y1: 'driver', y2: 'driver', stroke: 'driver', strokeWidth: 2 }),
                Plot.dot(rows, { x: 'ratio', y: 'driver', fill: 'driver', r: 5, title: (r) => `${r.driver}: ${ratio(r.ratio)}${interval([r.lo, r.hi])}` }),
                Plot.text(rows, { x: 'ratio', y: 'driver', text: (r) => ratio(r.ratio), dy: -10, fontSize: 10 }),
            ],
        });
    }

    // ---- one run: the header, the rankings, the groups ---------------------
    function cellOf(group, d) { return group.results[d]; }
    function driverName(run, g, d) { return run.result.drivers[d].name + (run.groups[g].marks[d] || ''); }
    function statusClass(c) { return c.status === 'ok' ? null : `status-${c.status}`; }

    function rankingBlock(title, rows, leftOut, unranked, id) {
        const sec = el('div', { class: 'ranking', 'data-ranking': id });
        sec.appendChild(el('h4', {}, title));
        if (!rows || !rows.length) {
            sec.appendChild(el('p', {}, 'Nothing to rank.'));
            return sec;
        }
        const cols = [{ name: 'Rank', num: true, key: 'rank' }, { name: 'Driver', key: 'driver' },
            { name: 'Relative latency [interval]', num: true, key: 'relative_latency' },
            { name: 'Slower than best', num: true, key: 'slower' }, { name: 'Fastest median', num: true, key: 'fastest' },
            { name: 'Outright wins', num: true, key: 'wins' }];
        const trs = rows.map((r) => ({
            driver: r.driver,
            cells: [
                { text: String(r.rank), sort: r.rank },
                { text: r.driver },
                { text: ratio(r.relative_latency) + interval(r.relative_latency_interval), sort: r.relative_latency },
                { text: fin(r.slower_than_best_pct) ? `+${r.slower_than_best_pct.toFixed(1)}%` : '-', sort: r.slower_than_best_pct },
                { text: `${r.fastest_median}/${r.groups}`, sort: r.fastest_median },
                { text: `${r.outright_wins}/${r.groups}`, sort: r.outright_wins },
            ],
        }));
        sec.appendChild(table(cols, trs));
        const pts = rows.map((r) => ({
            driver: r.driver, ratio: r.relative_latency,
            lo: (r.relative_latency_interval || [])[0], hi: (r.relative_latency_interval || [])[1],
        }));
        const f = figure('ranking', `${title}: relative latency (1 = the best in every group), with its interval`,
            (keep, w) => drawRatios(pts, keep, w, 'relative latency (geometric mean over the groups) →'));
        sec.appendChild(f.node);
        const notes = [];
        for (const l of leftOut || []) notes.push(`Left out: ${l.suite} / ${l.query}${l.depth ? `, depth ${l.depth}` : ''}${fin(l.run) ? ` (run ${l.run})` : ''}: ${l.why}`);
        for (const u of unranked || []) notes.push(`Not ranked: ${u.driver}: ${u.why}`);
        if (notes.length) sec.appendChild(el('ul', { class: 'notes' }, ...notes.map((n) => el('li', {}, n))));
        return sec;
    }

    function rankings(rk, prefix) {
        const box = el('div', { class: 'rankings' });
        if (!rk) return box;
        const suites = Object.keys(rk.suites || {});
        box.appendChild(rankingBlock('Overall', rk.overall, rk.left_out, rk.unranked, `${prefix}-overall`));
        if (suites.length > 1) for (const s of suites) box.appendChild(rankingBlock(`Suite ${s}`, rk.suites[s], null, null, `${prefix}-suite-${slug(s)}`));
        return box;
    }

    // The group's table: the text table's figures, a row per driver.
    function groupTable(run, g) {
        const gr = run.result.groups[g], conc = !!gr.concurrency, conn = !!gr.connect;
        const per = conn ? 'conn' : 'query';
        const backendKnown = gr.results.some((c) => c.backend && fin(c.backend.cpu_ns_per_query));
        const serverKnown = backendKnown || gr.results.some((c) => fin(c.server_cpu_ns_per_query));
        const floorKnown = run.groups[g].x_floor.some(fin);
        const cols = [{ name: 'Driver', key: 'driver' }];
        if (conc) {
            cols.push({ name: 'Throughput (queries/s)', num: true, key: 'qps' }, { name: 'Time per query (ns)', num: true, key: 'tpq' },
                { name: 'x best [CI]', num: true, key: 'ratio' }, { name: 'p50 (ns)', num: true, key: 'p50' }, { name: 'p99 (ns)', num: true, key: 'p99' },
                { name: 'Client CPU (ns/query)', num: true, key: 'cpu' }, { name: 'Client busy', num: true, key: 'busy' },
                { name: 'Bottleneck', key: 'bottleneck' });
        } else {
            cols.push({ name: 'Latency med (ns)', num: true, key: 'median' }, { name: 'x lowest [CI]', num: true, key: 'ratio' });
            if (floorKnown) cols.push({ name: 'x floor', num: true, key: 'floor' });
            cols.push({ name: conn ? 'Connections/s' : 'Queries/s', num: true, key: 'qps' }, { name: 'Samples', num: true, key: 'samples' },
                { name: `Client CPU (ns/${per})`, num: true, key: 'cpu' });
        }
        if (serverKnown && !conc) cols.push({ name: backendKnown ? `Backend CPU (ns/${per})` : `Server CPU (ns/${per})`, num: true, key: 'server' });
        // Memory (issue 42): the client's processes' peak RSS and its growth in the orders;
        // a streaming group's time to first row, rows/s, memory verdict and idiom.
        const memKnown = gr.results.some((c) => c.memory && fin(c.memory.peak_kib));
        const stream = !!gr.stream;
        if (stream) cols.push({ name: 'First row (ms)', num: true, key: 'first' }, { name: 'Rows/s', num: true, key: 'rps' });
        if (memKnown) cols.push({ name: 'Peak RSS (MiB)', num: true, key: 'peak' }, { name: 'Growth (MiB)', num: true, key: 'growth' });
        if (stream) cols.push({ name: 'Memory', key: 'verdict' }, { name: 'Idiom', key: 'idiom' });
        // The wire (issue 41): round trips and bytes per query as the proxy counted them,
        // and at an RTT above 0 the expectation (docs/network.md).
        const wireKnown = gr.results.some((c) => c.wire);
        const expectKnown = gr.results.some((c) => c.wire && fin(c.wire.expected_ns));
        if (expectKnown) cols.push({ name: 'Expected (ns)', num: true, key: 'expected' });
        if (wireKnown) cols.push({ name: `RT/${conn ? 'conn' : 'q'}`, num: true, key: 'rt' }, { name: 'B→', num: true, key: 'bout' },
            { name: 'B←', num: true, key: 'bin' });
        cols.push({ name: 'Status', key: 'status' });
        const rows = gr.results.map((c, d) => {
            const vs = c.vs_leader || {};
            const cells = [{ text: driverName(run, g, d) }];
            const srv = backendKnown ? (c.backend ? c.backend.cpu_ns_per_query : null) : c.server_cpu_ns_per_query;
            if (conc) {
                const p = c.percentiles_ns || {};
                cells.push({ text: ns(c.queries_per_s), sort: c.queries_per_s }, { text: ns(c.time_per_query_ns), sort: c.time_per_query_ns },
                    { text: ratio(vs.ratio) + interval(vs.interval), sort: vs.ratio }, { text: ns(p['50']), sort: p['50'] },
                    { text: ns(p['99']), sort: p['99'] }, { text: ns(c.cpu_ns_per_query), sort: c.cpu_ns_per_query },
                    { text: fin(c.client_busy) ? c.client_busy.toFixed(2) : '-', sort: c.client_busy }, { text: c.bottleneck || '-' });
            } else {
                cells.push({ text: ns(c.median_ns), sort: c.median_ns }, { text: ratio(vs.ratio) + interval(vs.interval), sort: vs.ratio });
                if (floorKnown) cells.push({ text: fin(run.groups[g].x_floor[d]) ? run.groups[g].x_floor[d].toFixed(2) : '-', sort: run.groups[g].x_floor[d] });
                cells.push({ text: ns(c.queries_per_s), sort: c.queries_per_s }, { text: String(c.samples || 0), sort: c.samples },
                    { text: ns(c.cpu_ns_per_query), sort: c.cpu_ns_per_query });
            }
            if (serverKnown && !conc) cells.push({ text: ns(srv), sort: srv });
            const st = c.stream || {}, m = c.memory || {};
            const mib = (k) => (fin(k) ? (k / 1024).toFixed(1) : '-');
            if (stream) cells.push({ text: fin(st.first_row_ns) ? (st.first_row_ns / 1e6).toFixed(2) : '-', sort: st.first_row_ns },
                { text: ns(c.rows_per_s), sort: c.rows_per_s });
            if (memKnown) cells.push({ text: mib(m.peak_kib), sort: m.peak_kib }, { text: mib(m.growth_kib), sort: m.growth_kib });
            if (stream) cells.push({ text: st.memory_verdict ? `${st.memory_verdict} (${Math.round(st.bytes_per_row)} B/row)` : '' },
                { text: c.status === 'ok' ? (st.idiom || '') : (c.error || '') });
            const w = c.wire || {};
            if (expectKnown) cells.push({ text: ns(w.expected_ns), sort: w.expected_ns });
            if (wireKnown) cells.push({ text: fin(w.round_trips) ? String(+w.round_trips.toPrecision(3)) : '-', sort: w.round_trips },
                { text: ns(w.bytes_out), sort: w.bytes_out }, { text: ns(w.bytes_in), sort: w.bytes_in });
            cells.push({ text: c.status === 'ok' ? 'ok' : c.status.toUpperCase().replace('_', ' '), cls: statusClass(c) });
            return { driver: run.result.drivers[d].name, cls: statusClass(c), cells };
        });
        return table(cols, rows);
    }

    function groupFigures(run, g) {
        const gr = run.result.groups[g], box = el('div', { class: 'figs' });
        const names = run.result.drivers.map((d) => d.name);
        const valid = (d) => gr.results[d].status === 'ok';
        const rows = gr.results.map((c, d) => ({ c, d, driver: names[d] })).filter((x) => valid(x.d));
        const what = gr.concurrency ? 'time per query' : 'median';
        // x lowest, with its interval
        const pts = rows.map(({ c, driver }) => {
            const vs = c.vs_leader || {};
            return { driver, ratio: vs.ratio, lo: (vs.interval || [])[0], hi: (vs.interval || [])[1] };
        });
        if (pts.some((p) => fin(p.ratio))) {
            box.appendChild(figure('ratio', `Each driver's ${what} over the lowest (x lowest), with its interval`,
                (keep, w) => drawRatios(pts, keep, w, `x lowest (${what} / the lowest ${what}) →`)).node);
        }
        // CPU per query: client and backend (or the whole server), stacked
        const cpu = [];
        for (const { c, driver } of rows) {
            if (fin(c.cpu_ns_per_query)) cpu.push({ driver, side: 'client', v: c.cpu_ns_per_query });
            const b = c.backend && fin(c.backend.cpu_ns_per_query) ? c.backend.cpu_ns_per_query : null;
            if (fin(b)) cpu.push({ driver, side: 'backend', v: b });
            else if (fin(c.server_cpu_ns_per_query)) cpu.push({ driver, side: 'server', v: c.server_cpu_ns_per_query });
        }
        const unit = gr.connect ? 'connection' : 'query';
        if (cpu.length) {
            box.appendChild(figure('cpu', `CPU time per ${unit}: the client's, and its backends' (or the whole server's)`, (keep, w) => {
                const v = cpu.filter((x) => keep(x.driver));
                if (!v.length) return null;
                return Plot.plot({
                    width: w, height: 50 + 28 * new Set(v.map((x) => x.driver)).size, marginLeft: 130,
                    x: { label: `ns per ${unit} →`, grid: true }, y: { label: null, domain: byRunOrder(v.map((x) => x.driver)) },
                    color: { domain: ['client', 'backend', 'server'], range: ['#4e79a7', '#f28e2b', '#bab0ac'], legend: true },
                    marks: [Plot.barX(v, Plot.stackX({ x: 'v', y: 'driver', fill: 'side', title: (x) => `${x.driver} ${x.side}: ${ns(x.v)} ns` })), Plot.ruleX([0])],
                });
            }).node);
        }
        // per-order medians as dots, the pooled median as a tick
        const orders = [];
        for (const { c, driver } of rows) (c.order_medians_ns || []).forEach((v, i) => { if (fin(v)) orders.push({ driver, order: i + 1, v }); });
        if (orders.length) {
            const pooled = rows.filter(({ c }) => fin(gr.concurrency ? c.time_per_query_ns : c.median_ns))
                .map(({ c, driver }) => ({ driver, v: gr.concurrency ? c.time_per_query_ns : c.median_ns }));
            box.appendChild(figure('orders', `Each execution order's ${gr.concurrency ? 'time per query' : 'median'} (dots) and the pooled one (tick): the noise the verdict had to beat`, (keep, w) => {
                const v = orders.filter((x) => keep(x.driver));
                if (!v.length) return null;
                const lo = d3.min(v, (x) => x.v), hi = d3.max(v, (x) => x.v);
                return Plot.plot({
                    width: w, height: 50 + 28 * new Set(v.map((x) => x.driver)).size, marginLeft: 130,
                    x: { label: 'ns →', type: hi / lo > 20 ? 'log' : 'linear', grid: true }, y: { label: null, domain: byRunOrder(v.map((x) => x.driver)) }, color: colour,
                    marks: [
                        Plot.tickX(pooled.filter((x) => keep(x.driver)), { x: 'v', y: 'driver', stroke: '#333', strokeWidth: 2, title: (x) => `${x.driver}: pooled ${ns(x.v)} ns` }),
                        Plot.dot(v, { x: 'v', y: 'driver', stroke: 'driver', r: 3.5, title: (x) => `${x.driver}, order ${x.order}: ${ns(x.v)} ns` }),
                    ],
                });
            }).node);
        }
        // the latency percentile curves of every driver on one log-log plot
        const curve = [];
        for (const { c, driver } of rows) {
            for (const [q, v] of c.percentile_curve || []) if (fin(q) && q < 1 && fin(v) && v > 0) curve.push({ driver, x: 1 / (1 - q), q, v });
        }
        if (curve.length) {
            const pctLabel = (x) => `${+(100 * (1 - 1 / x)).toFixed(4)}%`;
            box.appendChild(figure('percentiles', `Latency by percentile (${gr.concurrency ? 'per query' : 'per sample'}), every driver: x is 1/(1 − q) on a log scale`, (keep, w) => {
                const v = curve.filter((x) => keep(x.driver));
                if (!v.length) return null;
                return Plot.plot({
                    width: w, height: 300, marginLeft: 60,
                    x: { type: 'log', label: 'percentile →', tickFormat: pctLabel, ticks: [1, 2, 10, 100, 1000, 10000, 100000].filter((t) => t <= d3.max(v, (p) => p.x) * 1.01) },
                    y: { type: 'log', label: '↑ latency (ns)', grid: true },
                    color: { ...colour, legend: true },
                    marks: [Plot.line(v, { x: 'x', y: 'v', stroke: 'driver', z: 'driver' }),
                        Plot.dot(v, { x: 'x', y: 'v', fill: 'driver', r: 2, title: (p) => `${p.driver}, p${(100 * p.q).toFixed(3).replace(/\.?0+$/, '')}: ${ns(p.v)} ns` })],
                });
            }).node);
        }
        return box;
    }

    function groupSection(run, g, prefix) {
        const gr = run.result.groups[g], info = run.groups[g];
        const sec = el('section', { class: 'group', id: `${prefix}-g${g + 1}`, 'data-group': `${gr.suite}/${gr.query}` });
        sec.appendChild(el('h3', {}, info.title || `${gr.suite} / ${gr.query}`));
        if (gr.partial) sec.appendChild(el('p', { class: 'badge partial' }, `PARTIAL: ${gr.partial.orders} of ${gr.partial.of} execution orders`));
        sec.appendChild(el('p', { class: 'verdict' }, info.verdict));
        sec.appendChild(groupTable(run, g));
        const notes = [];
        gr.results.forEach((c, d) => { if (c.error) notes.push(`${driverName(run, g, d)}: ${c.error}`); });
        if (notes.length) sec.appendChild(el('ul', { class: 'notes errors' }, ...notes.map((n) => el('li', {}, n))));
        sec.appendChild(groupFigures(run, g));
        sec.appendChild(el('details', { class: 'text' }, el('summary', {}, 'As the console prints it'), el('pre', {}, info.text)));
        return sec;
    }

    function runSection(run, i) {
        const prefix = `run${i + 1}`, res = run.result;
        const sec = el('section', { class: 'run', id: prefix, 'data-run': i + 1 });
        sec.appendChild(el('h2', {}, data.runs.length > 1 ? `Run ${i + 1}: ${run.label}` : run.label));
        const facts = [`${res.groups.length} groups`, `${res.drivers.length} drivers`, `server ${res.server && res.server.version ? res.server.version : 'unknown'}`,
            `started ${res.started_at || '?'}`];
        if (res.complete === false) facts.push(`PARTIAL: ${res.stop_reason || 'interrupted'}`);
        sec.appendChild(el('p', { class: 'facts' }, facts.join(' · ')));
        sec.appendChild(el('details', { class: 'header' }, el('summary', {}, 'Machine, server, pinning, noise, protocol, budget and the drivers\' versions'),
            el('pre', {}, run.header), run.file ? el('p', {}, `Result file: ${run.file}`) : null));
        sec.appendChild(el('h3', {}, 'Rankings'));
        sec.appendChild(rankings(res.rankings, prefix));
        res.groups.forEach((_, g) => sec.appendChild(groupSection(run, g, prefix)));
        return sec;
    }

    // ---- several runs: what they make together (aggregate's JSON) ---------
    function combinedSection(c) {
        const sec = el('section', { class: 'combined', id: 'combined' });
        sec.appendChild(el('h2', {}, `All ${c.runs_count} runs together`));
        if (c.notes && c.notes.length) sec.appendChild(el('ul', { class: 'notes' }, ...c.notes.map((n) => el('li', {}, n))));
        const drivers = ((c.rankings || {}).overall || []).map((r) => r.driver); // ranked, best first
        const cols = [{ name: 'Run', key: 'run' }, { name: 'Server', key: 'server' }, { name: 'Groups', num: true, key: 'groups' }]
            .concat(drivers.map((d) => ({ name: d, num: true, key: `rel-${d}` })));
        const rows = c.runs.map((r) => ({
            driver: '', cells: [{ text: `${r.run}: ${r.label}${r.complete ? '' : ' (partial)'}` }, { text: r.server_version || '-' },
                { text: `${r.groups_ranked}/${r.groups_shared}`, sort: r.groups_ranked }]
                .concat(drivers.map((d) => ({ text: ratio((r.relative_latency || {})[d]) + ((r.ranked_first || []).includes(d) ? ' (first)' : ''), sort: (r.relative_latency || {})[d] }))),
        }));
        sec.appendChild(el('h3', {}, 'The runs: each driver\'s relative latency in each'));
        sec.appendChild(table(cols, rows));
        sec.appendChild(el('h3', {}, 'Rankings over every run'));
        sec.appendChild(rankings(c.rankings, 'combined'));
        const gcols = [{ name: 'Group', key: 'group' }, { name: 'Runs', num: true, key: 'runs' }].concat(drivers.map((d) => ({ name: d, num: true, key: `rel-${d}` })));
        const grows = (c.groups || []).map((g) => ({
            driver: '', cells: [{ text: `${g.suite} / ${g.query}, depth ${g.depth}` }, { text: String(g.runs), sort: g.runs }]
                .concat(drivers.map((d) => ({ text: ratio((g.relative_latency || {})[d]), sort: (g.relative_latency || {})[d] }))),
        }));
        sec.appendChild(el('h3', {}, 'Per group: relative latency pooled over the runs'));
        sec.appendChild(table(gcols, grows));
        if (c.baseline) sec.appendChild(baselineBlock(c.baseline));
        return sec;
    }

    // --baseline: per driver, each step's queries/s relative to the baseline
    // label's, marked as the text marks it (▲ ▼ beyond the threshold, *
    // background SLA missed, skipped).
    function baselineBlock(b) {
        const box = el('div', { class: 'baseline', 'data-baseline': b.label });
        box.appendChild(el('h3', {}, `Relative throughput: queries/s relative to "${b.label}"`));
        box.appendChild(el('p', { class: 'legend' }, `▲ more than ${b.threshold_pct}% higher, ▼ more than ${b.threshold_pct}% lower, * a background load missed its rate, - no valid result, skipped: the driver cannot run the step (not counted). Overall: geometric mean over the steps where every label has a value.`));
        const cell = (r) => {
            if (!r) return { text: '-' };
            if (r.skipped) return { text: 'skipped' };
            if (!fin(r.ratio)) return { text: '-' };
            return { text: r.ratio.toFixed(2) + (r.mark === 'up' ? ' ▲' : r.mark === 'down' ? ' ▼' : '') + (r.sla_failed ? ' *' : ''), sort: r.ratio };
        };
        for (const [driver, d] of Object.entries(b.drivers || {})) {
            const cols = [{ name: 'Step', key: 'step' }, { name: `Queries/s (${b.label})`, num: true, key: 'base' }]
                .concat(b.labels.map((l) => ({ name: l, num: true, key: `label-${l}` })));
            const rows = (d.steps || []).map((st) => ({
                driver, cells: [{ text: `${st.suite} / ${st.query} / ${st.transaction ? 'rows_per_txn' : 'depth'} ${st.depth}` },
                    { text: ns(st.baseline_queries_per_s), sort: st.baseline_queries_per_s }]
                    .concat(b.labels.map((l) => cell(st.runs.find((r) => r.label === l)))),
            }));
            rows.push({ driver, cls: 'overall', cells: [{ text: 'Overall' }, { text: '' }].concat(b.labels.map((l) => cell((d.overall || []).find((r) => r.label === l)))) });
            box.appendChild(table(cols, rows, driver));
        }
        return box;
    }

    // ---- the page ---------------------------------------------------------
    function filterBox() {
        const box = el('fieldset', { class: 'filter', id: 'driver-filter' }, el('legend', {}, 'Drivers shown'));
        for (const d of colour.domain) {
            shown.add(d);
            const cb = el('input', { type: 'checkbox', checked: true, value: d, 'data-driver': d });
            cb.addEventListener('change', () => {
                if (cb.checked) shown.add(d); else shown.delete(d);
                apply();
            });
            box.appendChild(el('label', {}, cb, ` ${d}`));
        }
        return box;
    }
    function apply() {
        for (const tr of document.querySelectorAll('tr[data-driver]')) {
            const d = tr.getAttribute('data-driver');
            tr.hidden = d !== '' && !shown.has(d);
        }
        for (const r of redraws) r();
    }

    const labels = data.runs.map((r) => r.label);
    document.title = `pgclientbench: ${labels.join('; ')}`;
    const head = el('header', {}, el('h1', {}, 'pgclientbench report'),
        el('p', { class: 'lead' }, data.runs.length > 1 ? `${data.runs.length} runs: ${labels.join('; ')}` : `One run: ${labels[0]}`),
        el('p', { class: 'legend' }, 'Marks after a driver\'s name, as in the text tables: (reference) not a client (not ranked), * asks the server for other work than the run\'s choices (a variant), ? does not say what it asks, (FAILED) the driver reported an error, (INVALID) rows or checksum disagree (not comparable), (skipped) the driver cannot run the group, (not run) the run stopped first. PARTIAL: an interrupted group or run, never crowned.'));
    root.appendChild(head);
    const nav = el('nav', { class: 'toc' }, el('strong', {}, 'Contents: '));
    const toc = [];
    if (data.combined && data.runs.length > 1) toc.push(['#combined', 'All runs together']);
    data.runs.forEach((r, i) => toc.push([`#run${i + 1}`, data.runs.length > 1 ? `Run ${i + 1}` : 'The run']));
    toc.forEach(([href, t], i) => { if (i) nav.appendChild(document.createTextNode(' · ')); nav.appendChild(el('a', { href }, t)); });
    root.appendChild(nav);
    root.appendChild(filterBox());
    if (data.combined && data.runs.length > 1) root.appendChild(combinedSection(data.combined));
    data.runs.forEach((r, i) => root.appendChild(runSection(r, i)));
    root.appendChild(el('footer', {}, `Written by ${data.generator} (pgclientbench). Figures are drawn by Observable Plot ${Plot.version || ''} on d3 ${d3.version}, inlined: the page fetches nothing.`));
    apply();
    let resizeTimer = null;
    window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { for (const r of redraws) r(); }, 150); });
    document.documentElement.setAttribute('data-rendered', 'yes');
})();
