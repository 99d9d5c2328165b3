// page.js -- the flame graph page's own code (inlined by flamelib.js after d3
// and d3-flame-graph): reads the page's data from the script element pgcb-data
// (JSON) and draws every panel with d3-flame-graph. Every name reaches the
// DOM as text (textContent, d3's .text(), setAttribute), never as markup.
(function () {
    'use strict';
    var data = JSON.parse(document.getElementById('pgcb-data').textContent);
    var fg = window.flamegraph;
    var main = document.getElementById('pgcb-main');
    var charts = [];

    function el(parent, tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) e.className = cls;
        if (text !== undefined && text !== null) e.textContent = String(text);
        if (parent) parent.appendChild(e);
        return e;
    }
    // TEXT as a link to HREF (a relative path the tools made), or plain text.
    function link(parent, text, href) {
        if (!href) return el(parent, 'span', null, text);
        var a = el(parent, 'a', null, text);
        a.setAttribute('href', href);
        return a;
    }
    function pct(x) {
        return (100 * x).toFixed(x !== 0 && Math.abs(x) < 0.001 ? 3 : 2) + '%';
    }
    function pp(x) {
        return (x >= 0 ? '+' : '\u2212') + (100 * Math.abs(x)).toFixed(2) + ' pp';
    }
    function kind(d) {
        var t = d.data.libtype;
        return t === 'kernel' ? ' [kernel]' : t === 'jit' ? ' [JIT]' : '';
    }
    function selfOf(d, key) {
        var s = d.data[key];
        (d.data.children || []).forEach(function (c) { s -= c[key]; });
        return s;
    }

    // Search: a regular expression (case-insensitive), or plain text when the
    // term is not a valid one.
    var cache = { term: null, test: null };
    function matcher(term) {
        if (cache.term !== term) {
            var lower = term.toLowerCase();
            var re = null;
            try { re = new RegExp(term, 'i'); } catch (e) { re = null; }
            cache = { term: term, test: re ? function (s) { return re.test(s); } : function (s) { return s.toLowerCase().indexOf(lower) >= 0; } };
        }
        return cache.test;
    }
    function searchMatch(d, term) {
        return !!term && typeof d.data.name === 'string' && matcher(term)(d.data.name);
    }

    function graphLabel(panel) {
        return function (d) {
            return d.data.name + kind(d) + ': ' + pct(d.data.value / panel.total) + ' of all samples (' +
                d.data.value + ' samples, self ' + selfOf(d, 'value') + ')';
        };
    }
    function diffLabel(panel) {
        return function (d) {
            return d.data.name + kind(d) + ': ' + pct(d.data.value) + ' of OTHER (' + d.data.samples + ' samples), ' +
                pct(d.data.baseSamples / panel.baseTotal) + ' of BASE (' + d.data.baseSamples + '): ' + pp(d.data.delta);
        };
    }

    function topTable(parent, panel) {
        var top = panel.top;
        if (!top || !top.categories.length) return;
        var total = top.total || panel.total;
        el(parent, 'p', 'pgcb-meta', 'Self time by category (of the leaf frame), ' + total + ' samples:');
        var t = el(parent, 'table', 'pgcb-top');
        top.categories.forEach(function (c) {
            var tr = el(t, 'tr');
            el(tr, 'td', null, c[0]);
            el(tr, 'td', 'num', total ? pct(c[1] / total) : '');
            el(tr, 'td', 'num', c[1]);
        });
        if (top.functions.length) {
            var det = el(parent, 'details', 'pgcb-functions');
            el(det, 'summary', null, 'Top ' + top.functions.length + ' functions by self samples');
            var ft = el(det, 'table', 'pgcb-top');
            top.functions.forEach(function (f) {
                var tr = el(ft, 'tr');
                el(tr, 'td', 'fn', f[0]);
                el(tr, 'td', 'num', total ? pct(f[1] / total) : '');
                el(tr, 'td', 'num', f[1]);
            });
        }
    }

    function drawPanel(parent, panel) {
        var box = el(parent, 'section', 'pgcb-panel');
        el(box, 'h3', null, panel.label);
        var isDiff = panel.kind === 'diff';
        if (isDiff) {
            var m = el(box, 'p', 'pgcb-meta', 'OTHER ');
            link(m, panel.other, panel.otherHref);
            m.appendChild(document.createTextNode(' (' + panel.total + ' samples) against BASE '));
            link(m, panel.base, panel.baseHref);
            m.appendChild(document.createTextNode(' (' + panel.baseTotal + ' samples).'));
            el(box, 'p', 'pgcb-meta', 'Both profiles are normalised to shares of their own totals first. Widths: ' +
                'OTHER\'s shares. Colour: a frame (with everything above it) takes more (red) or less (blue) of ' +
                'OTHER\'s samples than of BASE\'s, deeper the larger the change relative to its width; orange: not ' +
                'in BASE at all. Frames only in BASE are not drawn' +
                (panel.tree ? ' (' + pct(panel.onlyBase) + ' of BASE\'s samples).' : '.'));
        } else {
            var g = el(box, 'p', 'pgcb-meta');
            link(g, panel.file, panel.href);
            g.appendChild(document.createTextNode(': ' + panel.total + ' samples.'));
        }
        if (!panel.tree || panel.total === 0 || (isDiff && panel.baseTotal === 0)) {
            el(box, 'p', 'pgcb-empty', isDiff ? 'No differential: a profile without samples.' : 'No samples.');
            return;
        }
        var controls = el(box, 'div', 'pgcb-controls');
        var input = el(controls, 'input');
        input.type = 'search';
        input.placeholder = 'search (regexp)';
        input.setAttribute('aria-label', 'search frames of ' + panel.label);
        var reset = el(controls, 'button', null, 'reset zoom');
        reset.type = 'button';
        var details = el(box, 'div', 'pgcb-details', '\u00a0');
        var holder = el(box, 'div', 'pgcb-chart');
        topTable(box, panel);

        var label = isDiff ? diffLabel(panel) : graphLabel(panel);
        var chart = fg.default()
            .width(Math.max(holder.clientWidth, 200))
            .cellHeight(18)
            .minFrameSize(1)
            .transitionDuration(250)
            .sort(true)
            .title('')
            .label(label)
            .setSearchMatch(searchMatch)
            .setDetailsElement(details)
            .setSearchHandler(function (results, sum, totalValue) {
                details.textContent = 'search: ' + results.length + ' frames, ' + pct(totalValue ? sum / totalValue : 0) +
                    (isDiff ? ' of OTHER\'s samples' : ' of all samples (' + sum + ')');
            })
            .onClick(function (d) { details.textContent = label(d); });
        if (isDiff) chart.setColorMapper(fg.colorMapper.differentialColorMapper);
        window.d3.select(holder).datum(panel.tree).call(chart);

        var timer = null;
        input.addEventListener('input', function () {
            clearTimeout(timer);
            timer = setTimeout(function () {
                if (input.value) chart.search(input.value); else { chart.clear(); details.textContent = '\u00a0'; }
            }, 150);
        });
        reset.addEventListener('click', function () { chart.resetZoom(); });
        charts.push({ chart: chart, holder: holder, width: holder.clientWidth });
    }

    document.title = data.title || 'flame graphs';
    var header = el(main, 'header');
    el(header, 'h1', null, data.title || 'flame graphs');
    if (data.note) el(header, 'p', 'pgcb-meta', data.note);
    el(header, 'p', 'pgcb-meta', 'Click a frame to zoom into it, "reset zoom" to go back; hover (or tap) for its ' +
        'samples. Generated ' + data.generated + ' with d3-flame-graph ' + data.versions['d3-flame-graph'] +
        ' and d3 ' + data.versions.d3 + ', inlined: this file fetches nothing.');
    if (data.links && data.links.length) {
        var ul = el(header, 'ul', 'pgcb-links');
        data.links.forEach(function (l) {
            var a = el(el(ul, 'li'), 'a', null, l.text);
            a.setAttribute('href', l.href);
        });
    }
    (data.sections || []).forEach(function (s) {
        var sec = el(main, 'section', 'pgcb-section');
        if (s.heading) el(sec, 'h2', null, s.heading);
        var grid = el(sec, 'div', 'pgcb-grid');
        s.panels.forEach(function (p) { drawPanel(grid, p); });
    });

    // Narrower or wider window: redraw at the new width (zoom and search kept).
    var resizeTimer = null;
    window.addEventListener('resize', function () {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(function () {
            charts.forEach(function (c) {
                var w = Math.max(c.holder.clientWidth, 200);
                if (Math.abs(w - c.width) > 8) {
                    c.width = w;
                    c.chart.width(w).update();
                }
            });
        }, 200);
    });
})();
