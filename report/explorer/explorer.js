// The sink explorer (report/explorer/explorer_page.h): reads window.SINKLAB_EXPLORER, set by
// explorer-data.js, and draws a run page or a sweep page. No library and no network: works from file://.
(function () {
  'use strict';

  var ROLE_SINK_KEY = 1, ROLE_NO_OP_ROW = 2, ROLE_ACTIVE_ROW = 4;
  var statusBox = document.getElementById('status');
  var app = document.getElementById('app');

  // Every failure ends here: a message in the page, never a blank screen.
  function showProblem(text) {
    statusBox.className = 'problem';
    statusBox.textContent = text;
  }
  window.addEventListener('error', function (e) {
    showProblem('The explorer stopped: ' + e.message + '. Regenerate the page with sinklab report.');
  });

  function DataError(message) { this.message = message; }

  // When the first frame with every shown map was drawn (ms since navigation): the first-paint
  // measurement of tests/python/test_explorer_page.py reads it.
  function markPainted() {
    if (document.body.dataset.firstPaintMs) return;
    requestAnimationFrame(function () { document.body.dataset.firstPaintMs = String(performance.now()); });
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function isInt(v) { return typeof v === 'number' && Math.floor(v) === v; }
  function check(ok, what) { if (!ok) throw new DataError('explorer-data.js is corrupt: ' + what); }
  function checkIntArray(a, what) {
    check(Array.isArray(a) && a.every(isInt), what + ' is not a list of whole numbers');
  }

  // ---- Attention maps: one script file per step and kind (mean, example), each handing one base64
  // string of float32 [L, H, R, C] to SINKLAB_EXPLORER_STEP. A step is loaded when first shown, so a
  // long run or a large sweep paints without reading every step first. ----
  var arrived = {};
  window.SINKLAB_EXPLORER_STEP = function (id, kind, index, text) { arrived[id + '|' + kind + '|' + index] = text; };

  // float16 step files (a float16 snapshot file): every half is exactly a float32.
  function halfToFloat(h) {
    var sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 31, mantissa = h & 1023;
    if (exponent === 31) return mantissa ? NaN : sign * Infinity;
    if (exponent === 0) return sign * mantissa * Math.pow(2, -24);
    return sign * (1 + mantissa / 1024) * Math.pow(2, exponent - 15);
  }
  var halfTable = null;
  function halvesToFloats(halves) {
    if (!halfTable) {
      halfTable = new Float32Array(65536);
      for (var h = 0; h < 65536; ++h) halfTable[h] = halfToFloat(h);
    }
    var out = new Float32Array(halves.length);
    for (var i = 0; i < halves.length; ++i) out[i] = halfTable[halves[i]];
    return out;
  }

  function Maps(maps, id, what) {
    check(maps && typeof maps === 'object', what + ' has no maps object');
    checkIntArray(maps.steps, what + ': steps');
    check(maps.steps.length > 0, what + ': no steps');
    check(isInt(maps.layers) && maps.layers > 0 && isInt(maps.heads) && maps.heads > 0, what + ': layers/heads');
    checkIntArray(maps.rows, what + ': rows');
    checkIntArray(maps.cols, what + ': cols');
    check(isInt(maps.seq_len) && maps.seq_len > 0, what + ': seq_len');
    if (maps.roles !== null) { checkIntArray(maps.roles, what + ': roles'); check(maps.roles.length === maps.seq_len, what + ': roles length'); }
    if (maps.tokens !== null) { checkIntArray(maps.tokens, what + ': tokens'); check(maps.tokens.length === maps.seq_len, what + ': tokens length'); }
    if (maps.token_labels !== null && maps.token_labels !== undefined) {
      check(Array.isArray(maps.token_labels) && maps.token_labels.every(function (s) { return typeof s === 'string'; }),
            what + ': token_labels is not a list of strings');
      check(maps.token_labels.length === maps.seq_len, what + ': token_labels length');
    }
    check(maps.pooled === undefined || typeof maps.pooled === 'boolean', what + ': pooled');
    this.raw = maps;
    this.id = id;
    this.what = what;
    this.steps = maps.steps;
    this.L = maps.layers; this.H = maps.heads;
    this.R = maps.rows.length; this.C = maps.cols.length;
    this.cells = this.R * this.C;
    this.floats = this.L * this.H * this.cells;
    var self = this;
    ['mean', 'example'].forEach(function (kind) {
      var list = maps[kind];
      if (list === null || list === undefined) { check(kind !== 'mean', what + ': no mean maps'); return; }
      check(Array.isArray(list) && list.length === self.steps.length && list.every(function (f) { return typeof f === 'string'; }),
            what + ': ' + kind + ' has not one map file per step');
    });
    this.hasExample = Array.isArray(maps.example);
    check(maps.dtype && ['f2', 'f4'].indexOf(maps.dtype.mean) >= 0 && ['f2', 'f4'].indexOf(maps.dtype.example) >= 0, what + ': dtype');
    this.bytesPerValue = {mean: maps.dtype.mean === 'f2' ? 2 : 4, example: maps.dtype.example === 'f2' ? 2 : 4};
    this.cache = {};
    this.waiting = {};
  }
  // Calls done() once the maps of (kind, step index) are decoded; a missing, truncated or corrupt
  // step file is a message in the page.
  Maps.prototype.load = function (kind, index, done) {
    var key = kind + index, self = this;
    if (this.cache[key]) { done(); return; }
    if (this.waiting[key]) { this.waiting[key].push(done); return; }
    this.waiting[key] = [done];
    var file = this.raw[kind][index];
    var script = document.createElement('script');
    script.src = file;
    script.onerror = function () {
      showProblem('The attention maps of ' + self.what + ' at step ' + self.steps[index] + ' are missing: ' + file +
                  ' did not load. Run sinklab report again.');
    };
    script.onload = function () {
      var size = self.bytesPerValue[kind], text = arrived[self.id + '|' + kind + '|' + index];
      var expected = 4 * Math.ceil(self.floats * size / 3);
      delete arrived[self.id + '|' + kind + '|' + index];
      try {
        if (typeof text !== 'string') throw new DataError('did not hand over its maps (truncated or corrupt?)');
        if (text.length !== expected) throw new DataError('holds ' + text.length + ' base64 characters, expected ' + expected + ' (truncated?)');
        var binary;
        try { binary = atob(text); } catch (e) { throw new DataError('is not base64 (corrupt?)'); }
        var bytes = new Uint8Array(binary.length);
        for (var i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
        if (bytes.length !== self.floats * size) throw new DataError('holds ' + bytes.length + ' bytes, expected ' + self.floats * size);
        self.cache[key] = size === 2 ? halvesToFloats(new Uint16Array(bytes.buffer)) : new Float32Array(bytes.buffer);
      } catch (e) {
        showProblem('The ' + kind + ' maps of ' + self.what + ' at step ' + self.steps[index] + ' cannot be shown: ' + file + ' ' +
                    (e instanceof DataError ? e.message : String(e)) + '. Run sinklab report again.');
        return;
      }
      var callbacks = self.waiting[key];
      delete self.waiting[key];
      callbacks.forEach(function (f) { f(); });
    };
    document.head.appendChild(script);
  };
  Maps.prototype.loaded = function (kind, index) { return !!this.cache[kind + index]; };
  // The [R, C] map of one head as a view (no copy).
  Maps.prototype.head = function (kind, index, layer, head) {
    var all = this.cache[kind + index], offset = (layer * this.H + head) * this.cells;
    return all.subarray(offset, offset + this.cells);
  };
  // The last snapshot at or before `step` (the first one when all are later).
  Maps.prototype.indexAt = function (step) {
    var best = 0;
    for (var i = 0; i < this.steps.length; ++i) if (this.steps[i] <= step) best = i;
    return best;
  };

  // ---- Colours: white to dark red over [0, scale]; negative weights in blue. ----
  function colour(v, scale) {
    if (!(v === v)) return [200, 200, 200];  // NaN
    var t = Math.min(1, Math.abs(v) / scale);
    if (v < 0) return [Math.round(255 * (1 - t)), Math.round(255 * (1 - 0.6 * t)), 255];
    var stops = [[255, 255, 255], [255, 214, 120], [240, 110, 40], [170, 20, 40], [70, 0, 40]];
    var x = t * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
    return [0, 1, 2].map(function (c) { return Math.round(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])); });
  }
  // Rows of a normalized head sum to 1, so [0, 1] is the honest scale; unnormalized heads use their max.
  function scaleOf(map) {
    var max = 0;
    for (var i = 0; i < map.length; ++i) if (Math.abs(map[i]) > max) max = Math.abs(map[i]);
    return Math.max(1, max);
  }
  // colour() sampled at 256 levels per sign, so painting a large map does no per-cell allocation.
  var LEVELS = 256, positiveColours = [], negativeColours = [];
  for (var level = 0; level < LEVELS; ++level) {
    positiveColours.push(colour(level / (LEVELS - 1), 1));
    negativeColours.push(colour(-level / (LEVELS - 1), 1));
  }
  // The enlarged map's axis labels: 10px text, at least 12px apart.
  var LABEL_FONT = '10px monospace', LABEL_PITCH = 12;
  function paintHeatmap(canvas, map, R, C) {
    if (canvas.width !== C || canvas.height !== R) { canvas.width = C; canvas.height = R; }
    var ctx = canvas.getContext('2d'), image = ctx.createImageData(C, R), pixels = image.data, scale = scaleOf(map);
    for (var i = 0; i < R * C; ++i) {
      var v = map[i], rgb;
      if (v !== v) rgb = [200, 200, 200];  // NaN
      else rgb = (v < 0 ? negativeColours : positiveColours)[Math.min(LEVELS - 1, Math.round(Math.abs(v) / scale * (LEVELS - 1)))];
      pixels[4 * i] = rgb[0]; pixels[4 * i + 1] = rgb[1]; pixels[4 * i + 2] = rgb[2]; pixels[4 * i + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
    canvas.dataset.scale = String(scale);
  }

  function roleText(flags) {
    if (flags === null || flags === undefined) return 'unknown';
    var names = [];
    if (flags & ROLE_SINK_KEY) names.push('sink key');
    if (flags & ROLE_NO_OP_ROW) names.push('no-op row');
    if (flags & ROLE_ACTIVE_ROW) names.push('active row');
    return names.length ? names.join(', ') : 'none';
  }
  // A position's token: its label (token_labels, already made visible by the report: "␣" for a space,
  // "⏎" for a newline), else its id as "#id", else '' (no tokens). Always shown as text, never as HTML.
  function tokenText(maps, position) {
    var labels = maps.raw.token_labels, tokens = maps.raw.tokens;
    if (labels && labels[position] !== '') return labels[position];
    return tokens ? '#' + tokens[position] : '';
  }
  // How many positions stored row/column i stands for: in pooled maps (the snapshot file, T > 128) the
  // positions up to the next stored one, else (sampled final maps) itself alone.
  function spanOf(maps, positions, i) {
    if (!maps.raw.pooled) return 1;
    return (i + 1 < positions.length ? positions[i + 1] : maps.raw.seq_len) - positions[i];
  }
  // Stored row/column i's token: a pooled one shows its first position's token and "…".
  function axisToken(maps, positions, i) {
    var t = tokenText(maps, positions[i]);
    return t && spanOf(maps, positions, i) > 1 ? t + '\u2026' : t;
  }
  function positionText(maps, positions, i) {
    var n = spanOf(maps, positions, i);
    return n > 1 ? positions[i] + '\u2013' + (positions[i] + n - 1) : String(positions[i]);
  }

  // Hovering a heatmap: which cell, its weight, roles and tokens, in the readout line.
  function attachHover(canvas, readout, source) {
    canvas.addEventListener('mousemove', function (e) {
      var s = source(), rect = canvas.getBoundingClientRect();
      if (!s.maps.loaded(s.kind, s.index)) { readout.textContent = 'loading step ' + s.maps.steps[s.index] + ' ...'; return; }
      var r = Math.min(s.maps.R - 1, Math.max(0, Math.floor((e.clientY - rect.top) / rect.height * s.maps.R)));
      var c = Math.min(s.maps.C - 1, Math.max(0, Math.floor((e.clientX - rect.left) / rect.width * s.maps.C)));
      var w = s.maps.head(s.kind, s.index, s.layer, s.head)[r * s.maps.C + c];
      var row = s.maps.raw.rows[r], col = s.maps.raw.cols[c], roles = s.maps.raw.roles;
      var d = readout.dataset;
      d.runId = s.runId; d.kind = s.kind; d.step = String(s.maps.steps[s.index]); d.stepIndex = String(s.index);
      d.layer = String(s.layer); d.head = String(s.head); d.rowIndex = String(r); d.colIndex = String(c);
      d.row = String(row); d.col = String(col); d.weight = String(w);
      var rowToken = axisToken(s.maps, s.maps.raw.rows, r), colToken = axisToken(s.maps, s.maps.raw.cols, c);
      d.rowToken = rowToken; d.colToken = colToken;
      readout.textContent = (s.label ? s.label + '  ' : '') + 'L' + s.layer + ' H' + s.head + '  step ' + s.maps.steps[s.index] +
        '  query row ' + positionText(s.maps, s.maps.raw.rows, r) + (rowToken ? ' \u00ab' + rowToken + '\u00bb' : '') +
        ' (' + roleText(roles && roles[row]) + ')' +
        '  key col ' + positionText(s.maps, s.maps.raw.cols, c) + (colToken ? ' \u00ab' + colToken + '\u00bb' : '') +
        ' (' + roleText(roles && roles[col]) + ')' +
        '  weight ' + (w === w ? w.toPrecision(6) : 'n/a') + (col > row ? '  (future key: masked)' : '');
    });
  }

  // ---- Per-head curves from metrics.jsonl: BOS mass, sink score, virtual mass; cursor and onsets. ----
  var CURVES = [['bos_mass', '#d95f02', 'BOS mass'], ['sink_score', '#1f78b4', 'sink score'], ['virtual_mass', '#33a02c', 'virtual mass']];
  function checkCurves(curves, L, H, what) {
    if (curves === null || curves === undefined) return null;
    checkIntArray(curves.steps, what + ': curve steps');
    CURVES.concat([['sink_head']]).forEach(function (c) {
      var rows = curves[c[0]];
      check(Array.isArray(rows) && rows.length === curves.steps.length, what + ': curve ' + c[0] + ' has not one entry per step');
      rows.forEach(function (row) { check(Array.isArray(row) && row.length === L * H, what + ': curve ' + c[0] + ' has not one value per head'); });
    });
    return curves;
  }
  // The last logged record at or before `step`, or -1.
  function recordAt(curves, step) {
    var best = -1;
    for (var i = 0; i < curves.steps.length; ++i) if (curves.steps[i] <= step) best = i;
    return best;
  }
  function paintCurves(canvas, curves, h, cursorStep, onsets) {
    var ratio = window.devicePixelRatio || 1, w = 200, ht = 80;
    canvas.width = w * ratio; canvas.height = ht * ratio;
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, w, ht);
    var steps = curves.steps, last = Math.max(1, steps[steps.length - 1]), lo = 0, hi = 1;
    CURVES.forEach(function (c) {
      curves[c[0]].forEach(function (row) { var v = row[h]; if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    });
    var x = function (s) { return 4 + (w - 8) * s / last; }, y = function (v) { return ht - 4 - (ht - 8) * (v - lo) / (hi - lo); };
    ctx.strokeStyle = '#ccc'; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(4, y(0)); ctx.lineTo(w - 4, y(0)); ctx.moveTo(4, y(1)); ctx.lineTo(w - 4, y(1)); ctx.stroke();
    CURVES.forEach(function (c) {
      ctx.strokeStyle = c[1]; ctx.lineWidth = 1.5; ctx.beginPath();
      var pen = false;
      curves[c[0]].forEach(function (row, i) {
        var v = row[h];
        if (v === null) { pen = false; return; }
        if (pen) ctx.lineTo(x(steps[i]), y(v)); else ctx.moveTo(x(steps[i]), y(v));
        pen = true;
      });
      ctx.stroke();
    });
    ctx.setLineDash([3, 3]); ctx.strokeStyle = '#555'; ctx.fillStyle = '#555'; ctx.font = '9px sans-serif';
    onsets.forEach(function (o) {
      if (o.step === null || o.step === undefined) return;
      ctx.beginPath(); ctx.moveTo(x(o.step), 2); ctx.lineTo(x(o.step), ht - 2); ctx.stroke();
      ctx.fillText(o.label, x(o.step) + 2, 10);
    });
    ctx.setLineDash([]);
    ctx.strokeStyle = '#e00'; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x(cursorStep), 0); ctx.lineTo(x(cursorStep), ht); ctx.stroke();
    canvas.dataset.cursorStep = String(cursorStep);
  }
  function curveLegend() {
    return el('div', {className: 'legend'}, CURVES.map(function (c) {
      var sw = el('span', {className: 'swatch'}); sw.style.background = c[1];
      return el('span', {}, [sw, document.createTextNode(c[2])]);
    }).concat([el('span', {text: 'red line: shown step; dotted: onset (BOS mass stays >= 0.5 / 0.9)'})]));
  }

  function badge(node, curves, step, h) {
    var i = curves ? recordAt(curves, step) : -1;
    if (i < 0) { node.className = 'badge unknown'; node.textContent = 'class ?'; node.dataset.sink = ''; return; }
    var sink = curves.sink_head[i][h] === true, bos = curves.bos_mass[i][h];
    node.className = 'badge ' + (sink ? 'sink' : 'nosink');
    node.textContent = (sink ? 'sink' : 'not sink') + (bos === null ? '' : ' · BOS ' + bos.toFixed(2));
    node.title = 'class at logged step ' + curves.steps[i] + ' (metrics.jsonl)';
    node.dataset.sink = String(sink);
  }

  // ---- The step slider with play / pause, shared by both pages. ----
  function stepControls(count, label, onChange) {
    var slider = el('input', {type: 'range', min: '0', max: String(count - 1), value: String(count - 1), step: '1', id: 'step-slider'});
    var play = el('button', {type: 'button', id: 'play', text: 'play'});
    var timer = null;
    function stop() { if (timer !== null) { clearInterval(timer); timer = null; play.textContent = 'play'; } }
    slider.addEventListener('input', function () { onChange(Number(slider.value)); });
    play.addEventListener('click', function () {
      if (timer !== null) { stop(); return; }
      if (Number(slider.value) >= count - 1) slider.value = '0';
      play.textContent = 'pause';
      onChange(Number(slider.value));
      timer = setInterval(function () {
        if (Number(slider.value) >= count - 1) { stop(); return; }
        slider.value = String(Number(slider.value) + 1);
        onChange(Number(slider.value));
      }, 350);
    });
    return el('span', {}, [play, slider, label]);
  }

  // ---- Run page. ----
  function runPage(data) {
    var run = data.run;
    check(run && typeof run === 'object', 'no run');
    var facts = [run.normalizer ? 'normalizer ' + run.normalizer : null, run.layers ? run.layers + ' layer(s) x ' + run.heads + ' head(s)' : null,
                 run.seq_len ? 'T = ' + run.seq_len : null, run.steps ? run.steps + ' steps' : null, 'seed ' + run.seed].filter(Boolean);
    app.appendChild(el('div', {className: 'facts', text: facts.join(' · ')}));
    if (data.sweep_page) app.appendChild(el('div', {}, [el('a', {href: data.sweep_page, text: '← the sweep\'s explorer'})]));
    if (run.run_error) app.appendChild(el('div', {className: 'problem', text: 'This run did not finish: ' + run.run_error}));
    if (run.maps_error) app.appendChild(el('div', {className: 'problem', id: 'maps-error',
      text: 'The attention snapshots cannot be read: ' + run.maps_error}));
    if (run.maps_note) app.appendChild(el('div', {className: 'note', text: run.maps_note}));
    if (run.curves_error) app.appendChild(el('div', {className: 'problem', text: 'The curves cannot be read: ' + run.curves_error}));
    if (!run.maps) {
      app.appendChild(el('div', {className: 'problem', id: 'no-maps', text: 'This run has no attention maps to show: no attention_snapshots.npz' +
        (run.maps_error ? ' that can be read' : '') + ' and no attention/*.npy.'}));
      return;
    }
    var maps = new Maps(run.maps, run.id, 'run ' + run.id);
    var curves = checkCurves(run.curves, maps.L, maps.H, 'run ' + run.id);
    var state = {index: maps.steps.length - 1, kind: 'mean', enlarged: null};

    var stepLabel = el('span', {id: 'step-label'});
    var kindChoice = el('span', {}, ['mean', 'example'].map(function (k) {
      var input = el('input', {type: 'radio', name: 'kind', value: k, id: 'kind-' + k});
      if (k === 'mean') input.checked = true;
      if (k === 'example' && !maps.hasExample) input.disabled = true;
      input.addEventListener('change', function () { state.kind = k; redraw(); });
      return el('label', {}, [input, document.createTextNode(k === 'mean' ? ' mean over evaluation inputs ' : ' one example input')]);
    }));
    var readout = el('div', {className: 'readout', id: 'readout', text: 'Hover a map: query row, key column, weight, role, token. Click to enlarge.'});
    app.appendChild(el('div', {className: 'controls'}, [stepControls(maps.steps.length, stepLabel, function (i) { state.index = i; redraw(); }),
                                                       kindChoice]));
    app.appendChild(readout);
    app.appendChild(el('div', {className: 'legend', text: 'Rows: query positions; columns: key positions' +
      (maps.R < run.maps.seq_len ? ' (' + maps.R + ' x ' + maps.C + ' of T = ' + run.maps.seq_len + ': ' +
        (run.maps.pooled ? 'a stored row/column stands for the positions up to the next one, its token shown with "\u2026")'
                         : 'sampled positions ' + maps.raw.rows.slice(0, 3).join(', ') + ', ...)') : '') +
      '. Colour: 0 (white) to 1 (dark), or to the map\'s largest weight when above 1. Maps from ' + run.maps.source + '.'}));
    if (curves) app.appendChild(curveLegend());

    var grid = el('div', {className: 'grid', id: 'grid'});
    grid.style.gridTemplateColumns = 'repeat(' + maps.H + ', auto)';
    app.appendChild(grid);
    var cells = [];
    for (var l = 0; l < maps.L; ++l) {
      for (var h = 0; h < maps.H; ++h) {
        (function (layer, head) {
          var flat = layer * maps.H + head;
          var canvas = el('canvas', {className: 'heatmap', id: 'map-' + layer + '-' + head});
          var tag = el('span', {className: 'badge unknown', id: 'class-' + layer + '-' + head});
          var curveCanvas = curves ? el('canvas', {className: 'curves', id: 'curves-' + layer + '-' + head}) : null;
          var onsets = [{step: run.onset50 ? run.onset50[flat] : null, label: '50%'}, {step: run.onset90 ? run.onset90[flat] : null, label: '90%'}];
          var onsetText = onsets.filter(function (o) { return o.step !== null && o.step !== undefined; })
                                .map(function (o) { return 'onset ' + o.label + ' @' + o.step; }).join(', ');
          grid.appendChild(el('div', {className: 'head'}, [el('h3', {}, [el('span', {text: 'layer ' + layer + ' head ' + head}), tag]),
                                                           canvas, curveCanvas, el('div', {className: 'legend', text: onsetText || 'no onset'})]));
          attachHover(canvas, readout, function () { return {maps: maps, kind: state.kind, index: state.index, layer: layer, head: head, runId: run.id}; });
          canvas.addEventListener('click', function () { state.enlarged = {layer: layer, head: head}; showEnlarged(); });
          cells.push({layer: layer, head: head, flat: flat, canvas: canvas, tag: tag, curves: curveCanvas, onsets: onsets});
        })(l, h);
      }
    }

    // Click a head: a large view with position (and token) labels on both axes.
    var overlay = null;
    function showEnlarged() {
      if (overlay) overlay.remove();
      var e = state.enlarged, scale = Math.max(2, Math.floor(560 / Math.max(maps.R, maps.C)));
      // Axis labels: the token (pooled: the first one and "…") or else the position, at most 8
      // characters; every k-th row/column so that neighbouring labels (10px text) never overlap.
      var every = Math.max(1, Math.ceil(LABEL_PITCH / scale));
      var clip = function (text) { var chars = Array.from(text); return chars.length > 8 ? chars.slice(0, 7).join('') + '\u2026' : text; };
      var axisLabels = function (positions) {
        var out = [];
        for (var i = 0; i < positions.length; i += every) out.push([i, clip(axisToken(maps, positions, i) || String(positions[i]))]);
        return out;
      };
      var rowLabels = axisLabels(maps.raw.rows), colLabels = axisLabels(maps.raw.cols);
      var measure = document.createElement('canvas').getContext('2d');
      measure.font = LABEL_FONT;
      var margin = 8 + Math.ceil(rowLabels.concat(colLabels).reduce(function (w, l) { return Math.max(w, measure.measureText(l[1]).width); }, 24));
      var big = el('canvas', {className: 'big', id: 'enlarged-map'});
      var axes = el('canvas', {id: 'enlarged-axes'});
      var bigReadout = el('div', {className: 'readout', id: 'enlarged-readout'});
      var holder = el('div', {}, [axes]);
      holder.style.position = 'relative';
      big.style.position = 'absolute'; big.style.left = margin + 'px'; big.style.top = margin + 'px';
      big.style.width = maps.C * scale + 'px'; big.style.height = maps.R * scale + 'px';
      holder.appendChild(big);
      var close = el('button', {type: 'button', id: 'close-enlarged', text: 'close'});
      overlay = el('div', {className: 'overlay', id: 'enlarged'}, [el('div', {className: 'panel'}, [
        el('h3', {text: 'layer ' + e.layer + ' head ' + e.head + ' (' + state.kind + ', step ' + maps.steps[state.index] + ')'}), close, bigReadout, holder])]);
      close.addEventListener('click', function () { overlay.remove(); overlay = null; state.enlarged = null; });
      overlay.addEventListener('click', function (ev) { if (ev.target === overlay) close.click(); });
      document.body.appendChild(overlay);
      paintHeatmap(big, maps.head(state.kind, state.index, e.layer, e.head), maps.R, maps.C);
      attachHover(big, bigReadout, function () { return {maps: maps, kind: state.kind, index: state.index, layer: e.layer, head: e.head, runId: run.id}; });
      axes.width = margin + maps.C * scale + 4; axes.height = margin + maps.R * scale + 4;
      var ctx = axes.getContext('2d');
      ctx.font = LABEL_FONT; ctx.fillStyle = '#333'; ctx.textBaseline = 'middle';
      rowLabels.forEach(function (l) { ctx.fillText(l[1], 2, margin + (l[0] + 0.5) * scale); });
      colLabels.forEach(function (l) {
        ctx.save(); ctx.translate(margin + (l[0] + 0.5) * scale, margin - 4); ctx.rotate(-Math.PI / 2);
        ctx.fillText(l[1], 0, 0); ctx.restore();
      });
      // What the axes show, for tests/python/test_explorer_page.py: [[row or column index, label], ...].
      axes.dataset.rowLabels = JSON.stringify(rowLabels);
      axes.dataset.colLabels = JSON.stringify(colLabels);
      axes.dataset.cellPixels = String(scale);
    }

    // Paints the shown step once its maps are loaded; a later slider move wins over an earlier one.
    function redraw() {
      var index = state.index, kind = state.kind, step = maps.steps[index];
      stepLabel.textContent = 'step ' + step + ' (snapshot ' + (index + 1) + ' of ' + maps.steps.length + ')';
      stepLabel.dataset.step = String(step);
      cells.forEach(function (cell) {
        badge(cell.tag, curves, step, cell.flat);
        if (cell.curves) paintCurves(cell.curves, curves, cell.flat, step, cell.onsets);
      });
      maps.load(kind, index, function () {
        if (index !== state.index || kind !== state.kind) return;
        cells.forEach(function (cell) { paintHeatmap(cell.canvas, maps.head(kind, index, cell.layer, cell.head), maps.R, maps.C); });
        if (state.enlarged) showEnlarged();
        grid.dataset.shownStep = String(step);
        grid.dataset.shownKind = kind;
        markPainted();
      });
    }
    redraw();
  }

  // ---- Sweep page: one head of every variant side by side; seeds as small multiples. ----
  function sweepPage(data) {
    check(Array.isArray(data.runs), 'no runs list');
    var runs = data.runs.map(function (run) {
      var entry = {run: run, maps: null, curves: null, problem: run.maps_error || run.run_error || null};
      if (run.maps) {
        entry.maps = new Maps(run.maps, run.id, 'run ' + run.id);
        entry.curves = checkCurves(run.curves, entry.maps.L, entry.maps.H, 'run ' + run.id);
      }
      return entry;
    });
    var allSteps = [], L = 0, H = 0;
    runs.forEach(function (e) {
      if (!e.maps) return;
      allSteps = allSteps.concat(e.maps.steps);
      L = Math.max(L, e.maps.L); H = Math.max(H, e.maps.H);
    });
    allSteps = allSteps.filter(function (s, i, a) { return a.indexOf(s) === i; }).sort(function (a, b) { return a - b; });
    app.appendChild(el('div', {className: 'facts'}, [document.createTextNode(runs.length + ' run(s), ' + (data.variants || []).length +
      ' variant(s): one column per variant, its seeds below each other; a seed\'s link opens its run page. Tables: '),
      el('a', {href: 'index.html', text: 'index.html'})]));
    if (!allSteps.length) {
      app.appendChild(el('div', {className: 'problem', id: 'no-maps', text: 'No run of this sweep has attention maps to show.'}));
    }
    var state = {index: Math.max(0, allSteps.length - 1), layer: 0, head: 0};
    var headChoice = el('select', {id: 'head-choice'});
    for (var l = 0; l < L; ++l) for (var h = 0; h < H; ++h) headChoice.appendChild(el('option', {value: l + ',' + h, text: 'layer ' + l + ' head ' + h}));
    headChoice.addEventListener('change', function () {
      var p = headChoice.value.split(','); state.layer = Number(p[0]); state.head = Number(p[1]); redraw();
    });
    var stepLabel = el('span', {id: 'step-label'});
    var readout = el('div', {className: 'readout', id: 'readout', text: 'Hover a map: query row, key column, weight, role, token. Click a caption for the run\'s page.'});
    if (allSteps.length) app.appendChild(el('div', {className: 'controls'}, [stepControls(allSteps.length, stepLabel, function (i) { state.index = i; redraw(); }), headChoice]));
    app.appendChild(readout);
    var board = el('div', {className: 'sweep', id: 'sweep'});
    app.appendChild(board);
    var cells = [];
    (data.variants || []).forEach(function (variant) {
      var seeds = el('div', {className: 'seeds'});
      board.appendChild(el('div', {className: 'variant'}, [el('h2', {text: variant}), seeds]));
      runs.filter(function (e) { return e.run.variant === variant; }).forEach(function (e) {
        var link = el('a', {href: e.run.page || '#', text: 'seed ' + e.run.seed});
        var tag = el('span', {className: 'badge unknown'});
        var cell = {entry: e, tag: tag, stepNote: el('div', {className: 'caption'})};
        var children = [el('div', {className: 'caption'}, [link, document.createTextNode(' '), tag])];
        if (e.maps) {
          cell.canvas = el('canvas', {className: 'heatmap', id: 'map-' + e.run.id});
          children.push(cell.canvas);
          attachHover(cell.canvas, readout, function () {
            return {maps: e.maps, kind: 'mean', index: cell.shownIndex === undefined ? -1 : cell.shownIndex, layer: state.layer, head: state.head, runId: e.run.id,
                    label: variant + ' seed ' + e.run.seed};
          });
        } else {
          children.push(el('div', {className: 'problem', text: e.problem || 'no attention maps'}));
        }
        children.push(cell.stepNote);
        seeds.appendChild(el('div', {className: 'seed'}, children));
        cells.push(cell);
      });
    });
    function redraw() {
      var step = allSteps[state.index], layer = state.layer, head = state.head;
      stepLabel.textContent = 'step ' + step;
      stepLabel.dataset.step = String(step);
      board.dataset.shownStep = '';
      var pending = 0;
      cells.forEach(function (cell) {
        var m = cell.entry.maps;
        if (!m) return;
        if (layer >= m.L || head >= m.H) { cell.stepNote.textContent = 'no such head'; return; }
        var index = m.indexAt(step);
        pending += 1;
        m.load('mean', index, function () {
          pending -= 1;
          if (step !== allSteps[state.index] || layer !== state.layer || head !== state.head) return;
          cell.shownIndex = index;
          paintHeatmap(cell.canvas, m.head('mean', index, layer, head), m.R, m.C);
          cell.stepNote.textContent = 'snapshot at step ' + m.steps[index];
          badge(cell.tag, cell.entry.curves, m.steps[index], layer * m.H + head);
          if (pending === 0) { board.dataset.shownStep = String(step); markPainted(); }
        });
      });
    }
    if (allSteps.length) redraw();
    (data.tables || []).forEach(function (table, i) { app.appendChild(tableElement(table, 'table-' + i)); });
  }

  // A table of the report (the zoo table, or a per-variant one), every cell as text; a row's first
  // cell links to the page of the run it stands for.
  function tableElement(table, id) {
    var strings = function (a) { return Array.isArray(a) && a.every(function (s) { return typeof s === 'string'; }); };
    check(table && strings(table.header) && Array.isArray(table.rows) && table.rows.every(strings) && strings(table.links) &&
          table.links.length === table.rows.length && Array.isArray(table.sections) && strings(table.notes), 'a table of the sweep page');
    var node = el('table', {className: 'variants', id: id}), width = String(Math.max(1, table.header.length));
    node.appendChild(el('tr', {}, table.header.map(function (h) { return el('th', {text: h}); })));
    for (var r = 0; r <= table.rows.length; ++r) {
      table.sections.forEach(function (s) {
        if (s.at === r) node.appendChild(el('tr', {className: 'section'}, [el('th', {colspan: width, text: s.text})]));
      });
      if (r === table.rows.length) break;
      var link = table.links[r];
      node.appendChild(el('tr', {}, table.rows[r].map(function (cell, i) {
        return el('td', {}, [i === 0 && link ? el('a', {href: link, text: cell}) : document.createTextNode(cell)]);
      })));
    }
    return el('div', {className: 'tables'}, [table.title ? el('h2', {text: table.title}) : null, el('div', {className: 'scroll'}, [node])]
      .concat(table.notes.map(function (n) { return el('p', {className: 'legend', text: n}); })));
  }

  try {
    var data = window.SINKLAB_EXPLORER;
    if (!data || typeof data !== 'object') {
      showProblem('explorer-data.js did not load or is truncated (window.SINKLAB_EXPLORER is not set). Run sinklab report again.');
      return;
    }
    // Pages of other kinds draw themselves with this file's parts: a script loaded before this one
    // registers them in SINKLAB_EXPLORER_PAGES (report/explorer/open_model_explorer.js: an open model on a text).
    var pages = window.SINKLAB_EXPLORER_PAGES || {};
    if (data.kind === 'run') runPage(data);
    else if (data.kind === 'sweep') sweepPage(data);
    else if (Object.prototype.hasOwnProperty.call(pages, data.kind)) {
      pages[data.kind](data, app, {el: el, check: check, checkIntArray: checkIntArray, DataError: DataError, colour: colour,
                                   paintHeatmap: paintHeatmap, halvesToFloats: halvesToFloats, markPainted: markPainted,
                                   showProblem: showProblem});
    } else throw new DataError('explorer-data.js is corrupt: unknown page kind ' + JSON.stringify(data.kind));
    statusBox.className = 'hidden';
    statusBox.textContent = '';
    document.body.dataset.ready = 'true';
  } catch (e) {
    showProblem(e instanceof DataError ? e.message : 'The explorer stopped: ' + (e && e.message) + '. Regenerate the page with sinklab report.');
  }
})();
