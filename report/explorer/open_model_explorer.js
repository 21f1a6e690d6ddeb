// The explorer page of an open model on a text (report/explorer/open_model_explorer.h): registers the
// page kind "open_model", which explorer.js (loaded after this file) draws with its own parts (el,
// colour, paintHeatmap, ...). The data: explorer-data.js, window.SINKLAB_EXPLORER = {kind: "open_model",
// maps: one window's [L, H, T, T] weights as the explorer's maps hold a step, head_facts, ...}.
(function () {
  'use strict';

  // A thumbnail per head in the head grid only while all of them together stay small (pixels).
  var THUMBNAIL_PIXELS = 1 << 22;
  // The readout lists the query's (or key's) largest weights, this many.
  var READOUT_TOP = 4;

  function openModelPage(data, app, parts) {
    var el = parts.el, check = parts.check;
    var maps = data.maps;
    check(maps && typeof maps === 'object', 'no maps object');
    var L = maps.layers, H = maps.heads, T = maps.seq_len;
    check([L, H, T].every(function (v) { return typeof v === 'number' && v >= 1 && Math.floor(v) === v; }), 'layers, heads, seq_len');
    parts.checkIntArray(maps.tokens, 'tokens');
    check(maps.tokens.length === T, 'tokens length');
    check(Array.isArray(maps.token_labels) && maps.token_labels.length === T &&
          maps.token_labels.every(function (s) { return typeof s === 'string'; }), 'token_labels is not one string per token');
    check(Array.isArray(maps.mean) && maps.mean.length === 1 && typeof maps.mean[0] === 'string', 'the weights are not one base64 string');
    check(maps.dtype && (maps.dtype.mean === 'f2' || maps.dtype.mean === 'f4'), 'dtype');
    check(Array.isArray(data.head_facts) && data.head_facts.length === L * H, 'head_facts has not one entry per head');

    var size = maps.dtype.mean === 'f2' ? 2 : 4, binary;
    try { binary = atob(maps.mean[0]); } catch (e) { throw new parts.DataError('explorer-data.js is corrupt: the weights are not base64'); }
    check(binary.length === L * H * T * T * size, 'the weights hold ' + binary.length + ' bytes, expected ' + L * H * T * T * size + ' (truncated?)');
    var bytes = new Uint8Array(binary.length);
    for (var b = 0; b < binary.length; ++b) bytes[b] = binary.charCodeAt(b);
    var weights = size === 2 ? parts.halvesToFloats(new Uint16Array(bytes.buffer)) : new Float32Array(bytes.buffer);
    function headMap(layer, head) {
      var offset = (layer * H + head) * T * T;
      return weights.subarray(offset, offset + T * T);
    }
    // The label the report made visible ("␣" for a space, "⏎" for a newline), else the id.
    function tokenText(position) {
      var label = maps.token_labels[position];
      return label !== '' ? label : '#' + maps.tokens[position];
    }
    function fact(value, digits) { return value === null || value === undefined ? 'n/a' : value.toFixed(digits); }
    function headName(f) { return 'L' + f.layer + ' H' + f.head; }
    var eps = data.sink_eps;
    function isSink(f) { return f.alpha0 !== null && eps !== null && f.alpha0 > eps; }

    // ---- Facts about the model and the text. ----
    var facts = [data.model, data.family + ' (model_type ' + data.model_type + ')', L + ' layer(s) x ' + H + ' head(s)',
                 'window ' + data.window + (data.windows ? ' of ' + data.windows : '') + ', T = ' + T,
                 data.bos === null ? 'no BOS' : 'BOS id ' + data.bos + ' first'];
    app.appendChild(el('div', {className: 'facts', text: facts.join(' \u00b7 ')}));
    if (data.text) app.appendChild(el('div', {className: 'facts', text: data.text + (data.tokens_note ? ' \u00b7 tokens: ' + data.tokens_note : '')}));

    // ---- Controls: the head, and what hovering a token shows. ----
    var state = {layer: 0, head: 0, mode: 'query', focus: T - 1};
    var best = 0;  // open on the strongest sink: the head with the largest alpha_0
    data.head_facts.forEach(function (f, i) { if (f.alpha0 !== null && (data.head_facts[best].alpha0 === null || f.alpha0 > data.head_facts[best].alpha0)) best = i; });
    state.layer = Math.floor(best / H); state.head = best % H;
    var headChoice = el('select', {id: 'head-choice'});
    data.head_facts.forEach(function (f) {
      headChoice.appendChild(el('option', {value: f.layer + ',' + f.head,
        text: headName(f) + ' \u00b7 \u03b1\u2080 ' + fact(f.alpha0, 3) + ' \u00b7 sink score ' + fact(f.sink_score, 3)}));
    });
    headChoice.addEventListener('change', function () {
      var p = headChoice.value.split(','); select(Number(p[0]), Number(p[1]));
    });
    var modeChoice = el('span', {id: 'mode-choice'}, [['query', 'hover a query token: the keys it attends to'],
                                                       ['key', 'hover a key token: the queries attending to it']].map(function (m) {
      var input = el('input', {type: 'radio', name: 'mode', value: m[0], id: 'mode-' + m[0]});
      if (m[0] === state.mode) input.checked = true;
      input.addEventListener('change', function () { state.mode = m[0]; showFocus(); });
      return el('label', {}, [input, document.createTextNode(' ' + m[1] + ' ')]);
    }));
    app.appendChild(el('div', {className: 'controls'}, [el('label', {}, [document.createTextNode('head '), headChoice]), modeChoice]));
    var readout = el('div', {className: 'readout', id: 'readout'});
    app.appendChild(readout);

    // ---- The token strip. ----
    var strip = el('div', {className: 'token-strip', id: 'tokens'});
    var spans = [];
    for (var t = 0; t < T; ++t) {
      (function (position) {
        var span = el('span', {className: 'tok', text: tokenText(position)});
        span.dataset.position = String(position);
        span.title = 'position ' + position + ', id ' + maps.tokens[position];
        span.addEventListener('mouseenter', function () { state.focus = position; showFocus(); });
        spans.push(span);
        strip.appendChild(span);
      })(t);
    }
    app.appendChild(el('h2', {className: 'om-heading', text: 'The window\'s tokens'}));
    app.appendChild(strip);

    // ---- The selected head's heatmap with its colour bar, and the grid of heads. ----
    var heatmap = el('canvas', {className: 'om-heatmap', id: 'heatmap'});
    var heatmapTitle = el('h2', {className: 'om-heading', id: 'heatmap-title'});
    var bar = el('canvas', {className: 'colour-bar', id: 'colour-bar'});
    var barLabels = el('div', {className: 'colour-bar-labels', id: 'colour-bar-labels'});
    var grid = el('div', {className: 'head-grid', id: 'head-grid'});
    grid.style.gridTemplateColumns = 'repeat(' + H + ', auto)';
    var thumbnails = L * H * T * T <= THUMBNAIL_PIXELS;
    var cells = data.head_facts.map(function (f) {
      var thumb = thumbnails ? el('canvas', {className: 'thumb'}) : null;
      var alpha = el('span', {className: 'alpha', text: '\u03b1\u2080 ' + fact(f.alpha0, 2)});
      var cell = el('button', {type: 'button', className: 'head-cell' + (isSink(f) ? ' sink' : ''), id: 'head-' + f.layer + '-' + f.head,
                               title: headName(f) + ': alpha_0 ' + fact(f.alpha0, 4) + ', sink score ' + fact(f.sink_score, 4) +
                                      ', BOS mass ' + fact(f.bos_mass, 4) + (isSink(f) ? ' (alpha_0 > ' + eps + ': a sink head)' : '')},
                        [thumb, el('span', {className: 'name', text: headName(f)}), alpha]);
      cell.dataset.alpha0 = f.alpha0 === null ? '' : String(f.alpha0);
      cell.addEventListener('click', function () { select(f.layer, f.head); });
      grid.appendChild(cell);
      if (thumb) parts.paintHeatmap(thumb, headMap(f.layer, f.head), T, T);
      return cell;
    });
    var baseline = data.uniform_baseline === null ? '' : '; uniform causal attention would give \u03b1\u2080 = ' + data.uniform_baseline.toFixed(3);
    app.appendChild(el('div', {className: 'om-layout'}, [
      el('div', {}, [heatmapTitle, heatmap, el('div', {className: 'legend', text: 'Rows: query tokens; columns: key tokens; hover a cell.'}),
                     bar, barLabels]),
      el('div', {className: 'om-side'}, [el('h2', {className: 'om-heading', text: 'Heads: layer down, head across'}),
                     el('div', {className: 'legend', text: '\u03b1\u2080: the first key\'s share of the attention (Gu et al.\'s Sink_1, mean over the ' +
                       'evaluated windows)' + baseline + '; red: a sink head (\u03b1\u2080 > ' + eps + ').'}), grid])]));
    attachHeatmapHover();

    function scale() { return Number(heatmap.dataset.scale) || 1; }
    function paintBar() {
      var w = 300, h = 14, s = scale();
      bar.width = w; bar.height = h;
      var ctx = bar.getContext('2d');
      for (var x = 0; x < w; ++x) {
        var rgb = parts.colour(s * x / (w - 1), s);
        ctx.fillStyle = 'rgb(' + rgb.join(',') + ')';
        ctx.fillRect(x, 0, 1, h);
      }
      bar.dataset.scale = String(s);
      barLabels.textContent = '';
      [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
        var label = el('span', {text: (f * s).toFixed(2)});
        label.style.left = (f * w) + 'px';
        barLabels.appendChild(label);
      });
      barLabels.appendChild(el('span', {className: 'caption', text: 'attention weight'}));
    }

    // Colours the strip for the focused token: its keys (query mode) or its queries (key mode).
    function showFocus() {
      var map = headMap(state.layer, state.head), s = scale(), i = state.focus, listed = [];
      spans.forEach(function (span, j) {
        var row = state.mode === 'query' ? i : j, col = state.mode === 'query' ? j : i;
        span.classList.toggle('focus', j === i);
        if (col > row) {  // a future key: causal attention gives it no weight
          span.classList.add('masked');
          span.style.backgroundColor = ''; span.style.color = '';
          span.dataset.weight = '';
          return;
        }
        var w = map[row * T + col], rgb = parts.colour(w, s);
        span.classList.remove('masked');
        span.style.backgroundColor = 'rgb(' + rgb.join(',') + ')';
        span.style.color = rgb[0] + rgb[1] + rgb[2] < 400 ? '#fff' : '#222';
        span.dataset.weight = String(w);
        listed.push([j, w]);
      });
      listed.sort(function (a, c) { return c[1] - a[1]; });
      var f = data.head_facts[state.layer * H + state.head];
      readout.textContent = headName(f) + '  ' + (state.mode === 'query' ? 'query ' : 'key ') + i + ' \u00ab' + tokenText(i) + '\u00bb ' +
        (state.mode === 'query' ? 'attends to: ' : 'is attended by: ') +
        listed.slice(0, READOUT_TOP).map(function (p) { return p[0] + ' \u00ab' + tokenText(p[0]) + '\u00bb ' + p[1].toFixed(3); }).join(', ') +
        (listed.length > READOUT_TOP ? ' (largest ' + READOUT_TOP + ' of ' + listed.length + ')' : '');
      var d = strip.dataset;
      d.layer = String(state.layer); d.head = String(state.head); d.focus = String(i); d.mode = state.mode;
    }

    function attachHeatmapHover() {
      heatmap.addEventListener('mousemove', function (e) {
        var rect = heatmap.getBoundingClientRect();
        var r = Math.min(T - 1, Math.max(0, Math.floor((e.clientY - rect.top) / rect.height * T)));
        var c = Math.min(T - 1, Math.max(0, Math.floor((e.clientX - rect.left) / rect.width * T)));
        state.focus = state.mode === 'query' ? r : c;
        showFocus();
        var w = headMap(state.layer, state.head)[r * T + c];
        readout.textContent = 'L' + state.layer + ' H' + state.head + '  query ' + r + ' \u00ab' + tokenText(r) + '\u00bb  key ' + c +
          ' \u00ab' + tokenText(c) + '\u00bb  weight ' + (c > r ? '0 (future key: masked)' : w.toPrecision(6));
        readout.dataset.row = String(r); readout.dataset.col = String(c); readout.dataset.weight = String(w);
      });
    }

    function select(layer, head) {
      state.layer = layer; state.head = head;
      headChoice.value = layer + ',' + head;
      cells.forEach(function (cell, k) { cell.classList.toggle('selected', k === layer * H + head); });
      var f = data.head_facts[layer * H + head];
      heatmapTitle.textContent = headName(f) + ': \u03b1\u2080 ' + fact(f.alpha0, 3) + ', sink score ' + fact(f.sink_score, 3) +
                                 ', BOS mass ' + fact(f.bos_mass, 3);
      parts.paintHeatmap(heatmap, headMap(layer, head), T, T);
      heatmap.dataset.layer = String(layer); heatmap.dataset.head = String(head);
      paintBar();
      showFocus();
    }
    select(state.layer, state.head);
    parts.markPainted();
  }

  window.SINKLAB_EXPLORER_PAGES = window.SINKLAB_EXPLORER_PAGES || {};
  window.SINKLAB_EXPLORER_PAGES.open_model = openModelPage;
})();
