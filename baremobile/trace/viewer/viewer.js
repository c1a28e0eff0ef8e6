(function () {
  'use strict';
  // The page is built from the JSON block only, with textContent and attributes:
  // nothing in a trace ever becomes markup or script (baremobile/trace/view.py).
  var D = JSON.parse(document.getElementById('trace-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var steps = D.steps || [];
  var shots = D.shots || [];
  var texts = D.texts || [];
  var outcome = D.outcome || null;
  var selected = -1;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function ms(v) { return v >= 1000 ? (v / 1000).toFixed(2) + ' s' : Math.round(v) + ' ms'; }
  function json(v) { try { return JSON.stringify(v); } catch (e) { return String(v); } }

  // the test's own failure (an assertion) is an entry after the last step
  var testFailed = !!(outcome && outcome.failed);
  var entries = steps.slice();
  if (testFailed && D.failing === null) {
    entries.push({n: null, verb: 'assert', call: 'test failed: ' + (outcome.error || ''),
                  t: entries.length ? entries[entries.length - 1].t : 0, ms: 0,
                  error: {type: 'AssertionError', code: null, message: outcome.error || 'failed',
                          hint: null}, outcomeEntry: true, before: {shot: null, text: null},
                  after: {shot: null, text: null}, sent: [], log: []});
  }
  var failingIndex = -1;
  entries.forEach(function (s, i) {
    if (failingIndex < 0 && ((D.failing !== null && s.n === D.failing) || s.outcomeEntry)) {
      failingIndex = i;
    }
  });

  // -- the header ----------------------------------------------------------------------
  document.title = 'baremobile trace — ' + (D.title || '');
  var header = el('header');
  var meta = D.meta || {};
  add(header, el('h1', '', D.title || 'trace'),
      el('span', 'meta', [meta.serial || '?', 'API ' + (meta.api_level || '?'),
                          'door ' + (meta.door || '?'), steps.length + ' steps'].join(' · ')));
  if (testFailed || failingIndex >= 0) add(header, el('span', 'badge failed', 'failed'));
  else if (outcome) add(header, el('span', 'badge passed', 'passed'));
  if (!D.complete) add(header, el('span', 'badge incomplete', 'incomplete (not stopped)'));
  var search = el('input');
  search.type = 'search';
  search.placeholder = 'Search steps (calls, results, errors, screens, log)';
  search.id = 'search';
  var count = el('span', 'count');
  add(header, search, count);

  // -- the filmstrip -------------------------------------------------------------------
  var film = el('div');
  film.id = 'filmstrip';
  var thumbs = [];
  var io = 'IntersectionObserver' in window ? new IntersectionObserver(function (seen) {
    seen.forEach(function (e) {
      if (e.isIntersecting) { show(e.target); io.unobserve(e.target); }
    });
  }, {root: film, rootMargin: '0px 400px'}) : null;
  function show(thumb) {
    if (thumb.firstChild) return;
    var img = el('img');
    img.alt = 'step ' + thumb.dataset.step;
    img.src = shots[+thumb.dataset.shot].uri;
    add(thumb, img, el('span', '', thumb.dataset.step));
  }
  shots.forEach(function (shot, k) {
    var t = el('div', 'thumb');
    t.dataset.shot = String(k);
    t.dataset.step = String(shot.step);
    t.title = 'step ' + shot.step;
    t.addEventListener('click', function () {
      var i = entries.findIndex(function (s) { return s.n === shot.step; });
      if (i >= 0) select(i, true);
    });
    thumbs.push(t);
    film.appendChild(t);
    if (io) io.observe(t); else show(t);
  });
  if (!shots.length) add(film, el('span', 'empty', 'no screenshots in this trace'));

  // -- the action list -----------------------------------------------------------------
  var split = el('div', 'split');
  var list = el('div');
  list.id = 'actions';
  var detail = el('div');
  detail.id = 'detail';
  var rows = entries.map(function (s, i) {
    var r = el('div', 'row' + (s.error ? ' err' : '') + (i === failingIndex ? ' failing' : ''));
    r.dataset.index = String(i);
    add(r, el('span', 'n', s.n === null ? '✗' : s.n), el('span', 'call', s.call),
        el('span', 'ms', ms(s.ms || 0)));
    r.title = s.call + ' — +' + (s.t || 0).toFixed(2) + ' s, ' + ms(s.ms || 0);
    r.addEventListener('click', function () { select(i, true); });
    return r;
  });
  var frag = document.createDocumentFragment();
  rows.forEach(function (r) { frag.appendChild(r); });
  list.appendChild(frag);
  add(split, list, detail);
  add(document.body, header, film, split);

  // -- one step ------------------------------------------------------------------------
  function textBlock(index, ref) {
    if (index === null || index === undefined) return el('div', 'note', 'no snapshot yet');
    var pre = el('pre');
    var needle = ref ? '[ref=' + ref + ']' : null;
    String(texts[index]).split('\n').forEach(function (line, i) {
      if (i) pre.appendChild(document.createTextNode('\n'));
      if (needle && line.indexOf(needle) >= 0) pre.appendChild(el('mark', 'hl', line));
      else pre.appendChild(document.createTextNode(line));
    });
    return pre;
  }

  function shotBlock(k, s, marks) {
    if (k === null || k === undefined) return el('div', 'note', s.screenshot_note || 'no screenshot');
    var shot = shots[k];
    var fig = el('div', 'shot');
    var img = el('img');
    img.alt = 'screen ' + (marks ? 'before' : 'after') + ' step ' + s.n;
    img.src = shot.uri;
    fig.appendChild(img);
    var w = (shot.size || [0, 0])[0], h = (shot.size || [0, 0])[1];
    if (marks && w > 0 && h > 0) {
      var o = svg('svg', {viewBox: '0 0 ' + w + ' ' + h, preserveAspectRatio: 'none'});
      var t = s.target;
      var r = Math.max(w, h) / 60;
      if (t && t.bounds) {
        var b = t.bounds;
        o.appendChild(svg('rect', {x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1],
          fill: 'none', stroke: '#ff2d55', 'stroke-width': r / 2, 'class': 'box'}));
      }
      (s.sent || []).forEach(function (m) {
        var pts = m.points || [];
        (m.paths || []).forEach(function (path) {
          o.appendChild(svg('polyline', {points: path.map(function (p) { return p[1] + ',' + p[2]; }).join(' '),
            fill: 'none', stroke: '#2f6fed', 'stroke-width': r / 2, 'class': 'path'}));
          if (path.length) o.appendChild(svg('circle', {cx: path[0][1], cy: path[0][2], r: r,
            fill: 'rgba(47,111,237,.55)', 'class': 'point'}));
        });
        if (pts.length > 1) {
          o.appendChild(svg('line', {x1: pts[0][0], y1: pts[0][1], x2: pts[1][0], y2: pts[1][1],
            stroke: '#2f6fed', 'stroke-width': r / 2, 'class': 'path'}));
        }
        if (pts.length) o.appendChild(svg('circle', {cx: pts[0][0], cy: pts[0][1], r: r,
          fill: 'rgba(255,45,85,.6)', stroke: '#fff', 'stroke-width': r / 5, 'class': 'point'}));
      });
      fig.appendChild(o);
    }
    return fig;
  }

  function kv(pairs) {
    var d = el('div', 'kv');
    pairs.forEach(function (p) {
      if (p[1] === undefined || p[1] === null || p[1] === '') return;
      add(d, el('span', 'k', p[0]), el('span', 'v', typeof p[1] === 'string' ? p[1] : json(p[1])));
    });
    return d;
  }

  function failureBox(s) {
    var box = el('div');
    box.id = 'failure';
    var e = s.error || {};
    add(box, el('div', 'title', s.outcomeEntry ? 'The test failed after its last step'
                                                 : 'This step failed'),
        el('div', 'message', (e.code || e.type || 'error') + ': ' + (e.message || '')));
    if (e.hint) add(box, el('div', 'hint', 'hint: ' + e.hint));
    if (outcome && outcome.failed && (s.outcomeEntry || entries.indexOf(s) === failingIndex)) {
      if (!s.outcomeEntry && outcome.error) add(box, el('div', 'message', 'test: ' + outcome.error));
      if (outcome.file) add(box, el('div', 'hint', outcome.file + ':' + (outcome.line || '?')));
      if (outcome.source && outcome.source.length) box.appendChild(sourceBlock());
    }
    return box;
  }

  function sourceBlock() {
    var pre = el('div', 'source');
    (outcome.source || []).forEach(function (pair) {
      var line = el('span', 'line' + (pair[0] === outcome.line ? ' failing' : ''));
      add(line, el('span', 'no', pair[0]), document.createTextNode(pair[1]));
      pre.appendChild(line);
    });
    return pre;
  }

  function tabs(s) {
    var box = el('div', 'tabs');
    var nav = el('nav');
    var body = el('section');
    var pages = [
      ['Call', function () {
        return kv([['verb', s.verb], ['arguments', s.args], ['element', s.target],
                   ['sent', s.sent && s.sent.length ? s.sent : null], ['result', s.result],
                   ['snapshot', s.snapshot ? (s.snapshot.is_diff ? 'a diff of ' : 'the screen of ') +
                     (s.snapshot.package || '?') : null],
                   ['door', s.door], ['tool', s.tool], ['started', '+' + (s.t || 0).toFixed(3) + ' s'],
                   ['took', ms(s.ms || 0)], ['error', s.error]]);
      }],
      ['Log', function () {
        if (!s.log || !s.log.length) return el('div', 'note', 'no device log lines while this step ran');
        var pre = el('div', 'log');
        s.log.forEach(function (line) {
          var m = /^\s*\S+\s+\d+\s+\d+\s+([VDIWEF])\s/.exec(line);
          add(pre, el('div', m ? m[1] : '', line));
        });
        return pre;
      }],
      ['Snapshot', function () {
        return s.snapshot && s.snapshot.text ? add(el('div'), el('pre', '', s.snapshot.text))
                                             : el('div', 'note', 'this step returned no snapshot');
      }],
      ['Diff', function () {
        return s.diff ? el('pre', '', s.diff) : el('div', 'note', 'no change from the screen before');
      }],
      ['Source', function () {
        return outcome && outcome.source && outcome.source.length ? sourceBlock()
          : el('div', 'note', 'no test source in this trace');
      }],
      ['Graph', graphBlock]
    ];
    var buttons = pages.map(function (p, i) {
      var b = el('button', i ? '' : 'on', p[0]);
      b.type = 'button';
      b.addEventListener('click', function () {
        buttons.forEach(function (x) { x.className = ''; });
        b.className = 'on';
        body.textContent = '';
        body.appendChild(p[1]());
      });
      nav.appendChild(b);
      return b;
    });
    body.appendChild(pages[0][1]());
    return add(box, nav, body);
  }

  function select(i, scroll) {
    if (i < 0 || i >= entries.length) return;
    if (selected >= 0) rows[selected].classList.remove('on');
    selected = i;
    rows[i].classList.add('on');
    if (scroll) rows[i].scrollIntoView({block: 'nearest'});
    var s = entries[i];
    thumbs.forEach(function (t) { t.classList.toggle('on', +t.dataset.step === s.n); });
    detail.textContent = '';
    add(detail, el('h2', '', (s.n === null ? '' : s.n + '. ') + s.call),
        el('div', 'when', '+' + (s.t || 0).toFixed(2) + ' s · ' + ms(s.ms || 0) +
           (s.door ? ' · door ' + s.door : '') + (s.tool ? ' · tool ' + s.tool.name : '')));
    if (s.error) detail.appendChild(failureBox(s));
    var panes = el('div', 'panes');
    var ref = s.target && s.target.ref;
    var before = el('div', 'pane');
    add(before, el('h3', '', 'Before'),
        add(el('div', 'row'), shotBlock(s.before.shot, s, true), textBlock(s.before.text, ref)));
    var after = el('div', 'pane');
    add(after, el('h3', '', 'After'),
        add(el('div', 'row'), shotBlock(s.after.shot, s, false), textBlock(s.after.text, null)));
    add(panes, before, after);
    add(detail, panes, tabs(s));
    if (s.n !== null) history.replaceState(null, '', '#step-' + s.n);
  }

  // -- the navigation graph ------------------------------------------------------------
  function graphBlock() {
    var g = D.graph || {nodes: [], edges: []};
    if (!g.nodes.length) return el('div', 'note', 'no screens recorded');
    var bw = 150, bh = 44, gx = 70, gy = 26, pos = {}, maxc = 0, maxr = 0;
    g.nodes.forEach(function (n) {
      pos[n.id] = [20 + n.col * (bw + gx), 20 + n.row * (bh + gy)];
      maxc = Math.max(maxc, n.col); maxr = Math.max(maxr, n.row);
    });
    var W = 40 + (maxc + 1) * (bw + gx), H = 40 + (maxr + 1) * (bh + gy);
    var s = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img',
                        'aria-label': 'navigation graph', 'class': 'graph'});
    var defs = svg('defs');
    var marker = svg('marker', {id: 'arr', viewBox: '0 0 10 10', refX: 10, refY: 5,
                                markerWidth: 7, markerHeight: 7, orient: 'auto'});
    marker.appendChild(svg('path', {d: 'M0,0L10,5L0,10z', fill: '#555'}));
    defs.appendChild(marker);
    s.appendChild(defs);
    g.edges.forEach(function (e) {
      var a = pos[e.from], b = pos[e.to];
      if (!a || !b) return;
      var p;
      if (e.from === e.to) {
        p = svg('path', {d: 'M' + (a[0] + bw - 30) + ',' + a[1] + ' C' + (a[0] + bw) + ',' + (a[1] - 30) +
          ' ' + (a[0] + bw + 30) + ',' + (a[1] + 10) + ' ' + (a[0] + bw) + ',' + (a[1] + 14),
          fill: 'none', stroke: '#555', 'marker-end': 'url(#arr)'});
      } else {
        var ax = a[0] + bw / 2, ay = a[1] + bh / 2, bx = b[0] + bw / 2, by = b[1] + bh / 2;
        var dx = bx - ax, dy = by - ay, dist = Math.hypot(dx, dy) || 1;
        var t = Math.min(dx ? (bw / 2) / Math.abs(dx) : Infinity, dy ? (bh / 2) / Math.abs(dy) : Infinity, 1);
        var ex = bx - dx * t, ey = by - dy * t;
        var back = g.edges.some(function (f) { return f.from === e.to && f.to === e.from; }) ? 18 : 0;
        var mx = (ax + ex) / 2 - dy / dist * back, my = (ay + ey) / 2 + dx / dist * back;
        p = svg('path', {d: 'M' + ax + ',' + ay + ' Q' + mx + ',' + my + ' ' + ex + ',' + ey,
                         fill: 'none', stroke: '#555', 'marker-end': 'url(#arr)'});
      }
      var tip = svg('title');
      tip.textContent = e.action + ' (×' + e.count + ', steps ' + (e.steps || []).join(', ') + ')';
      p.appendChild(tip);
      s.appendChild(p);
    });
    g.nodes.forEach(function (n) {
      var xy = pos[n.id], grp = svg('g'), tip = svg('title');
      tip.textContent = n.id + ': ' + (n.package || '') + ' — ' + (n.title || '') + ' (visits ' + n.visits + ')';
      var label = n.title || n.package || n.id;
      if (label.length > 22) label = label.slice(0, 21) + '…';
      var t1 = svg('text', {x: xy[0] + 8, y: xy[1] + 18}), t2 = svg('text', {x: xy[0] + 8, y: xy[1] + 34, fill: '#666'});
      t1.textContent = label;
      t2.textContent = n.id + ' · ' + String(n.package || '').split('.').pop();
      add(grp, tip, svg('rect', {x: xy[0], y: xy[1], width: bw, height: bh, rx: 6,
        fill: n.id === g.current ? '#eef3ff' : '#fff', stroke: n.id === g.start ? '#2f6fed' : '#888'}), t1, t2);
      s.appendChild(grp);
    });
    return s;
  }

  // -- search, keys --------------------------------------------------------------------
  var hay = [];
  function haystack(i) {
    if (hay[i] === undefined) {
      var s = entries[i];
      hay[i] = [s.call, s.error && (s.error.code + ' ' + s.error.message), json(s.result),
                s.snapshot && s.snapshot.text, s.after && s.after.text !== null && s.after.text !== undefined
                  ? texts[s.after.text] : '', (s.log || []).join('\n')].join('\n').toLowerCase();
    }
    return hay[i];
  }
  search.addEventListener('input', function () {
    var q = search.value.trim().toLowerCase(), shown = 0;
    rows.forEach(function (r, i) {
      var hit = !q || haystack(i).indexOf(q) >= 0;
      r.classList.toggle('hidden', !hit);
      if (hit) shown++;
    });
    count.textContent = q ? shown + ' of ' + rows.length : '';
  });
  document.addEventListener('keydown', function (e) {
    if (e.target === search) return;
    var d = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    for (var i = selected + d; i >= 0 && i < rows.length; i += d) {
      if (!rows[i].classList.contains('hidden')) { select(i, true); break; }
    }
  });

  var start = 0;
  var m = /^#step-(\d+)$/.exec(location.hash);
  if (m) start = Math.max(0, entries.findIndex(function (s) { return String(s.n) === m[1]; }));
  else if (failingIndex >= 0) start = failingIndex;
  if (entries.length) select(start, true);
  else detail.appendChild(el('div', 'note', 'this trace has no steps'));
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = '1';
})();
