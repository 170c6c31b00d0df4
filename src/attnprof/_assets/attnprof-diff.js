/* attnprof's drop-in comparison of two traces: `attnprof diff BEFORE AFTER`, in the browser (and in node, for the
   tests).

   A port of analysis/diff.py and analysis/diffjson.py, function by function under the same names, over the
   readings of attnprof-explain.js (which must be loaded first), with the noise rules of noise.py that they use
   (median_interval, band, compare, margin, too_wide). diff() returns the JSON of `attnprof diff --json`, field for
   field; tests/test_diff_js.py runs it on the H200 and CPU fixtures and compares the two.

   Sums run left to right, as there; the order statistic of a median's interval is computed with exact integers
   (BigInt), as Python's does. Nothing leaves the page. */
(function (root) {
  "use strict";

  const X = (root && root.attnprofExplain) || (typeof require === "function" ? require("./attnprof-explain.js") : null);
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const r3 = (x) => X.pyRound(x, 3);
  const r4 = (x) => X.pyRound(x, 4);
  const add = (xs) => {
    let total = 0;
    for (const x of xs) total += x;
    return total;
  };

  // --- noise.py -------------------------------------------------------------------------------------------------

  const CONFIDENCE = 0.95;
  const GPU_FLOOR = 0.03;
  const GPU_MIN_EFFECT = 0.05;
  const CPU_FLOOR = 0.1;
  const CPU_MIN_EFFECT = 0.25;
  const WIDE_BAND = 0.25;
  const RULES = { gpu: [GPU_FLOOR, GPU_MIN_EFFECT], cpu: [CPU_FLOOR, CPU_MIN_EFFECT] };

  /** total / 2**n as the nearest double (Python's int / int), for the sizes a trace gives. */
  function ratioOf(total, n) {
    const bits = total.toString(2).length;
    const shift = Math.max(0, bits - 1000); // keep 1000 significant bits: far below a double's 53
    return Number(total >> BigInt(shift)) * 2 ** (shift - n);
  }

  function orderStatistic(n, confidence) {
    confidence = confidence === undefined ? CONFIDENCE : confidence;
    let j = 1;
    let term = BigInt(n);
    let total = BigInt(1 + n);
    while (j < Math.floor((n + 1) / 2) && 1 - 2 * ratioOf(total, n) >= confidence) {
      j += 1;
      term = (term * BigInt(n - j + 1)) / BigInt(j);
      total += term;
    }
    return j;
  }

  function median(xs) {
    const n = xs.length;
    return n % 2 ? xs[(n - 1) / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
  }

  function medianInterval(samples) {
    const xs = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    const n = xs.length;
    const j = orderStatistic(n);
    return { median: median(xs), lo: xs[j - 1], hi: xs[n - j], n: n };
  }

  function band(f, floor) {
    const half = floor * Math.abs(f.median);
    return [Math.min(f.lo, f.median - half), Math.max(f.hi, f.median + half)];
  }

  function compare(a, b, floor, minEffect) {
    const [aLo, aHi] = band(a, floor);
    const [bLo, bHi] = band(b, floor);
    if (aLo <= bHi && bLo <= aHi) return "tie";
    if (minEffect > 0 && Math.abs(a.median - b.median) < minEffect * Math.min(Math.abs(a.median), Math.abs(b.median))) {
      return "tie";
    }
    return aHi < bLo ? "lower" : "higher";
  }

  function margin(a, b, floor) {
    const [aLo, aHi] = band(a, floor);
    const [bLo, bHi] = band(b, floor);
    return { median: a.median / b.median - 1, lo: aLo / bHi - 1, hi: aHi / bLo - 1, n: Math.min(a.n, b.n) };
  }

  function tooWide(f) {
    const reach = Math.max(f.median - f.lo, f.hi - f.median);
    const half = f.median === 0 ? (reach === 0 ? 0 : Infinity) : reach / Math.abs(f.median);
    return half > WIDE_BAND;
  }

  // --- analysis/diff.py -----------------------------------------------------------------------------------------

  const MATCHES = ["same", "replaced", "vanished", "appeared"];
  const STEP_FIGURES = [["wall_us", "cpu"], ["gpu_time_us", "gpu"], ["gpu_busy_us", "gpu"],
    ["gpu_busy_share", "gpu"], ["idle_us", "gpu"], ["waiting_us", "gpu"], ["attention_gpu_us", "gpu"]];
  const DECODE = "decode";
  const opt = (v) => (v === undefined ? null : v);

  /** The side of a reading of attnprof-explain.js (its calls carry kernel_us). */
  function side(x) {
    const t = x.trace;
    return {
      trace: { name: t.name, device: t.device, compute_capability: t.compute_capability, events: t.events,
        shapes: t.shapes, gpu: t.gpu_events > 0 },
      steps: x.steps,
      calls: x.calls,
    };
  }

  function figure(samples) {
    const xs = samples.filter((x) => x !== null && x !== undefined);
    if (!xs.length) return null;
    const f = medianInterval(xs);
    return { median: r4(f.median), lo: r4(f.lo), hi: r4(f.hi), n: f.n };
  }

  function change(before, after, rule) {
    const a = figure(before);
    const b = figure(after);
    if (a === null && b === null) return null;
    if (a === null || b === null) return { rule: rule, before: a, after: b, verdict: null, change: null };
    const [floor, effect] = RULES[rule];
    const verdict = tooWide(a) || tooWide(b) ? "too_wide" : compare(b, a, floor, effect);
    const lo = band(a, floor)[0];
    let m = null;
    if (lo > 0 && a.median > 0) {
      const g = margin(b, a, floor);
      m = { median: r4(g.median), lo: r4(g.lo), hi: r4(g.hi), n: g.n };
    }
    return { rule: rule, before: a, after: b, verdict: verdict, change: m };
  }

  function compareSteps(a, b) {
    const n = Math.min(a.steps.length, b.steps.length);
    const figures = {};
    for (const [name, rule] of STEP_FIGURES) {
      figures[name] = change(a.steps.map((s) => s[name]), b.steps.map((s) => s[name]), rule);
    }
    const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
    return { pairs: range(0, n).map((k) => [k, k]), only_before: range(n, a.steps.length),
      only_after: range(n, b.steps.length), figures: figures,
      launch_bound: [a.steps.filter((s) => s.launch_bound).length, b.steps.filter((s) => s.launch_bound).length] };
  }

  function noLength(shape) {
    return shape === null || shape === undefined || shape.length < 2 ? null
      : [...shape.slice(0, -2), null, shape[shape.length - 1]];
  }

  function signature(c) {
    const i = c.inputs || {};
    let key = opt(i.key);
    let value = opt(i.value);
    if (c.phase === DECODE) {
      key = noLength(key);
      value = noLength(value);
    }
    return JSON.stringify([c.kind, c.direction, c.compiled, opt(c.module), opt(c.phase), [opt(i.query), key, value,
      opt(i.dtype), opt(i.mask), opt(i.causal), opt(i.dropout), opt(i.gqa)]]);
  }

  function replaces(a, b) {
    const qa = opt((a.inputs || {}).query);
    const qb = opt((b.inputs || {}).query);
    return a.direction === b.direction && opt(a.phase) === opt(b.phase) &&
      (qa === null || qb === null || JSON.stringify(qa) === JSON.stringify(qb));
  }

  const perStep = (k, s) => r4(k.length / Math.max(s.steps.length, 1));
  function backends(k, s) {
    const out = {};
    for (const i of k) out[s.calls[i].backend] = (out[s.calls[i].backend] || 0) + 1;
    return out;
  }

  function kinds(s) {
    const by = new Map();
    s.calls.forEach((c, k) => {
      const sig = signature(c);
      if (!by.has(sig)) by.set(sig, []);
      by.get(sig).push(k);
    });
    return Array.from(by.values());
  }

  function samples(s, kind, what) {
    if (kind === null || (what === "gpu_us" && !s.trace.gpu)) return [];
    return kind.map((k) => s.calls[k][what]);
  }

  function stepTotals(s, kind) {
    if (kind === null || !s.trace.gpu) return [];
    const totals = s.steps.map(() => []);
    for (const k of kind) {
      const step = s.calls[k].step;
      if (step !== null) totals[step].push(s.calls[k].gpu_us);
    }
    return totals.map((t) => r3(add(t)));
  }

  function kernelChanges(a, ka, b, kb) {
    function launches(s, kind) {
      const out = new Map();
      if (kind === null) return out;
      const names = [];
      for (const k of kind) for (const n of Object.keys(s.calls[k].kernel_us)) if (!names.includes(n)) names.push(n);
      for (const name of names) {
        const got = kind.map((k) => (own(s.calls[k].kernel_us, name) ? s.calls[k].kernel_us[name] : [0, 0]));
        out.set(name, [r4(add(got.map((g) => g[0])) / kind.length), got.map((g) => g[1])]);
      }
      return out;
    }
    const before = launches(a, ka);
    const after = launches(b, kb);
    const names = [...before.keys(), ...[...after.keys()].filter((n) => !before.has(n))];
    const total = new Map(names.map((n) => [n, Math.max(before.has(n) ? add(before.get(n)[1]) : 0,
      after.has(n) ? add(after.get(n)[1]) : 0)]));
    names.sort((x, y) => total.get(y) - total.get(x));
    return names.map((n) => ({ name: n,
      per_call: [before.has(n) ? before.get(n)[0] : null, after.has(n) ? after.get(n)[0] : null],
      us: change(before.has(n) ? before.get(n)[1] : [], after.has(n) ? after.get(n)[1] : [], "gpu") }));
  }

  function kindDict(k, s) {
    if (k === null) return null;
    const first = s.calls[k[0]];
    const b = backends(k, s);
    let main = null;
    for (const name of Object.keys(b)) if (main === null || b[name] > b[main]) main = name;
    return { kind: first.kind, direction: first.direction, compiled: first.compiled, module: opt(first.module),
      phase: opt(first.phase), op: first.op, inputs: first.inputs, backend: main, backends: b, calls: k.length,
      per_step: perStep(k, s), first: first.index };
  }

  function sameSet(x, y) {
    const a = Object.keys(x).sort();
    const b = Object.keys(y).sort();
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }

  function row(match, a, ka, b, kb) {
    return {
      match: match,
      before: kindDict(ka, a),
      after: kindDict(kb, b),
      backend_changed: ka !== null && kb !== null && !sameSet(backends(ka, a), backends(kb, b)),
      gpu_us: change(samples(a, ka, "gpu_us"), samples(b, kb, "gpu_us"), "gpu"),
      cpu_us: change(samples(a, ka, "cpu_us"), samples(b, kb, "cpu_us"), "cpu"),
      step_gpu_us: change(stepTotals(a, ka), stepTotals(b, kb), "gpu"),
      kernels: kernelChanges(a, ka, b, kb),
    };
  }

  function match(a, b) {
    const ka = kinds(a);
    const kb = kinds(b);
    const sigB = new Map();
    kb.forEach((k, n) => {
      const sig = signature(b.calls[k[0]]);
      if (!sigB.has(sig)) sigB.set(sig, n);
    });
    const pairs = new Map();
    const taken = new Set();
    ka.forEach((k, n) => {
      const m = sigB.get(signature(a.calls[k[0]]));
      if (m !== undefined) {
        pairs.set(n, ["same", m]);
        taken.add(m);
      }
    });
    ka.forEach((k, n) => {
      if (pairs.has(n)) return;
      const first = a.calls[k[0]];
      const m = kb.findIndex((other, i) => !taken.has(i) && replaces(first, b.calls[other[0]]));
      if (m >= 0) {
        pairs.set(n, ["replaced", m]);
        taken.add(m);
      }
    });
    const rows = [];
    ka.forEach((k, n) => { if (pairs.has(n)) rows.push(row(pairs.get(n)[0], a, k, b, kb[pairs.get(n)[1]])); });
    ka.forEach((k, n) => { if (!pairs.has(n)) rows.push(row("vanished", a, k, b, null)); });
    kb.forEach((k, m) => { if (!taken.has(m)) rows.push(row("appeared", a, null, b, k)); });
    return rows;
  }

  function notes(a, b) {
    const ta = a.trace;
    const tb = b.trace;
    const out = [];
    if (ta.device !== tb.device || ta.compute_capability !== tb.compute_capability) {
      out.push({ code: "devices", before: ta.device || "-", after: tb.device || "-" });
    }
    if (a.steps.length !== b.steps.length) out.push({ code: "steps", before: a.steps.length, after: b.steps.length });
    const missing = [["before", ta], ["after", tb]].filter(([, t]) => !t.shapes).map(([w]) => w);
    if (missing.length) out.push({ code: "no_shapes", which: missing.join("+") });
    if (!ta.gpu && !tb.gpu) out.push({ code: "cpu_only" });
    else if (!ta.gpu || !tb.gpu) out.push({ code: "one_gpu", which: !ta.gpu ? "before" : "after" });
    const single = [["before", a], ["after", b]].filter(([, s]) => s.steps.length === 1).map(([w]) => w);
    if (single.length) out.push({ code: "one_step", which: single.join("+") });
    return out;
  }

  /** Two readings compared: the JSON of `attnprof diff --json` (analysis/diffjson.py). */
  function diff(beforeReading, afterReading) {
    const a = side(beforeReading);
    const b = side(afterReading);
    const st = compareSteps(a, b);
    const rows = match(a, b);
    const trace = (s) => Object.assign({}, s.trace, { steps: s.steps.length, calls: s.calls.length });
    const pair = ([i, j]) => {
      const sa = a.steps[i];
      const sb = b.steps[j];
      const out = { before: i, after: j, names: [sa.name, sb.name] };
      for (const f of ["wall_us", "gpu_busy_share", "attention_gpu_us", "launch_bound"]) out[f] = [sa[f], sb[f]];
      return out;
    };
    const matches = {};
    for (const m of MATCHES) matches[m] = rows.filter((r) => r.match === m).length;
    const changedBackends = rows.filter((r) => r.backend_changed).map((r) => ({ kind: r.before.kind,
      direction: r.before.direction, before: Object.keys(r.before.backends), after: Object.keys(r.after.backends) }));
    return {
      schema: "attnprof.diff",
      version: 1,
      rules: { gpu: { floor: GPU_FLOOR, min_effect: GPU_MIN_EFFECT }, cpu: { floor: CPU_FLOOR, min_effect: CPU_MIN_EFFECT },
        wide_band: WIDE_BAND },
      before: trace(a),
      after: trace(b),
      notes: notes(a, b),
      steps: { pairs: st.pairs.map(pair), only_before: st.only_before, only_after: st.only_after,
        figures: st.figures, launch_bound: { before: st.launch_bound[0], after: st.launch_bound[1] } },
      calls: rows,
      summary: { matches: matches, backends: changedBackends, attention_gpu_us: st.figures.attention_gpu_us },
    };
  }

  // --- the page: two drop zones and the comparison, in the words the page carries (render/diff.py's sections) ----

  function makeReport(words, lang, decode) {
    const F = X.fmt;
    const word = (key, fields) => (own(words, key) ? words[key] : key)
      .replace(/\{(\w+)\}/g, (m, k) => (fields && own(fields, k) ? String(fields[k]) : m));
    const el = (tag, attrs, children) => {
      const e = document.createElement(tag);
      for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
      for (const c of children || []) e.append(c);
      return e;
    };
    const table = (cls, headers, rows) => el("div", { class: "attnprof-dropin-table" }, [el("table", { class: cls }, [
      el("thead", {}, [el("tr", {}, headers.map((h) => el("th", { scope: "col" }, [h])))]),
      el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => (c instanceof Node ? el("td", {}, [c])
        : el("td", /^[-+\u2212]?[0-9]/.test(c) ? { class: "num" } : {}, [c]))))))])]);
    const which = (code) => (code === "before+after" ? word("tracediff.both") : word("tracediff." + code));
    const value = (x, share) => (x === null || x === undefined ? "-" : share ? F.percent(100 * x) : F.number(x));
    const figText = (f, share) => (f === null ? "-" : f.lo === f.hi && f.hi === f.median ? value(f.median, share)
      : value(f.median, share) + " (" + value(f.lo, share) + "\u2013" + value(f.hi, share) + ")");
    const signed = (x) => (x > 0 ? "+" : x < 0 ? "\u2212" : "") + F.number(Math.abs(100 * x), 2) + "\u00a0%";
    const changeText = (c) => {
      if (c === null || c.change === null) return c !== null && c.before && c.after ? word("tracediff.no_change") : "-";
      return word("tracediff.change", { median: signed(c.change.median), lo: signed(c.change.lo),
        hi: signed(c.change.hi) });
    };
    const verdictText = (c) => word("tracediff.verdict." + (c !== null && c.verdict ? c.verdict : "none"));
    const kindText = (k) => {
      const t = word("explain.kind." + k.kind);
      return k.compiled ? word("explain.compiled", { kind: t }) : t;
    };
    const what = (k) => (k === null ? "-" : kindText(k) + ", " + Object.keys(k.backends)
      .sort((x, y) => k.backends[y] - k.backends[x]).map((b) => word("explain.backend." + b)).join(" + "));
    const inputsText = (k) => {
      if (k === null) return "-";
      const i = k.inputs;
      if (!i) return word("explain.inputs.none");
      const shapes = [["q", i.query], ["k", i.key], ["v", i.value]].filter(([, v]) => v)
        .map(([n, v]) => n + " " + F.dims(v)).join(", ");
      const extra = ["causal", "mask", "gqa"].filter((f) => i[f]).map((f) => word("explain.inputs." + f));
      if (i.dropout) extra.push(word("explain.inputs.dropout", { p: String(i.dropout) }));
      return [(shapes + " " + (i.dtype || "?")).trim(), ...extra].join(", ");
    };
    const arrow = (c) => (c === null ? "-" : (c.before ? F.number(c.before.median) : "-") + " \u2192 " +
      (c.after ? F.number(c.after.median) : "-"));
    const label = (name) => {
      const d = decode(name);
      return (d.text && (d.text[lang] || d.text.en)) || d.short || name;
    };

    return function report(d, seconds) {
      const out = [];
      const p = (text, cls) => el("p", cls ? { class: cls } : {}, [text]);
      const h = (text) => el("h3", {}, [text]);
      const head = (t, steps) => word("explain.head", { name: t.name, steps: steps, events: t.events,
        device: t.device ? word("explain.device", { name: t.device, cc: t.compute_capability || "?.?" })
          : word("explain.no_device") });
      out.push(h(word("tracediff.title", { before: d.before.name, after: d.after.name })));
      out.push(p(word("tracediff.head", { which: which("before"), head: head(d.before, d.before.steps) })));
      out.push(p(word("tracediff.head", { which: which("after"), head: head(d.after, d.after.steps) })));
      if (d.notes.length) {
        out.push(p(word("tracediff.notes")));
        out.push(el("ul", { class: "attnprof-dropin-notes" }, d.notes.map((n) => el("li", {}, [word(
          "tracediff.note." + n.code, Object.assign({}, n, n.which ? { which: which(n.which) } : {}))]))));
      }
      // in short
      const fig = d.steps.figures;
      const short = [];
      const att = fig.attention_gpu_us;
      if (att && att.before && att.after) {
        short.push(word("tracediff.short.attention", { before: F.number(att.before.median),
          after: F.number(att.after.median), verdict: verdictText(att), change: changeText(att) }));
      }
      const wall = fig.wall_us;
      if (wall && wall.before && wall.after) {
        short.push(word("tracediff.short.wall", { before: F.number(wall.before.median / 1e3),
          after: F.number(wall.after.median / 1e3), verdict: verdictText(wall), change: changeText(wall) }));
      }
      short.push(word("tracediff.short.matches", d.summary.matches));
      for (const r of d.calls.filter((c) => c.backend_changed)) {
        const names = (k) => Object.keys(k.backends).map((b) => word("explain.backend." + b)).join(" + ");
        short.push(word("tracediff.short.backend", { what: kindText(r.before),
          direction: word("kernel.dir." + r.before.direction), before: names(r.before), after: names(r.after) }));
      }
      const lb = d.steps.launch_bound;
      if (lb.before || lb.after) {
        short.push(word("tracediff.short.cpu_bound", { before: lb.before, after: lb.after, nb: d.before.steps,
          na: d.after.steps }));
      }
      out.push(h(word("tracediff.short")));
      out.push(el("ul", { class: "attnprof-dropdiff-short" }, short.map((s) => el("li", {}, [s]))));
      // the steps
      out.push(h(word("tracediff.steps")));
      const stepRows = STEP_FIGURES.filter(([name]) => fig[name]).map(([name]) => [word("tracediff.fig." + name),
        figText(fig[name].before, name === "gpu_busy_share"), figText(fig[name].after, name === "gpu_busy_share"),
        changeText(fig[name]), verdictText(fig[name])]);
      stepRows.push([word("tracediff.fig.launch_bound"), word("tracediff.of", { n: lb.before, of: d.before.steps }),
        word("tracediff.of", { n: lb.after, of: d.after.steps }), "", ""]);
      out.push(table("attnprof-dropdiff-steps", ["figure", "before", "after", "change", "verdict"]
        .map((k) => word("tracediff.col." + k)), stepRows));
      const pct = (x) => F.percent(100 * x);
      out.push(p(word("tracediff.rules", { gpu_floor: pct(GPU_FLOOR), gpu_effect: pct(GPU_MIN_EFFECT),
        cpu_floor: pct(CPU_FLOOR), cpu_effect: pct(CPU_MIN_EFFECT), wide: pct(WIDE_BAND) }), "attnprof-dropin-made"));
      out.push(h(word("tracediff.pairs")));
      const yes = (v) => (v === null ? word("report.na") : word(v ? "explain.yes" : "explain.no"));
      out.push(table("attnprof-dropdiff-pairs", ["step_before", "step_after", "wall_us", "gpu_busy", "attention_us",
        "cpu_bound"].map((k) => word("tracediff.col." + k)), d.steps.pairs.slice(0, 50).map((s) => [s.names[0] || "-",
        s.names[1] || "-", value(s.wall_us[0]) + " \u2192 " + value(s.wall_us[1]),
        value(s.gpu_busy_share[0], true) + " \u2192 " + value(s.gpu_busy_share[1], true),
        value(s.attention_gpu_us[0]) + " \u2192 " + value(s.attention_gpu_us[1]),
        yes(s.launch_bound[0]) + " \u2192 " + yes(s.launch_bound[1])])));
      if (d.steps.pairs.length > 50) out.push(p("(+" + (d.steps.pairs.length - 50) + ")"));
      // the calls, their time, their kernels
      out.push(h(word("tracediff.calls")));
      if (!d.calls.length) {
        out.push(p(word("tracediff.no_calls")));
      } else {
        const first = (r) => r.before || r.after;
        out.push(table("attnprof-dropdiff-calls", [word("tracediff.col.call"), word("tracediff.col.match"),
          word("explain.col.direction"), word("tracediff.col.before"), word("tracediff.col.after"),
          word("tracediff.col.per_step")], d.calls.map((r, n) => [String(n + 1), word("tracediff.match." + r.match),
          word("kernel.dir." + first(r).direction), what(r.before), what(r.after),
          (r.before ? F.count(r.before.per_step) : "-") + " \u2192 " + (r.after ? F.count(r.after.per_step) : "-")])));
        d.calls.forEach((r, n) => out.push(p(word("tracediff.inputs", { n: n + 1, before: inputsText(r.before),
          after: inputsText(r.after) }))));
        out.push(h(word("tracediff.times")));
        const headers = [word("tracediff.col.call")];
        for (const k of ["gpu_call", "cpu_call", "gpu_step"]) {
          headers.push(word("tracediff.col." + k), word("tracediff.col.change"), word("tracediff.col.verdict"));
        }
        out.push(table("attnprof-dropdiff-times", headers, d.calls.map((r, n) => [String(n + 1),
          ...[r.gpu_us, r.cpu_us, r.step_gpu_us].flatMap((c) => [arrow(c), c ? changeText(c) : "-", verdictText(c)])])));
        out.push(h(word("tracediff.kernels")));
        const kernelRows = [];
        d.calls.forEach((r, n) => r.kernels.forEach((k) => {
          const both = k.per_call[0] !== null && k.per_call[1] !== null;
          const cell = el("span", { title: k.name }, [label(k.name)]);
          kernelRows.push([String(n + 1), cell, decode(k.name).family,
            k.per_call.map((x) => (x === null ? "-" : F.count(x))).join(" \u2192 "), arrow(k.us),
            both ? changeText(k.us) : "", k.per_call[0] === null ? word("tracediff.match.appeared")
              : k.per_call[1] === null ? word("tracediff.match.vanished") : verdictText(k.us)]);
        }));
        if (kernelRows.length) {
          out.push(table("attnprof-dropdiff-kernels", [word("tracediff.col.call"), word("dropin.kernel"),
            word("dropin.family"), word("tracediff.col.launches"), word("tracediff.col.kernel_us"),
            word("tracediff.col.change"), word("tracediff.col.verdict")], kernelRows));
        } else out.push(p(word("tracediff.no_kernels")));
      }
      out.push(p(word("tracediff.dropin.read_in", { seconds: F.number(seconds, 2) }), "attnprof-dropin-made"));
      return out;
    };
  }

  /** Make the comparison widget (rendered by attnprof.render.dropin.diff_fragment) work: a trace chosen or dropped
      on each of its two zones (or two dropped at once on either: the first is BEFORE) is read here, and once both
      are read their comparison is shown under them. */
  function mount(widget) {
    if (widget.dataset.attnprofMounted) return;
    widget.dataset.attnprofMounted = "1";
    const words = JSON.parse(widget.dataset.words || "{}");
    const lang = widget.dataset.lang || "en";
    const kernels = root && root.attnprofKernels;
    const status = widget.querySelector(".attnprof-dropin-status");
    const out = widget.querySelector(".attnprof-dropin-report");
    const word = (key, fields) => (own(words, key) ? words[key] : key)
      .replace(/\{(\w+)\}/g, (m, k) => (fields && own(fields, k) ? String(fields[k]) : m));
    const fallback = widget.previousElementSibling;
    if (fallback && fallback.classList.contains("attnprof-dropin-fallback")) fallback.hidden = true;
    widget.hidden = false;
    const read = { before: null, after: null };
    const started = { before: 0, after: 0 };
    async function take(side, file) {
      if (!file) return;
      out.replaceChildren();
      read[side] = null;
      widget.dataset.state = "reading";
      status.className = "attnprof-dropin-status";
      status.textContent = word("dropin.reading", { name: file.name });
      started[side] = performance.now();
      try {
        if (!kernels) throw new X.Unreadable("no_decoder", {});
        read[side] = { x: await X.explainFile(file, kernels.decode), seconds: (performance.now() - started[side]) / 1000 };
      } catch (err) {
        const code = err instanceof X.Unreadable ? err.code : "failed";
        const fields = err instanceof X.Unreadable ? err.fields : { error: String((err && err.message) || err) };
        status.className = "attnprof-dropin-status attnprof-dropin-error";
        status.textContent = word("dropin.error", { name: file.name, what: word("dropin.error." + code, fields) });
        widget.dataset.state = "error";
        widget.dataset.error = code;
        return;
      }
      const other = side === "before" ? "after" : "before";
      if (!read[other]) {
        status.textContent = side === "before" ? word("tracediff.dropin.waiting", { name: file.name }) : "";
        widget.dataset.state = "waiting";
        return;
      }
      const t0 = performance.now();
      const d = diff(read.before.x, read.after.x);
      const seconds = read.before.seconds + read.after.seconds + (performance.now() - t0) / 1000;
      out.replaceChildren(...makeReport(words, lang, kernels.decode)(d, seconds));
      out.dataset.rows = String(d.calls.length);
      status.textContent = "";
      widget.dataset.state = "done";
    }
    for (const side of ["before", "after"]) {
      const zone = widget.querySelector(".attnprof-dropdiff-" + side);
      const input = zone.querySelector("input[type=file]");
      input.addEventListener("change", () => take(side, input.files && input.files[0]));
      zone.addEventListener("dragover", (ev) => {
        ev.preventDefault();
        zone.classList.add("attnprof-dropin-over");
      });
      zone.addEventListener("dragleave", () => zone.classList.remove("attnprof-dropin-over"));
      zone.addEventListener("drop", async (ev) => {
        ev.preventDefault();
        zone.classList.remove("attnprof-dropin-over");
        const files = Array.from((ev.dataTransfer && ev.dataTransfer.files) || []);
        if (files.length >= 2) {
          await take("before", files[0]);
          await take("after", files[1]);
        } else if (files.length === 1) await take(side, files[0]);
      });
    }
  }

  function mountAll() {
    document.querySelectorAll(".attnprof-dropdiff").forEach(mount);
  }
  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
    else mountAll();
  }

  const api = { diff: diff, side: side, medianInterval: medianInterval, orderStatistic: orderStatistic, compare: compare,
    margin: margin, signature: signature, mount: mount };
  if (typeof module === "object" && module && module.exports) module.exports = api;
  if (root) root.attnprofDiff = api;
})(typeof window !== "undefined" ? window : null);
