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

  const api = { diff: diff, side: side, medianInterval: medianInterval, orderStatistic: orderStatistic, compare: compare,
    margin: margin, signature: signature };
  if (typeof module === "object" && module && module.exports) module.exports = api;
  if (root) root.attnprofDiff = api;
})(typeof window !== "undefined" ? window : null);
