/* simulate's report.html: sliders for B and ρ that re-rank the edits from the closed
   forms in #live-data (src/output/html_live.rs writes both). A run's reread total at
   slider values (x, v) is T = c·x + k + y/v: for one scenario x is B and v is ρ; for a
   history they are the factors on every session's own B and ρ. Nothing is fetched. */
(function () {
  'use strict';
  var source = document.getElementById('live-data');
  var panel = document.getElementById('live');
  var table = document.getElementById('edits');
  if (!source || !panel || !table || !table.tBodies.length || !window.JSON) return;
  var d = JSON.parse(source.textContent);
  var history = d.kind === 'history';
  var body = table.tBodies[0];
  var byId = function (id) { return document.getElementById(id); };
  var sliders = { x: byId('live-x'), v: byId('live-v') };

  // Numbers as src/output/number.rs writes them.
  function grouped(x, decimals) {
    if (!isFinite(x)) return '—';
    var text = Math.abs(x).toFixed(decimals);
    var parts = text.split('.');
    var whole = parts[0];
    var out = x < 0 && /[1-9]/.test(text) ? '-' : '';
    for (var i = 0; i < whole.length; i++) {
      if (i > 0 && (whole.length - i) % 3 === 0) out += ',';
      out += whole.charAt(i);
    }
    return parts.length > 1 ? out + '.' + parts[1] : out;
  }
  function decimal(x) {
    if (!isFinite(x)) return '—';
    if (Math.abs(x) >= 1000) return grouped(x, Math.abs(x % 1) < 0.05 ? 0 : 1);
    if (x === 0) return '0';
    var digits = Math.min(12, Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x)))));
    var text = x.toFixed(digits);
    if (text.indexOf('.') >= 0) text = text.replace(/0+$/, '').replace(/\.$/, '');
    return text === '-0' ? '0' : text;
  }
  function percent(x) {
    if (x !== 0 && Math.abs(x) < 0.05) return x > 0 ? '< 0.1 %' : '> \u22120.1 %';
    return grouped(x, 1) + ' %';
  }
  function dollars(x) {
    var decimals = x !== 0 && Math.abs(x) < 0.01 ? Math.min(8, Math.floor(-Math.log10(Math.abs(x))) + 2) : 2;
    return x < 0 ? '-$' + grouped(-x, decimals) : '$' + grouped(x, decimals);
  }
  function showX(x) { return history ? 'B \u00d7 ' + decimal(x) : 'B = ' + grouped(x, 0) + ' tokens'; }
  function showV(v) { return history ? '\u03c1 \u00d7 ' + decimal(v) : '\u03c1 = ' + decimal(v) + ' bytes/token'; }
  function valueX(x) { return history ? '\u00d7 ' + decimal(x) : grouped(x, 0) + ' tokens'; }
  function valueV(v) { return history ? '\u00d7 ' + decimal(v) : decimal(v) + ' bytes/token'; }

  var rows = {};
  var nominal = [];
  Array.prototype.forEach.call(body.rows, function (tr) {
    rows[tr.getAttribute('data-edit')] = tr;
    nominal.push({ tr: tr, cells: Array.prototype.map.call(tr.cells, function (c) { return c.innerHTML; }) });
  });
  var at = { x: d.x.nominal, v: d.v.nominal };

  function clamp(value, axis) { return Math.min(axis.max, Math.max(axis.min, value)); }
  function near(a, b) { return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)); }
  function atNominal() { return near(at.x, d.x.nominal) && near(at.v, d.v.nominal); }
  function total(f) { return f.c * at.x + f.k + f.y / at.v; }
  function tied(a, b, base) { return Math.abs(a - b) <= d.tie_tolerance * Math.abs(base); }

  // The edits with a closed form at the current point, ranked as src/rank.rs ranks: by
  // saving, savings within the tolerance of each other tied, ties in declaration order.
  function evaluate() {
    var base = total(d.baseline);
    var live = [];
    d.edits.forEach(function (e) {
      if (!e.form) return;
      var saved = base - total(e.form);
      if (tied(saved, 0, base)) saved = 0;
      live.push({ e: e, saved: saved, pct: 100 * saved / base, equiv: saved / (base / d.calls) });
    });
    live.sort(function (a, b) { return b.saved - a.saved || a.e.index - b.e.index; });
    var start = 0;
    while (start < live.length) {
      var end = start + 1;
      while (end < live.length && tied(live[end - 1].saved, live[end].saved, base)) end++;
      var run = live.slice(start, end).sort(function (a, b) { return a.e.index - b.e.index; });
      for (var j = 0; j < run.length; j++) { run[j].rank = start + 1; live[start + j] = run[j]; }
      start = end;
    }
    var cost = null;
    if (d.cost) {
      cost = total(d.cost.baseline);
      var byCost = live.filter(function (o) { return o.e.cost; });
      byCost.forEach(function (o) {
        o.cost = total(o.e.cost);
        o.costSaved = cost - o.cost;
        if (tied(o.costSaved, 0, cost)) o.costSaved = 0;
        o.costPct = 100 * o.costSaved / cost;
        if (d.cost.dollars) {
          o.dollars = o.cost * d.cost.dollars.per_cost + o.e.output_dollars;
          o.dollarsSaved = cost * d.cost.dollars.per_cost + d.cost.dollars.baseline_output - o.dollars;
        }
      });
      rankBy(byCost, 'costSaved', 'costRank', cost);
    }
    return { base: base, live: live, cost: cost };
  }

  // Ranks `items` by `key`, larger first, into `rank`, as src/rank.rs does; keeps their order.
  function rankBy(items, key, rank, base) {
    var sorted = items.slice().sort(function (a, b) { return b[key] - a[key] || a.e.index - b.e.index; });
    var start = 0;
    while (start < sorted.length) {
      var end = start + 1;
      while (end < sorted.length && tied(sorted[end - 1][key], sorted[end][key], base)) end++;
      for (var j = start; j < end; j++) sorted[j][rank] = start + 1;
      start = end;
    }
  }

  function cell(tr, name) { return tr.querySelector('td.' + name); }
  function set(tr, name, text) { var c = cell(tr, name); if (c) c.textContent = text; }

  function restore() {
    nominal.forEach(function (n) {
      n.tr.classList.remove('sampled');
      Array.prototype.forEach.call(n.tr.cells, function (c, i) { c.innerHTML = n.cells[i]; });
      body.appendChild(n.tr);
    });
  }

  function moveTable(r) {
    r.live.forEach(function (o) {
      var tr = rows[o.e.index];
      if (!tr) return;
      set(tr, 'rank', String(o.rank));
      set(tr, 'saved', grouped(o.saved, 0));
      set(tr, 'pct', percent(o.pct));
      set(tr, 'equiv', grouped(o.equiv, 2));
      if (o.cost !== undefined) {
        set(tr, 'cost', grouped(o.cost, 0));
        set(tr, 'costpct', percent(o.costPct));
        set(tr, 'costrank', String(o.costRank));
      }
      if (o.dollars !== undefined) {
        set(tr, 'dollars', dollars(o.dollars));
        set(tr, 'dsaved', dollars(o.dollarsSaved));
      }
      body.appendChild(tr);
    });
    nominal.forEach(function (n) {
      var e = d.edits.filter(function (e) { return String(e.index) === n.tr.getAttribute('data-edit'); })[0];
      if (e && !e.form) {
        n.tr.classList.add('sampled');
        set(n.tr, 'rank', '\u2014');
        body.appendChild(n.tr);
      }
    });
  }

  // Where a (ranked above) and b save the same, as src/sweep/break_even.rs: the saving
  // difference a − b is T_b − T_a = dc·x + dk + dy/v. In x at the current v, and in v at
  // the current x; `above`: the edit that saves more above the break-even (for every
  // value when there is none).
  function differences(a, b) {
    return { c: b.form.c - a.form.c, k: b.form.k - a.form.k, y: b.form.y - a.form.y };
  }
  function breakEvenX(a, b, base) {
    var t = differences(a, b);
    var intercept = t.k + t.y / at.v;
    var root = -intercept / t.c;
    if (t.c !== 0 && root > 0 && isFinite(root)) return { at: root, above: t.c > 0 ? a : b };
    if (t.c === 0 && Math.abs(intercept) <= d.tie_tolerance * Math.abs(base)) return { same: true };
    return { above: (t.c === 0 ? intercept : t.c) > 0 ? a : b };
  }
  function breakEvenV(a, b) {
    var t = differences(a, b);
    var rest = t.c * at.x + t.k;
    var root = -t.y / rest;
    if (t.y !== 0 && rest !== 0 && root > 0 && isFinite(root)) return { at: root, above: rest > 0 ? a : b };
    return null;
  }

  function tick(ruler, axis, value, text, kind) {
    var f = axis.max > axis.min ? (value - axis.min) / (axis.max - axis.min) : 0.5;
    var row = document.createElement('div');
    row.className = 'tick' + (kind ? ' ' + kind : '');
    var mark = document.createElement('i');
    // The range input's thumb is about 16 px wide: its centre runs from 8 px to 100 % − 8 px.
    var left = 'calc(8px + (100% - 16px) * ' + f.toFixed(6) + ')';
    mark.style.left = left;
    var label = document.createElement('span');
    label.textContent = text;
    if (f > 0.45) {
      label.style.right = 'calc(100% - ' + left + ' + 5px)';
    } else {
      label.style.left = 'calc(' + left + ' + 5px)';
    }
    row.appendChild(mark);
    row.appendChild(label);
    ruler.appendChild(row);
  }

  function inside(value, axis) { return value >= axis.min && value <= axis.max; }

  function orderLine(live) {
    return live.map(function (o, i) {
      return (i === 0 ? '' : (live[i - 1].rank === o.rank ? ' = ' : ' > ')) + o.e.name;
    }).join('');
  }

  function describe(r) {
    var now = byId('live-now');
    var where = (atNominal() ? 'At the nominal point, ' : 'At ') + showX(at.x) + ' and ' + showV(at.v);
    var unit = history ? 'est. tokens, summed over the sessions' : 'est. tokens';
    var text = where + ': baseline reread total ' + grouped(r.base, 0) + ' ' + unit + '.';
    if (r.live.length) {
      var first = r.live.filter(function (o) { return o.rank === 1; });
      var best = first[0];
      var who = first.length > 1
        ? first.map(function (o) { return o.e.name; }).join(' and ') + ' tie for the largest saving'
        : best.e.name + ' saves the most';
      text += ' ' + who + (d.edits.length > r.live.length ? ' of the edits with a closed form' : '') + ': ' +
        grouped(best.saved, 0) + ' est. tokens, ' + percent(best.pct) + ' of the ' +
        (history ? 'summed ' : '') + 'reread total (' + grouped(best.equiv, 2) + ' average calls). Order: ' +
        orderLine(r.live) + '.';
      var cheapest = r.live.filter(function (o) { return o.costRank === 1; });
      if (d.cost && d.kind === 'scenario' && cheapest.length && table.querySelector('td.costrank')) {
        text += cheapest[0] === best
          ? ' It also saves the most cost (' + percent(best.costPct) + ').'
          : ' By cost, ' + cheapest[0].e.name + ' saves the most (' + percent(cheapest[0].costPct) + ').';
      }
    }
    now.textContent = text;

    var list = byId('live-break-evens');
    var rulers = { x: byId('live-x-ruler'), v: byId('live-v-ruler') };
    list.textContent = '';
    rulers.x.textContent = '';
    rulers.v.textContent = '';
    tick(rulers.x, d.x, d.x.nominal, 'nominal ' + valueX(d.x.nominal), 'nominal');
    tick(rulers.v, d.v, d.v.nominal, 'nominal ' + valueV(d.v.nominal), 'nominal');
    var everyX = history ? 'factor on B' : 'B';
    for (var j = 0; j + 1 < r.live.length; j++) {
      var a = r.live[j].e, b = r.live[j + 1].e;
      var x = breakEvenX(a, b, r.base);
      var v = breakEvenV(a, b);
      var item = document.createElement('li');
      var pair = a.name + ' and ' + b.name;
      var text;
      if (x.same) {
        text = pair + ' save the same at every ' + everyX + ' at ' + showV(at.v) + '.';
      } else if (x.at === undefined) {
        text = x.above.name + ' saves more than ' + (x.above === a ? b : a).name + ' at every ' +
          everyX + ' > 0 at ' + showV(at.v) + ': no break-even in ' + everyX + '.';
      } else {
        text = pair + ' save the same at ' + showX(x.at) + ' (at ' + showV(at.v) + ')' +
          (inside(x.at, d.x) ? '' : ', outside the slider\u2019s range') + '; above it ' + x.above.name + ' saves more.';
        item.setAttribute('data-break-even-x', String(x.at));
        if (inside(x.at, d.x)) tick(rulers.x, d.x, x.at, a.name + ' \u21c4 ' + b.name + ': ' + valueX(x.at));
      }
      if (v) {
        text += ' At ' + showX(at.x) + ' they break even at ' + showV(v.at) +
          (inside(v.at, d.v) ? '' : ', outside the slider\u2019s range') + '; above it ' + v.above.name + ' saves more.';
        item.setAttribute('data-break-even-v', String(v.at));
        if (inside(v.at, d.v)) tick(rulers.v, d.v, v.at, a.name + ' \u21c4 ' + b.name + ': ' + valueV(v.at));
      }
      item.textContent = text;
      list.appendChild(item);
    }
  }

  function show() {
    var moved = !atNominal();
    table.classList.toggle('moved', moved);
    document.body.classList.toggle('moved', moved);
    var r = evaluate();
    if (moved) moveTable(r); else restore();
    sliders.x.value = String(at.x);
    sliders.v.value = String(at.v);
    byId('live-x-value').textContent = valueX(at.x);
    byId('live-v-value').textContent = valueV(at.v);
    var link = byId('live-link');
    link.setAttribute('href', '#' + fragment());
    describe(r);
  }

  function fragment() {
    var x = history ? +at.x.toPrecision(6) : Math.round(at.x);
    return d.x.key + '=' + x + '&' + d.v.key + '=' + (+at.v.toPrecision(6));
  }

  // `#B=12000&rho=3.3` (a history: `#B_factor=0.8&rho_factor=1.1`) sets the point; a value
  // outside a slider's range is brought to its nearest end, and the page says so.
  function readFragment() {
    var note = [];
    at = { x: d.x.nominal, v: d.v.nominal };
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var kv = part.split('=');
      var value = parseFloat(decodeURIComponent(kv[1] || ''));
      if (!isFinite(value)) return;
      var key = decodeURIComponent(kv[0]);
      [['x', d.x], ['v', d.v]].forEach(function (pair) {
        if (key !== pair[1].key) return;
        at[pair[0]] = clamp(value, pair[1]);
        if (at[pair[0]] !== value) note.push(key + '=' + kv[1] + ' is outside the slider\u2019s range: shown at its end');
      });
    });
    byId('live-clamped').textContent = note.join('; ');
  }

  function moved(axis) {
    return function () {
      at[axis] = clamp(parseFloat(sliders[axis].value), d[axis]);
      byId('live-clamped').textContent = '';
      show();
      try { window.history.replaceState(null, '', '#' + fragment()); } catch (e) { /* a file:// page may refuse */ }
    };
  }

  sliders.x.addEventListener('input', moved('x'));
  sliders.v.addEventListener('input', moved('v'));
  byId('live-reset').addEventListener('click', function () {
    at = { x: d.x.nominal, v: d.v.nominal };
    byId('live-clamped').textContent = '';
    show();
    try { window.history.replaceState(null, '', location.pathname + location.search); } catch (e) { /* as above */ }
  });
  window.addEventListener('hashchange', function () { readFragment(); show(); });
  readFragment();
  panel.hidden = false;
  var after = byId('live-after');
  if (after) after.hidden = false;
  show();
})();
