/* simulate's report.html: sliders for B and ρ that re-rank the edits from the closed
   forms in #live-data (src/output/html_live.rs writes both). A run's reread total at
   slider values (x, v) is T = c·x + k + y/v: for one scenario x is B and v is ρ; for a
   history they are the factors on every session's own B and ρ. A run without a closed
   form is ranked from the sweep's own figures at its grid points (d.grid), interpolated
   linearly in x and 1/v between them, and marked. Nothing is fetched. */
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
  // Rust rounds a tie (…x.5 exactly) to even; toFixed rounds it up.
  function fixed(x, decimals) {
    if (x < 0) return '-' + fixed(-x, decimals);
    var scale = Math.pow(10, decimals), scaled = x * scale;
    if (scaled % 1 === 0.5 && scaled / scale === x) {
      var n = Math.floor(scaled);
      return ((n % 2 === 0 ? n : n + 1) / scale).toFixed(decimals);
    }
    return x.toFixed(decimals);
  }
  function grouped(x, decimals) {
    if (!isFinite(x)) return '—';
    var text = fixed(Math.abs(x), decimals);
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
    var text = fixed(x, digits);
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

  // Where the current point lies on the sweep's grid: for each axis the grid points on
  // either side and the weight of the upper one (linear in x, and in 1/v, where a run's
  // total is affine); `exact` at a grid point, `outside` beyond the grid (the nearest
  // grid point's figures).
  function bracket(values, value, inverse) {
    var n = values.length;
    for (var k = 0; k < n; k++) if (near(value, values[k])) return { i: k, j: k, t: 0, exact: true };
    if (value < values[0]) return { i: 0, j: 0, t: 0, outside: true };
    if (value > values[n - 1]) return { i: n - 1, j: n - 1, t: 0, outside: true };
    var j = 1;
    while (values[j] < value) j++;
    var f = inverse ? function (x) { return 1 / x; } : function (x) { return x; };
    return { i: j - 1, j: j, t: (f(value) - f(values[j - 1])) / (f(values[j]) - f(values[j - 1])) };
  }
  function locate() {
    if (!d.grid) return null;
    var x = bracket(d.grid.x, at.x, false), v = bracket(d.grid.v, at.v, true);
    return { x: x, v: v, exact: !!(x.exact && v.exact), outside: !!(x.outside || v.outside) };
  }
  // A sampled figure at the current point: the grid value there, else the bilinear
  // interpolation of the four around it.
  function sample(values, where) {
    var nv = d.grid.v.length;
    function row(i) {
      var a = values[i * nv + where.v.i];
      return where.v.t === 0 ? a : a * (1 - where.v.t) + values[i * nv + where.v.j] * where.v.t;
    }
    var low = row(where.x.i);
    return where.x.t === 0 ? low : low * (1 - where.x.t) + row(where.x.j) * where.x.t;
  }

  // The edits with a closed form or samples at the current point, ranked as src/rank.rs
  // ranks: by saving, savings within the tolerance of each other tied, ties in declaration
  // order. At the nominal point a sampled edit stands where the table says.
  function evaluate() {
    var base = total(d.baseline);
    var where = locate();
    var nominalPoint = atNominal();
    var live = [];
    d.edits.forEach(function (e) {
      var saved, sampled = false;
      if (e.form) saved = base - total(e.form);
      else if (e.sampled && where) {
        saved = nominalPoint ? e.nominal_saved : sample(e.sampled, where);
        sampled = true;
      } else return;
      if (tied(saved, 0, base)) saved = 0;
      live.push({ e: e, saved: saved, pct: 100 * saved / base, equiv: saved / (base / d.calls), sampled: sampled });
    });
    rankBy(live, 'saved', 'rank', base);
    live.sort(function (a, b) { return a.rank - b.rank || a.e.index - b.e.index; });
    var cost = null, dollarsBase = null;
    if (d.cost) {
      var c = d.cost;
      var baseSampled = !c.baseline;
      cost = c.baseline ? total(c.baseline) : (nominalPoint ? c.baseline_nominal : (where ? sample(c.baseline_sampled, where) : NaN));
      if (c.per_cost !== null && c.per_cost !== undefined) dollarsBase = cost * c.per_cost;
      var byCost = live.filter(function (o) { return o.e.cost || (o.e.cost_sampled && where); });
      byCost.forEach(function (o) {
        if (o.e.cost) o.costSaved = cost - total(o.e.cost);
        else o.costSaved = nominalPoint ? o.e.nominal_cost_saved : sample(o.e.cost_sampled, where);
        o.costSampled = baseSampled || !o.e.cost;
        if (tied(o.costSaved, 0, cost)) o.costSaved = 0;
        o.cost = cost - o.costSaved;
        o.costPct = 100 * o.costSaved / cost;
        if (dollarsBase !== null && o.e.priced) {
          o.dollars = o.cost * c.per_cost;
          o.dollarsSaved = dollarsBase - o.dollars;
        }
      });
      rankBy(byCost, 'costSaved', 'costRank', cost);
    }
    return { base: base, live: live, cost: cost, dollars: dollarsBase, where: where, nominal: nominalPoint };
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

  var marks = ['interpolated', 'nearest', 'gridded', 'nominal-only'];
  function unmark(tr) { marks.forEach(function (m) { tr.classList.remove(m); }); }

  function restore() {
    nominal.forEach(function (n) {
      unmark(n.tr);
      Array.prototype.forEach.call(n.tr.cells, function (c, i) { c.innerHTML = n.cells[i]; });
      body.appendChild(n.tr);
    });
  }

  // A sampled figure off the grid is an estimate: it says so.
  function approx(text, yes) { return yes ? '\u2248 ' + text : text; }

  function moveTable(r) {
    var between = r.where && !r.where.exact;
    var mark = !r.where ? null : r.where.exact ? 'gridded' : r.where.outside ? 'nearest' : 'interpolated';
    r.live.forEach(function (o) {
      var tr = rows[o.e.index];
      if (!tr) return;
      unmark(tr);
      var tokensApprox = o.sampled && between;
      var costApprox = o.costSampled && between;
      if ((o.sampled || o.costSampled) && mark) tr.classList.add(mark);
      set(tr, 'rank', String(o.rank));
      set(tr, 'saved', approx(grouped(o.saved, 0), tokensApprox));
      set(tr, 'pct', approx(percent(o.pct), tokensApprox));
      set(tr, 'equiv', approx(grouped(o.equiv, 2), tokensApprox));
      if (o.cost !== undefined) {
        set(tr, 'cost', approx(grouped(o.cost, 0), costApprox));
        set(tr, 'costpct', approx(percent(o.costPct), costApprox));
        set(tr, 'costrank', String(o.costRank));
      }
      if (o.dollars !== undefined) {
        set(tr, 'dollars', approx(dollars(o.dollars), costApprox));
        set(tr, 'dsaved', approx(dollars(o.dollarsSaved), costApprox));
      }
      body.appendChild(tr);
    });
    var ranked = {};
    r.live.forEach(function (o) { ranked[o.e.index] = true; });
    nominal.forEach(function (n) {
      if (ranked[n.tr.getAttribute('data-edit')]) return;
      unmark(n.tr);
      n.tr.classList.add('nominal-only');
      set(n.tr, 'rank', '\u2014');
      body.appendChild(n.tr);
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
    var where = (r.nominal ? 'At the nominal point, ' : 'At ') + showX(at.x) + ' and ' + showV(at.v);
    var unit = history ? 'est. tokens, summed over the sessions' : 'est. tokens';
    var text = where + ': baseline reread total ' + grouped(r.base, 0) + ' ' + unit + '.';
    var sampled = r.live.some(function (o) { return o.sampled || o.costSampled; });
    // Whether a sampled figure here is an estimate: off the nominal point and the grid.
    function estimated(yes) { return !!(yes && !r.nominal && r.where && !r.where.exact); }
    if (r.live.length) {
      var first = r.live.filter(function (o) { return o.rank === 1; });
      var best = first[0];
      var some = r.live.length < d.edits.length ? ' of the edits ranked here' : '';
      if (best.saved > 0) {
        var who = first.length > 1
          ? first.map(function (o) { return o.e.name; }).join(' and ') + ' tie for the largest saving' + some
          : best.e.name + ' saves the most' + some;
        text += ' ' + who + ': ' + approx(grouped(best.saved, 0), estimated(best.sampled)) + ' est. tokens, ' +
          percent(best.pct) + ' of the ' + (history ? 'summed ' : '') + 'reread total (' + grouped(best.equiv, 2) +
          ' average calls).';
      } else {
        // A tie of zeros is no answer: nothing here is worth doing for the rereads.
        text += ' No edit' + some + ' saves anything here' + (best.saved < 0 ? ': every one adds rereads' : '') + '.';
      }
      text += ' Order: ' + orderLine(r.live) + '.';
      var cheapest = r.live.filter(function (o) { return o.costRank === 1; });
      if (r.cost !== null && d.kind === 'scenario' && cheapest.length && table.querySelector('td.costrank')) {
        var top = cheapest[0];
        var money = top.dollarsSaved !== undefined
          ? ', ' + approx(dollars(top.dollarsSaved), estimated(top.costSampled)) + ' of ' + approx(dollars(r.dollars), estimated(!d.cost.baseline))
          : '';
        if (!(top.costSaved > 0)) text += ' No edit saves cost here.';
        else {
          var how = approx(percent(top.costPct), estimated(top.costSampled)) + money;
          text += top === best && best.saved > 0
            ? ' It also saves the most cost (' + how + ').'
            : ' By cost, ' + top.e.name + ' saves the most (' + how + ').';
        }
      }
    } else {
      text += ' No edit can be ranked here.';
    }
    if (sampled && !r.nominal) {
      text += r.where.exact
        ? ' This is a grid point of the sweep: the edits without a closed form are at its own figures.'
        : r.where.outside
          ? ' Outside the sweep\u2019s grid: the edits without a closed form (\u2248) are at the nearest grid point\u2019s figures.'
          : ' Between grid points of the sweep: the edits without a closed form (\u2248) are interpolated from the four around this point.';
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
      if (!a.form || !b.form) {
        var item0 = document.createElement('li');
        item0.textContent = a.name + ' and ' + b.name + ': no exact break-even, ' +
          (a.form ? b : a).name + ' has no closed form (sampled at the sweep\u2019s grid points).';
        list.appendChild(item0);
        continue;
      }
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
