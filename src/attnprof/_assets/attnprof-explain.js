/* attnprof's drop-in trace reader: the reading of `attnprof explain`, in the browser (and in node, for the tests).

   A port of the parts of the Python analysis that the drop-in page shows, function by function under the same
   names, so that each can be checked against its original:
     records/foreign.py   read()       the trace's events (bounded: MAX_BYTES, MAX_EVENTS)
     analysis/tracetree.py Tree         nesting, launches, steps, GPU busy time, idle gaps, launch-bound
     analysis/attention.py Finder       every attention call: by name, matmul-softmax-matmul, autograd's sequence
     analysis/attnflags.py inputs/flags shapes and dtype, hidden copies, fp32 softmax, math backend, expanded KV
     analysis/explain.py   explain()    per-step and per-call readings, the groups, the notes
   explain() returns the fields of `attnprof explain --json` (analysis/explainjson.py) that the page shows, named and
   rounded as there; a call's kernels are [name, launches] rather than ids into the kernel table, which the page
   does not build. tests/test_explain_js.py runs it on the H200 fixtures and compares it with the Python reading.

   Kernel names are decoded by attnprof-kernels.js from the exported rule table (no second copy of the rules).
   Nothing leaves the page: the file is read with the File API (gzip through DecompressionStream). Plain ES2019
   apart from that, no dependencies. */
(function (root) {
  "use strict";

  const MAX_BYTES = 512 * 1024 * 1024; // as records/foreign.py's MAX_BYTES
  const MAX_EVENTS = 4000000; // as records/foreign.py's MAX_EVENTS
  const MAX_SPAN_US = 86400e6; // as records/foreign.py's MAX_SPAN_US: a day
  const MAX_TS_US = 1e17; // as records/foreign.py's MAX_TS_US
  const EPS = 1e-3;
  const LAUNCH_BOUND_BUSY = 0.5;
  const LAUNCH_BOUND_WAIT = 0.5;
  const FLAGS = ["hidden_copy", "fp32_softmax", "math_backend", "kv_expand"];

  // --- records/foreign.py ---------------------------------------------------------------------------------------

  const CATEGORIES = {
    cpu_op: "op", operator: "op", user_annotation: "annotation", cuda_runtime: "runtime", runtime: "runtime",
    cuda_driver: "driver", driver: "driver", kernel: "kernel", gpu_memcpy: "memcpy", memcpy: "memcpy",
    gpu_memset: "memset", memset: "memset",
  };
  const CPU_KINDS = new Set(["op", "annotation", "runtime", "driver"]);

  /** A one-line problem with the file, in the words of the page (code, fields). */
  class Unreadable extends Error {
    constructor(code, fields) {
      super(code + " " + JSON.stringify(fields || {}));
      this.code = code;
      this.fields = fields || {};
    }
  }

  const isNum = (v) => typeof v === "number" && Number.isFinite(v);
  const intOf = (v) => (typeof v === "number" && Number.isInteger(v) ? v : null);
  const floatOf = (v) => (typeof v === "number" ? v : null);
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const truthy = (v) => (Array.isArray(v) || typeof v === "string" ? v.length > 0 : Boolean(v)); // Python's bool()
  const isDict = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const key2 = (a, b) => JSON.stringify([a === undefined ? null : a, b === undefined ? null : b]);

  // ---- analysis/attention.py's names (needed by read(): which ops keep their input shapes) ----
  const SDPA_OP = "aten::scaled_dot_product_attention";
  const MHA_OP = "aten::_native_multi_head_attention";
  const BACKEND_OPS = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash",
    "aten::_flash_attention_forward": "flash",
    "aten::_scaled_dot_product_efficient_attention": "mem_efficient",
    "aten::_efficient_attention_forward": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_cudnn_attention_forward": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_attention_math_for_mps": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "overrideable",
  };
  const BACKWARD_OPS = {
    "aten::_scaled_dot_product_flash_attention_backward": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward": "flash",
    "aten::_flash_attention_backward": "flash",
    "aten::_scaled_dot_product_efficient_attention_backward": "mem_efficient",
    "aten::_efficient_attention_backward": "mem_efficient",
    "aten::_scaled_dot_product_cudnn_attention_backward": "cudnn",
    "aten::_cudnn_attention_backward": "cudnn",
    "aten::_scaled_dot_product_fused_attention_overrideable_backward": "overrideable",
  };
  const NODE_BACKENDS = { Flash: "flash", FlashForCpu: "flash", Efficient: "mem_efficient", Cudnn: "cudnn",
    FusedOverrideable: "overrideable" };
  const NODE = /^ScaledDotProduct(\w+?)Attention(\w*?)Backward\d*$/;
  const EVALUATE = "autograd::engine::evaluate_function: ";
  const MATMUL_OPS = new Set(["aten::matmul", "aten::bmm", "aten::baddbmm", "aten::einsum", "aten::mm"]);
  const SOFTMAX_OPS = new Set(["aten::softmax", "aten::_softmax", "aten::_safe_softmax", "aten::special_softmax"]);
  const PATTERN_GAP = 8;
  const COMPILED_MARKS = ["Torch-Compiled Region", "CompiledFunction", "## Call CompiledFxGraph"];
  const INDUCTOR = /^(?:graph_\d+_)?(?:triton|cpp)_\w*?fused_(\w+?)_\d+$/;
  const INDUCTOR_KIND = /^(?:graph_\d+_)?triton_([a-z]+)_/;
  const SHAPED = new Set([SDPA_OP, MHA_OP, ...Object.keys(BACKEND_OPS), ...Object.keys(BACKWARD_OPS),
    ...MATMUL_OPS, ...SOFTMAX_OPS, "aten::expand", "aten::repeat_interleave", "aten::reshape", "aten::to",
    "aten::_to_copy", "aten::copy_", "aten::clone", "aten::contiguous"]);
  const isFlex = (name) => name.toLowerCase().includes("flex_attention") || name.toLowerCase().includes("flexattention");
  const wantsInputs = (name) => SHAPED.has(name) || name.startsWith("ScaledDotProduct") || isFlex(name);
  const startsWithAny = (s, prefixes) => prefixes.some((p) => s.startsWith(p));
  const removePrefix = (s, p) => (s.startsWith(p) ? s.slice(p.length) : s);

  /** The events of a parsed trace document (records/foreign.py's _Reader.read and link_flows). */
  function read(doc, name, maxEvents) {
    maxEvents = maxEvents || MAX_EVENTS;
    let events;
    let top = {};
    if (Array.isArray(doc)) events = doc;
    else if (isDict(doc)) {
      events = doc.traceEvents;
      if (!Array.isArray(events)) throw new Unreadable("no_events_list", {});
      top = doc;
    } else throw new Unreadable("not_trace", { what: doc === null ? "null" : typeof doc });
    const t = { name: name, cpu: [], gpu: [], threads: new Map(), categories: new Map(), events: 0, shapes: false,
      deviceProperties: [], meta: {}, layout: Array.isArray(doc) ? "array" : "object" };
    const flowsS = new Map();
    const flowsF = new Map();
    // the window every start must lie in, anchored at the first kept event; ids seen, per kind and process
    let lo = 0, hi = MAX_TS_US, anchor = null;
    const far = [];
    const seen = new Map();
    let n = 0;
    for (const e of events) {
      n += 1;
      if (!isDict(e)) throw new Unreadable("not_object", { n: n });
      const ph = e.ph;
      if (ph === "X") {
        const cat = typeof e.cat === "string" ? e.cat : String(e.cat);
        t.categories.set(cat, (t.categories.get(cat) || 0) + 1);
        const kind = typeof e.cat === "string" ? CATEGORIES[e.cat.toLowerCase()] : undefined;
        if (!kind) continue;
        const ts = e.ts === undefined ? 0 : e.ts;
        const dur = e.dur === undefined ? 0 : e.dur;
        if (!isNum(ts) || !isNum(dur)) {
          if (typeof ts === "number" && typeof dur === "number") {  // Infinity: JSON's 1e400 or 10**400
            throw new Unreadable("bad_time", { n: n, field: Number.isFinite(ts) ? "dur" : "ts" });
          }
          throw new Unreadable("not_number", { n: n, field: isNum(ts) ? "dur" : "ts" });
        }
        if (anchor === null && ts >= 0 && ts <= MAX_TS_US) {
          anchor = n;
          lo = Math.max(0, ts - MAX_SPAN_US);
          hi = Math.min(MAX_TS_US, ts + MAX_SPAN_US);
        }
        if (!(dur >= 0 && dur <= MAX_SPAN_US && ts >= lo && ts <= hi)) {
          if (dur < 0 || ts < 0 || dur > MAX_SPAN_US || ts > MAX_TS_US) {
            throw new Unreadable("bad_time", { n: n, field: dur < 0 || dur > MAX_SPAN_US ? "dur" : "ts" });
          }
          far.push(n);
        }
        const args = isDict(e.args) ? e.args : {};
        const ename = typeof e.name === "string" ? e.name : String(e.name);
        const corr = intOf(args.correlation);
        if (t.cpu.length + t.gpu.length >= maxEvents) throw new Unreadable("too_many", { max: maxEvents });
        if (CPU_KINDS.has(kind)) {
          const ev = { name: ename, kind: kind, pid: e.pid, tid: e.tid, ts: ts, dur: dur, correlation: corr,
            sequence: intOf(args["Sequence number"]), backward: Boolean(args["Fwd thread id"]), dims: null,
            types: null, concrete: null, strides: null };
          const launch = kind === "runtime" || kind === "driver";
          const id = launch ? corr : intOf(args["External id"]);
          if (id !== null) {  // unique within one process's export
            const where = kind + " " + JSON.stringify(e.pid === undefined ? null : e.pid);
            if (!seen.has(where)) seen.set(where, new Map());
            const first = seen.get(where).get(id);
            if (first !== undefined) throw new Unreadable("twice", { n: n, first: first });
            seen.get(where).set(id, n);
          }
          const dims = truthy(args["Input Dims"]) ? args["Input Dims"] : args["Input dims"];
          if (truthy(dims)) {
            t.shapes = true;
            if (wantsInputs(ename)) {
              ev.dims = dims;
              ev.types = truthy(args["Input type"]) ? args["Input type"] : null;
              ev.concrete = truthy(args["Concrete Inputs"]) ? args["Concrete Inputs"] : null;
              ev.strides = truthy(args["Input Strides"]) ? args["Input Strides"] : null;
            }
          }
          t.cpu.push(ev);
        } else {
          t.gpu.push({ kind: kind, name: ename, device: "device" in args ? args.device : e.pid,
            stream: "stream" in args ? args.stream : e.tid, ts: ts, dur: dur, correlation: corr,
            grid: truthy(args.grid) ? args.grid : null, block: truthy(args.block) ? args.block : null, registers: intOf(args["registers per thread"]),
            shared_memory: intOf(args["shared memory"]) });
        }
      } else if (ph === "M") {
        if (e.name === "thread_name" && isDict(e.args)) {
          t.threads.set(key2(e.pid, e.tid), String(e.args.name === undefined ? "" : e.args.name));
        }
      } else if ((ph === "s" || ph === "f") && e.cat === "ac2g") {
        const fid = intOf(e.id);
        if (fid !== null) {
          if (ph === "s") flowsS.set(fid, JSON.stringify([e.pid, e.tid, e.ts]));
          else flowsF.set(e.ts, fid);
        }
      }
    }
    t.events = n;
    if (far.length) {
      const kept = t.cpu.length + t.gpu.length;
      throw new Unreadable("far_time", { n: far.length > kept / 2 ? anchor : far[0] });
    }
    if (flowsS.size) {
      const starts = new Map();
      for (const [k, v] of flowsS) starts.set(v, k);
      for (const c of t.cpu) {
        if (c.correlation === null && (c.kind === "runtime" || c.kind === "driver")) {
          const got = starts.get(JSON.stringify([c.pid, c.tid, c.ts]));
          c.correlation = got === undefined ? null : got;
        }
      }
      for (const g of t.gpu) {
        if (g.correlation === null) {
          const got = flowsF.get(g.ts);
          g.correlation = got === undefined ? null : got;
        }
      }
    }
    const props = top.deviceProperties;
    t.deviceProperties = Array.isArray(props) ? props.filter(isDict) : [];
    for (const k of Object.keys(top)) {
      const v = top[k];
      if (k !== "traceEvents" && k !== "deviceProperties" && (!(v !== null && typeof v === "object") ||
          k === "distributedInfo")) t.meta[k] = v;
    }
    if (!t.cpu.length && !t.gpu.length) {
      const seen = Array.from(t.categories.entries()).sort((a, b) => b[1] - a[1]).slice(0, 6)
        .map(([c, k]) => c + " (" + k + ")").join(", ");
      throw new Unreadable("not_pytorch", { seen: seen || "none" });
    }
    return t;
  }

  // --- analysis/tracetree.py ------------------------------------------------------------------------------------

  const STEP = /^ProfilerStep#(\d+)$/;

  // Python's round(x, digits) + 0.0: the nearest decimal of the exact binary value, a tie to the even digit (a
  // difference of two timestamps is often an exact tie, such as 438.5625 at three places).
  function pyRound(x, digits) {
    if (x === null || x === undefined) return null;
    const scaled = Math.abs(x) * 10 ** digits;
    if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-6) return Number(x.toFixed(digits)) + 0; // not near a tie
    const exact = Math.abs(x).toFixed(60);
    const cut = exact.indexOf(".") + 1 + digits;
    if (/^50*$/.test(exact.slice(cut)) && Number(exact[cut - 1 - (digits ? 0 : 1)]) % 2 === 0) {
      return (x < 0 ? -1 : 1) * Number(exact.slice(0, cut)) + 0;
    }
    return Number(x.toFixed(digits)) + 0;
  }
  const r3 = (x) => pyRound(x, 3);
  const r4 = (x) => pyRound(x, 4);
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  // Python's math.fsum (Shewchuk's exact partials, correctly rounded), so that a mean here is statistics.fmean's
  // there to the last bit: a plain sum of 96 calls' times can land either side of a rounding step.
  function fsum(xs) {
    const partials = [];
    for (let x of xs) {
      let i = 0;
      for (let y of partials) {
        if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
        const hi = x + y, lo = y - (hi - x);
        if (lo) partials[i++] = lo;
        x = hi;
      }
      partials.length = i;
      partials.push(x);
    }
    let n = partials.length, hi = 0, lo = 0;
    if (n > 0) {
      hi = partials[--n];
      while (n > 0) {
        const x = hi, y = partials[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo) break;
      }
      if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
        const y = lo * 2, x = hi + y;
        if (y === x - hi) hi = x;
      }
    }
    return hi;
  }
  const fmean = (xs) => fsum(xs) / xs.length;

  function bisectRight(xs, x) {
    let lo = 0;
    let hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x < xs[mid]) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  function stepFields(s) {
    s.wall_us = r3(s.end - s.start);
    s.idle_us = sum(s.gaps.map((g) => g[1]));
    s.waiting_us = sum(s.gaps.filter((g) => g[2]).map((g) => g[1]));
    s.busy_share = s.gpu.length && s.span_us > 0 ? s.busy_us / s.span_us : null;
    s.launch_bound = s.busy_share === null ? null : s.busy_share < LAUNCH_BOUND_BUSY && s.idle_us > 0 &&
      s.waiting_us / s.idle_us >= LAUNCH_BOUND_WAIT;
  }

  class Tree {
    constructor(trace) {
      this.trace = trace;
      const cpu = trace.cpu;
      const threads = new Map(); // (pid, tid) -> events, in the order threads first appear (Python's dict)
      const byPid = new Map();
      cpu.forEach((e, i) => {
        let tids = byPid.get(e.pid);
        if (tids === undefined) byPid.set(e.pid, (tids = new Map()));
        let idx = tids.get(e.tid);
        if (idx === undefined) {
          tids.set(e.tid, (idx = []));
          threads.set(key2(e.pid, e.tid), idx);
        }
        idx.push(i);
      });
      const n = cpu.length;
      this.pos = new Int32Array(n);
      this.stop = new Int32Array(n);
      this.parent = new Int32Array(n).fill(-1);
      this.orderOf = new Array(n); // event -> its thread's ordered events
      this.order = new Map();
      for (const [k, idx] of threads) {
        idx.sort((a, b) => cpu[a].ts - cpu[b].ts || cpu[b].dur - cpu[a].dur || a - b);
        this.order.set(k, idx);
        for (const i of idx) this.orderOf[i] = idx;
        this.nest(idx);
      }
      this.gpuOf = new Map();
      trace.gpu.forEach((g, j) => {
        if (g.correlation !== null) {
          if (!this.gpuOf.has(g.correlation)) this.gpuOf.set(g.correlation, []);
          this.gpuOf.get(g.correlation).push(j);
        }
      });
      this.findSteps();
      this.assign();
    }

    nest(idx) {
      const cpu = this.trace.cpu;
      const stack = [];
      idx.forEach((i, p) => {
        const e = cpu[i];
        while (stack.length) {
          const top = cpu[stack[stack.length - 1]];
          if (e.ts + e.dur <= top.ts + top.dur + EPS && e.ts >= top.ts - EPS) break;
          this.stop[stack.pop()] = p;
        }
        this.parent[i] = stack.length ? stack[stack.length - 1] : -1;
        this.pos[i] = p;
        stack.push(i);
      });
      for (const i of stack) this.stop[i] = idx.length;
    }

    thread(i) {
      return this.orderOf[i];
    }

    descendants(i) {
      return this.thread(i).slice(this.pos[i] + 1, this.stop[i]);
    }

    nextSibling(i) {
      const order = this.thread(i);
      const p = this.stop[i];
      return p < order.length && this.parent[order[p]] === this.parent[i] ? order[p] : null;
    }

    ancestors(i) {
      const out = [];
      let p = this.parent[i];
      while (p >= 0) {
        out.push(p);
        p = this.parent[p];
      }
      return out;
    }

    launched(events) {
      const cpu = this.trace.cpu;
      const out = new Set();
      for (const i of events) {
        const e = cpu[i];
        if (e.correlation !== null && (e.kind === "runtime" || e.kind === "driver")) {
          for (const j of this.gpuOf.get(e.correlation) || []) out.add(j);
        }
      }
      const gpu = this.trace.gpu;
      return Array.from(out).sort((a, b) => gpu[a].ts - gpu[b].ts || a - b);
    }

    under(roots) {
      const out = [];
      for (const r of roots) {
        out.push(r);
        for (const d of this.descendants(r)) out.push(d);
      }
      return out;
    }

    findSteps() {
      const cpu = this.trace.cpu;
      let marks = [];
      cpu.forEach((e, i) => {
        if ((e.kind === "annotation" || e.kind === "op") && STEP.test(e.name)) marks.push(i);
      });
      marks.sort((a, b) => cpu[a].ts - cpu[b].ts || a - b);
      const step = (k, name, start, end) => ({ index: k, name: name, start: start, end: end, gpu: [], busy_us: 0,
        gpu_us: 0, span_us: 0, gaps: [] });
      if (marks.length) {
        const first = cpu[marks[0]];
        this.main = [first.pid, first.tid];
        marks = marks.filter((i) => key2(cpu[i].pid, cpu[i].tid) === key2(first.pid, first.tid));
        this.steps = marks.map((i, k) => step(k, cpu[i].name, cpu[i].ts, cpu[i].ts + cpu[i].dur));
        return;
      }
      if (!cpu.length && !this.trace.gpu.length) {
        this.main = null;
        this.steps = [];
        return;
      }
      let best = null;
      for (const [k, idx] of this.order) if (best === null || idx.length > this.order.get(best).length) best = k;
      this.main = best === null ? null : JSON.parse(best);
      const times = cpu.length ? cpu : this.trace.gpu;
      let lo = Infinity;
      let hi = -Infinity;
      for (const e of times) {
        lo = Math.min(lo, e.ts);
        hi = Math.max(hi, e.ts + e.dur);
      }
      this.steps = [step(0, "", lo, hi)];
    }

    stepOf(ts) {
      const k = bisectRight(this.starts, ts + EPS) - 1;
      return k >= 0 && ts <= this.steps[k].end + EPS ? k : null;
    }

    assign() {
      const trace = this.trace;
      const steps = this.steps;
      this.starts = steps.map((s) => s.start);
      const pid = this.main ? this.main[0] : null;
      const owner = new Map();
      for (const e of trace.cpu) {
        if (e.correlation !== null && (e.kind === "runtime" || e.kind === "driver") && e.pid === pid) {
          const k = this.stepOf(e.ts);
          if (k !== null) for (const j of this.gpuOf.get(e.correlation) || []) if (!owner.has(j)) owner.set(j, k);
        }
      }
      trace.gpu.forEach((g, j) => {
        if (!owner.has(j)) {
          const k = this.stepOf(g.ts);
          if (k !== null) owner.set(j, k);
        }
      });
      const gpu = trace.gpu;
      Array.from(owner.keys()).sort((a, b) => gpu[a].ts - gpu[b].ts || a - b)
        .forEach((j) => steps[owner.get(j)].gpu.push(j));
      this.launchOf = new Map();
      for (const e of trace.cpu) {
        if (e.correlation !== null && (e.kind === "runtime" || e.kind === "driver") && !this.launchOf.has(e.correlation)) {
          this.launchOf.set(e.correlation, e);
        }
      }
      for (const s of steps) this.gpuTime(s);
    }

    gpuTime(s) {
      const gpu = this.trace.gpu;
      s.gpu_us = r3(sum(s.gpu.map((j) => gpu[j].dur)));
      if (!s.gpu.length) {
        s.span_us = r3(s.end - s.start);
        stepFields(s);
        return;
      }
      let busy = 0;
      const gaps = [];
      let curStart = gpu[s.gpu[0]].ts;
      let curEnd = curStart + gpu[s.gpu[0]].dur;
      for (const j of s.gpu.slice(1)) {
        const g = gpu[j];
        if (g.ts > curEnd + EPS) {
          busy += curEnd - curStart;
          const launch = g.correlation !== null ? this.launchOf.get(g.correlation) : undefined;
          const waited = launch !== undefined && launch.ts >= curEnd - EPS;
          gaps.push([r3(curEnd - s.start), r3(g.ts - curEnd), waited]);
          curStart = g.ts;
          curEnd = g.ts + g.dur;
        } else curEnd = Math.max(curEnd, g.ts + g.dur);
      }
      busy += curEnd - curStart;
      let last = -Infinity;
      for (const j of s.gpu) last = Math.max(last, gpu[j].ts + gpu[j].dur);
      s.busy_us = r3(busy);
      s.gaps = gaps;
      s.span_us = r3(Math.max(s.end, last) - Math.min(s.start, gpu[s.gpu[0]].ts));
      stepFields(s);
    }
  }

  // --- analysis/attention.py ------------------------------------------------------------------------------------

  function makeFinder(tree, decode) {
    const cpu = tree.trace.cpu;
    const calls = [];
    const opsCache = new Map();

    function inductorOps(name) {
      if (opsCache.has(name)) return opsCache.get(name);
      const m = INDUCTOR.exec(name);
      let out = null;
      if (m) {
        const ops = decode("triton_x_fused_" + m[1] + "_0").fields.ops || "";
        out = ops ? ops.split(",") : [];
      }
      opsCache.set(name, out);
      return out;
    }
    const lstrip = (s) => s.replace(/^_+/, "");
    function isSoftmax(name) {
      if (SOFTMAX_OPS.has(name)) return true;
      const ops = inductorOps(name);
      return ops !== null && ops.some((o) => lstrip(o) === "softmax" || lstrip(o) === "safe_softmax") &&
        !ops.some((o) => o.includes("backward") || lstrip(o) === "log_softmax");
    }
    function isSoftmaxBackward(name) {
      const ops = inductorOps(name);
      return ops !== null && ops.some((o) => lstrip(o) === "softmax_backward_data");
    }
    const isMatmul = (name) => MATMUL_OPS.has(name);
    const compiled = (i) => tree.ancestors(i).some((a) => startsWithAny(cpu[a].name, COMPILED_MARKS)) ||
      INDUCTOR.test(cpu[i].name);
    const inBackward = (i) => cpu[i].backward || tree.ancestors(i).some((a) => cpu[a].name.startsWith(EVALUATE));

    function add(kind, backend, direction, roots, op, evidence, parts) {
      const call = { kind: kind, backend: backend, direction: direction, compiled: compiled(roots[0]), roots: roots,
        op: op, evidence: evidence, parts: parts || {}, forward: null, module: null, projections: [] };
      calls.push(call);
      return call;
    }

    function byKernels(i) {
      const under = tree.under([i]);
      const families = new Set(tree.launched(under).map((j) => decode(tree.trace.gpu[j].name).family));
      for (const b of ["flash", "mem_efficient", "cudnn"]) if (families.has(b)) return b;
      if (under.some((d) => isSoftmax(cpu[d].name)) || families.has("softmax")) return "math";
      return "unknown";
    }

    function named(i) {
      const name = cpu[i].name;
      if (name === SDPA_OP || name === MHA_OP) {
        const inner = tree.descendants(i).find((d) => own(BACKEND_OPS, cpu[d].name));
        const backend = inner !== undefined ? BACKEND_OPS[cpu[inner].name] : byKernels(i);
        const kind = name === SDPA_OP ? "sdpa" : "mha";
        return add(kind, backend, "fwd", [i], inner === undefined ? name : cpu[inner].name, "op",
          { impl: inner === undefined ? i : inner });
      }
      if (own(BACKEND_OPS, name)) return add("sdpa", BACKEND_OPS[name], "fwd", [i], name, "op", { impl: i });
      const node = removePrefix(name, EVALUATE);
      const m = NODE.exec(node);
      if (m && own(NODE_BACKENDS, m[1] + m[2])) {
        const inner = tree.descendants(i).find((d) => own(BACKWARD_OPS, cpu[d].name));
        return add("sdpa", NODE_BACKENDS[m[1] + m[2]], "bwd", [i], node, "op",
          { impl: inner === undefined ? i : inner });
      }
      if (own(BACKWARD_OPS, name)) return add("sdpa", BACKWARD_OPS[name], "bwd", [i], name, "op", { impl: i });
      if (isFlex(name)) {
        const k = INDUCTOR_KIND.exec(name);
        if (k && k[1] !== "tem") return null;  // a helper kernel of the call, not the call
        const direction = name.toLowerCase().includes("backward") || inBackward(i) ? "bwd" : "fwd";
        const helpers = direction === "bwd" ? flexHelpers(i) : [];
        return add("flex", "flex", direction, [...helpers, i], name, "op", { impl: i });
      }
      return null;
    }

    function flexHelpers(i) {
      const out = [];
      let p = previous(i);
      while (p !== null && out.length < 2) {
        const k = INDUCTOR_KIND.exec(cpu[p].name);
        if (!(k && k[1] !== "tem" && cpu[p].name.includes("flex_attention_backward"))) break;
        out.unshift(p);
        p = previous(p);
      }
      return out;
    }

    function siblings(i, n) {
      const out = [];
      let s = tree.nextSibling(i);
      while (s !== null && out.length < n) {
        if (cpu[s].kind === "op") out.push(s);
        s = tree.nextSibling(s);
      }
      return out;
    }

    function pattern(i) {
      const ahead = siblings(i, 2 * PATTERN_GAP + 2);
      const soft = ahead.slice(0, PATTERN_GAP + 1).findIndex((s) => isSoftmax(cpu[s].name));
      if (soft < 0 || ahead.slice(0, soft).some((s) => isMatmul(cpu[s].name))) return null;
      const rest = ahead.slice(soft + 1, soft + 2 + PATTERN_GAP);
      const second = rest.findIndex((s) => isMatmul(cpu[s].name));
      if (second < 0) return null;
      const s = ahead[soft];
      const m2 = rest[second];
      if (!shapesFit(cpu[i], cpu[s], cpu[m2])) return null;
      const roots = [i, ...ahead.slice(0, soft + 1), ...rest.slice(0, second + 1)];
      return add("handwritten", "unfused", inBackward(i) ? "bwd" : "fwd", roots, cpu[s].name, "pattern",
        { softmax: s, first: i, second: m2 });
    }

    function previous(i) {
      const order = tree.thread(i);
      let p = tree.pos[i] - 1;
      while (p >= 0) {
        const j = order[p];
        if (tree.parent[j] === tree.parent[i]) return j;
        if (tree.pos[j] < tree.pos[i] && tree.stop[j] > tree.pos[i]) return null;
        p -= 1;
      }
      return null;
    }

    function compiledBackward(i) {
      const before = [];
      let s = i;
      for (let k = 0; k < PATTERN_GAP; k++) {
        const p = previous(s);
        if (p === null) break;
        s = p;
        if (isMatmul(cpu[p].name)) before.unshift(p);
      }
      const after = siblings(i, PATTERN_GAP).filter((x) => isMatmul(cpu[x].name));
      if (!before.length || !after.length) return null;
      const roots = [...before.slice(-2), i, ...after.slice(0, 2)].sort((a, b) => cpu[a].ts - cpu[b].ts);
      return add("handwritten", "unfused", "bwd", roots, cpu[i].name, "pattern", { softmax: i });
    }

    function scan() {
      for (const order of tree.order.values()) {
        let p = 0;
        let claimedUntil = 0;
        while (p < order.length) {
          const i = order[p];
          const e = cpu[i];
          if (e.kind !== "op" || p < claimedUntil) {
            p += 1;
            continue;
          }
          let call = named(i);
          if (call === null && isMatmul(e.name)) call = pattern(i);
          if (call === null && isSoftmaxBackward(e.name)) call = compiledBackward(i);
          if (call !== null) {
            claimedUntil = p = Math.max(...call.roots.map((r) => tree.stop[r]));
            continue;
          }
          p += 1;
        }
      }
    }

    function linkBackward() {
      const owner = new Map();
      calls.forEach((c, k) => {
        if (c.direction !== "fwd" || c.compiled) return;
        for (const i of tree.under(c.roots)) {
          const key = key2(cpu[i].pid, cpu[i].sequence);
          if (cpu[i].sequence !== null && !cpu[i].backward && !owner.has(key)) owner.set(key, k);
        }
      });
      if (!owner.size) return;
      const paired = new Set();
      for (const c of calls) {
        if (c.direction === "bwd" && c.evidence === "op") {
          const e = cpu[c.roots[0]];
          const got = e.sequence !== null ? owner.get(key2(e.pid, e.sequence)) : undefined;
          c.forward = got === undefined ? null : got;
          if (c.forward !== null) paired.add(c.forward);
        }
      }
      const nodes = new Map();
      const taken = new Set(calls.flatMap((c) => c.roots));
      cpu.forEach((e, i) => {
        if (e.sequence !== null && e.name.startsWith(EVALUATE) && !taken.has(i)) {
          const k = owner.get(key2(e.pid, e.sequence));
          if (k !== undefined && !paired.has(k)) {
            if (!nodes.has(k)) nodes.set(k, []);
            nodes.get(k).push(i);
          }
        }
      });
      for (const k of Array.from(nodes.keys()).sort((a, b) => a - b)) {
        const fwd = calls[k];
        const roots = nodes.get(k).sort((a, b) => cpu[a].ts - cpu[b].ts || a - b);
        calls.push({ kind: fwd.kind, backend: fwd.backend, direction: "bwd", compiled: false, roots: roots,
          op: fwd.op, evidence: "sequence", parts: {}, forward: k, module: null, projections: [] });
      }
    }

    function linkCompiled() {
      const region = (c, name) => {
        const a = tree.ancestors(c.roots[0]).find((x) => removePrefix(cpu[x].name, EVALUATE) === name);
        return a === undefined ? null : a;
      };
      const forward = new Map();
      calls.forEach((c, k) => {
        const r = c.compiled && c.direction === "fwd" ? region(c, "CompiledFunction") : null;
        if (r !== null && cpu[r].sequence !== null) {
          const key = key2(cpu[r].pid, cpu[r].sequence);
          if (!forward.has(key)) forward.set(key, []);
          forward.get(key).push(k);
        }
      });
      const backward = new Map();
      calls.forEach((c, k) => {
        const r = c.compiled && c.direction === "bwd" ? region(c, "CompiledFunctionBackward") : null;
        if (r !== null && c.forward === null) {
          const top = cpu[tree.parent[r]] && cpu[tree.parent[r]].name.startsWith(EVALUATE) ? tree.parent[r] : r;
          const seq = cpu[r].sequence !== null ? cpu[r].sequence : cpu[top].sequence;
          if (seq !== null) {
            const key = key2(cpu[r].pid, seq);
            if (!backward.has(key)) backward.set(key, []);
            backward.get(key).push(k);
          }
        }
      });
      for (const [key, bwd] of backward) {
        const fwd = forward.get(key) || [];
        if (fwd.length === bwd.length) bwd.forEach((b, n) => { calls[b].forward = fwd[fwd.length - 1 - n]; });
      }
    }

    return { calls: calls, scan: scan, linkBackward: linkBackward, linkCompiled: linkCompiled };
  }

  const isIntList = (d) => Array.isArray(d) && d.every((x) => Number.isInteger(x));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  function last2(dims, k) {
    if (!dims || dims.length <= k || !Array.isArray(dims[k]) || dims[k].length < 2) return null;
    const d = dims[k];
    const tail = d.slice(-2);
    return tail.every((x) => Number.isInteger(x)) ? tail : null;
  }

  function operands(e) {
    const first = e.name === "aten::baddbmm" ? 1 : 0;
    return [last2(e.dims, first), last2(e.dims, first + 1)];
  }

  function shapesFit(m1, soft, m2) {
    if (m1.name === "aten::einsum" || m2.name === "aten::einsum") return true;
    const [a, b] = operands(m1);
    const scores = a && b && a[1] === b[0] ? [a[0], b[1]] : null;
    if (a && b && a[1] !== b[0]) return false;
    const s = last2(soft.dims, 0);
    if (soft.concrete && soft.concrete.length > 1 && soft.dims && truthy(soft.dims[0])) {
      const dim = soft.concrete[1];
      if (!["-1", String(soft.dims[0].length - 1), "", null].includes(dim)) return false;
    }
    const [p, v] = operands(m2);
    if (scores && s && !same(scores, s)) return false;
    const probs = s || scores;
    if (probs && p && !same(p, probs)) return false;
    return !(p && v && p[1] !== v[0]);
  }

  function findCalls(tree, decode) {
    const f = makeFinder(tree, decode);
    f.scan();
    f.linkBackward();
    f.linkCompiled();
    const cpu = tree.trace.cpu;
    const order = f.calls.map((c, k) => k).sort((a, b) => cpu[f.calls[a].roots[0]].ts -
      cpu[f.calls[b].roots[0]].ts || a - b);
    const renumber = new Map(order.map((old, n) => [old, n]));
    const calls = order.map((k) => f.calls[k]);
    for (const c of calls) if (c.forward !== null) c.forward = renumber.get(c.forward);
    modules(tree, calls);
    return calls;
  }

  const ENCODER_OP = "aten::_transformer_encoder_layer_fwd";
  const PROJECTION_OPS = new Set(["aten::linear", "aten::addmm", "aten::_addmm_activation", "aten::mm", "aten::matmul"]);
  const IN_PROJECTION_LOOKBACK = 24;
  const OUT_PROJECTION_LOOKAHEAD = 6;

  function inProjection(tree, i) {
    const cpu = tree.trace.cpu;
    const before = previousOps(tree, i, IN_PROJECTION_LOOKBACK, new Set());
    const names = before.map((j) => cpu[j].name);
    for (let k = 0; k < names.length - 1; k++) {
      if (names[k] === "aten::unflatten" && names[k + 1] === "aten::linear") {
        const linears = [before[k + 1]];
        if (k + 2 < names.length && names[k + 2] === "aten::linear") linears.push(before[k + 2]);
        return linears;
      }
      if (names[k] === "aten::linear" && names[k + 1] === "aten::linear" && names[k + 2] === "aten::linear" &&
          names[k + 3] === "aten::chunk") return [before[k + 2], before[k + 1], before[k]];
    }
    return [];
  }

  function outProjection(tree, last) {
    const cpu = tree.trace.cpu;
    let s = tree.nextSibling(last);
    for (let k = 0; k < OUT_PROJECTION_LOOKAHEAD; k++) {
      if (s === null || MATMUL_OPS.has(cpu[s].name) || cpu[s].name === SDPA_OP) return [];
      if (cpu[s].name === "aten::linear") return [s];
      s = tree.nextSibling(s);
    }
    return [];
  }

  function modules(tree, calls) {
    const cpu = tree.trace.cpu;
    for (const c of calls) {
      if (c.direction !== "fwd") continue;
      if (c.kind === "mha") {
        const encoder = tree.ancestors(c.roots[0]).some((a) => cpu[a].name === ENCODER_OP);
        c.module = encoder ? "TransformerEncoderLayer" : "MultiheadAttention";
        c.projections = tree.descendants(c.roots[0])
          .filter((d) => tree.parent[d] === c.roots[0] && PROJECTION_OPS.has(cpu[d].name));
      } else if ((c.kind === "handwritten" || c.kind === "sdpa") && !c.compiled) {
        const found = inProjection(tree, c.roots[0]);
        if (found.length) {
          let last = c.roots[0];
          for (const r of c.roots) if (cpu[r].ts > cpu[last].ts) last = r;
          c.module = "MultiheadAttention";
          c.projections = [...found, ...outProjection(tree, last)];
        }
      }
    }
    for (const c of calls) if (c.direction === "bwd" && c.forward !== null) c.module = calls[c.forward].module;
  }

  // --- analysis/attnflags.py ------------------------------------------------------------------------------------

  const DTYPES = { "c10::BFloat16": "bf16", "c10::Half": "fp16", float: "fp32", double: "fp64",
    "c10::Float8_e4m3fn": "fp8e4m3", "c10::Float8_e5m2": "fp8e5m2" };
  const SCALAR_TYPES = { 5: "fp16", 6: "fp32", 7: "fp64", 15: "bf16" };
  const SIXTEEN_BIT = ["bf16", "fp16"];
  const COPY_OPS = new Set(["aten::copy_", "aten::clone", "aten::contiguous"]);
  const CONVERSIONS = ["aten::to", "aten::_to_copy", "aten::type_as", "aten::contiguous", "aten::clone",
    "aten::copy_", "ToCopyBackward", "CloneBackward", "CopyBackwards"];
  const ARGS = {
    [SDPA_OP]: [3, 4, 5, 7],
    "aten::_scaled_dot_product_flash_attention": [null, 3, 4, null],
    "aten::_scaled_dot_product_flash_attention_for_cpu": [5, 3, 4, null],
    "aten::_scaled_dot_product_efficient_attention": [3, 5, 6, null],
    "aten::_scaled_dot_product_cudnn_attention": [3, 5, 6, null],
    "aten::_scaled_dot_product_attention_math": [3, 4, 5, 8],
    "aten::_native_multi_head_attention": [9, null, null, null],
  };
  const EXPAND_LOOKBACK = 24;

  function dtypeName(s) {
    if (typeof s !== "string" || !s || s === "Scalar") return null;
    return own(DTYPES, s) ? DTYPES[s] : s;
  }
  function dimsOf(e, k) {
    const d = e.dims && e.dims.length > k ? e.dims[k] : null;
    return isIntList(d) ? d : null;
  }
  const shapeOf = (e, k) => {
    const d = dimsOf(e, k);
    return d && d.length ? d : null;
  };
  function concreteOf(e, k) {
    if (k === null || !e.concrete || e.concrete.length <= k || typeof e.concrete[k] !== "string") return null;
    return e.concrete[k] || null;
  }
  const boolOf = (t) => (t ? ({ True: true, False: false, 1: true, 0: false }[t] ?? null) : null);
  function floatText(t) {
    if (!t) return null;
    const v = Number(t.trim());
    return t.trim() && !Number.isNaN(v) ? v : null;
  }
  function strideOf(e, k) {
    const d = e.strides && e.strides.length > k ? e.strides[k] : null;
    return isIntList(d) && d.length ? d : null;
  }

  function inputs(tree, calls, k) {
    const call = calls[k];
    const cpu = tree.trace.cpu;
    if (call.direction === "bwd" && call.forward !== null) return inputs(tree, calls, call.forward);
    const none = { query: null, key: null, value: null, dtype: null, mask: null, causal: null, dropout: null,
      gqa: null, op: null, strides: null };
    if (call.kind === "handwritten" && "first" in call.parts) {
      const m1 = cpu[call.parts.first];
      const m2 = cpu[call.parts.second];
      const first = m1.name === "aten::baddbmm" ? 1 : 0;
      const types = m1.types || [];
      return Object.assign(none, { query: shapeOf(m1, first), key: shapeOf(m1, first + 1), value: shapeOf(m2, 1),
        dtype: types.length > first ? dtypeName(types[first]) : null, op: m1.name });
    }
    const r = cpu[call.kind !== "flex" || !("impl" in call.parts) ? call.roots[0] : call.parts.impl];
    const e = r.dims && r.dims.length ? r : cpu["impl" in call.parts ? call.parts.impl : call.roots[0]];
    if (!e.dims || !e.dims.length) return Object.assign(none, { op: e.name });
    if (call.direction === "bwd" && call.kind !== "flex") {
      return Object.assign(none, { query: shapeOf(e, 1), key: shapeOf(e, 2), value: shapeOf(e, 3),
        dtype: dtypeName((e.types || [null, null])[1]), op: e.name });
    }
    const [mask, dropout, causal, gqa] = ARGS[e.name] || [null, null, null, null];
    const masked = mask !== null && Boolean(dimsOf(e, mask) && dimsOf(e, mask).length);
    return Object.assign(none, {
      query: shapeOf(e, 0), key: shapeOf(e, 1), value: shapeOf(e, 2),
      dtype: e.types && e.types.length ? dtypeName(e.types[0]) : null,
      mask: mask === null || e.dims.length <= mask ? null : masked,
      causal: boolOf(concreteOf(e, causal)), dropout: floatText(concreteOf(e, dropout)),
      gqa: boolOf(concreteOf(e, gqa)), op: e.name,
      strides: e.strides ? [0, 1, 2].map((s) => strideOf(e, s)) : null,
    });
  }

  function pathOf(tree, i, top) {
    const cpu = tree.trace.cpu;
    const names = [cpu[i].name];
    let p = tree.parent[i];
    while (p >= 0 && p !== tree.parent[top]) {
      const name = removePrefix(cpu[p].name, EVALUATE);
      if (name !== names[names.length - 1]) names.push(name);
      p = tree.parent[p];
    }
    return names.slice(-4).reverse().join(" > ");
  }

  const gpuUs = (tree, ops) => sum(tree.launched(tree.under(ops)).map((j) => tree.trace.gpu[j].dur));

  function hiddenCopies(tree, call) {
    const cpu = tree.trace.cpu;
    const found = [];
    const paths = [];
    for (const r of call.roots) {
      let skipUntil = -1;
      for (const i of tree.under([r])) {
        const d0 = dimsOf(cpu[i], 0);
        if (tree.pos[i] < skipUntil || !COPY_OPS.has(cpu[i].name) || (d0 !== null && d0.length === 0)) continue;
        const chain = [];
        let p = tree.parent[i];
        if (i !== r) {
          chain.push(removePrefix(cpu[r].name, EVALUATE));
          while (p >= 0 && p !== r) {
            chain.push(removePrefix(cpu[p].name, EVALUATE));
            p = tree.parent[p];
          }
        }
        if (chain.some((n) => !startsWithAny(n, CONVERSIONS))) {
          found.push(i);
          paths.push(pathOf(tree, i, r));
          skipUntil = tree.stop[i];
        }
      }
    }
    const gpu = tree.launched(tree.under(call.roots)).filter((j) => tree.trace.gpu[j].kind === "memcpy");
    const copied = new Set(tree.launched(tree.under(found)));
    const memcpy = gpu.filter((j) => !copied.has(j));
    if (!found.length && !memcpy.length) return null;
    const all = new Set([...copied, ...memcpy]);
    const time = sum(Array.from(all).map((j) => tree.trace.gpu[j].dur));
    const names = [...new Set(paths), ...memcpy.slice(0, 1).map((j) => tree.trace.gpu[j].name)];
    return { code: "hidden_copy", ops: names.slice(0, 3), count: found.length + memcpy.length,
      gpu_us: tree.trace.gpu.length ? r3(time) : null };
  }

  function fp32Softmax(tree, call, model, decode) {
    const cpu = tree.trace.cpu;
    let s = "softmax" in call.parts ? call.parts.softmax : tree.under(call.roots).find((i) => SOFTMAX_OPS.has(cpu[i].name));
    if (s === undefined || call.direction !== "fwd") return null;
    const e = cpu[s];
    if (model === null) {
      const m = tree.under(call.roots).find((i) => MATMUL_OPS.has(cpu[i].name) && cpu[i].types && cpu[i].types.length);
      model = m === undefined ? null : dtypeName(cpu[m].types[0]);
    }
    const asked = e.name === "aten::softmax" ? SCALAR_TYPES[concreteOf(e, 2) || ""] || null : null;
    const given = e.types && e.types.length ? dtypeName(e.types[0]) : null;
    let why = null;
    if (SIXTEEN_BIT.includes(model) && (given === "fp32" || asked === "fp32")) {
      why = e.name + "(" + (given || "?") + " -> " + (asked || given) + ")";
    }
    for (const j of tree.launched(tree.under([s]))) {
      const f = decode(tree.trace.gpu[j].name).fields;
      if (why === null && SIXTEEN_BIT.includes(f.input) && f.output === "fp32") {
        why = e.name + ": " + f.input + " in, fp32 out";
      } else if (why === null && SIXTEEN_BIT.includes(model) && f.input === "fp32") {
        why = e.name + ": fp32 in (" + model + " model)";
      }
    }
    return why ? { code: "fp32_softmax", ops: [why], count: 1, gpu_us: null } : null;
  }

  function previousOps(tree, i, n, stop) {
    const cpu = tree.trace.cpu;
    const order = tree.thread(i);
    const out = [];
    let p = tree.pos[i] - 1;
    while (p >= 0 && out.length < n) {
      const j = order[p];
      if (tree.pos[j] < tree.pos[i] && tree.pos[i] < tree.stop[j]) break;
      if (tree.parent[j] === tree.parent[i]) {
        if (stop.has(j)) break;
        if (cpu[j].kind === "op") out.push(j);
      }
      p -= 1;
    }
    return out;
  }

  function kvExpand(tree, call, roots) {
    const cpu = tree.trace.cpu;
    const before = previousOps(tree, call.roots[0], EXPAND_LOOKBACK, roots);
    const found = [];
    before.forEach((j, n) => {
      const name = cpu[j].name;
      if (name === "aten::repeat_interleave" && !["1", "[1]"].includes(concreteOf(cpu[j], 1) || "2")) found.push(j);
      else if (name === "aten::expand") {
        const reshape = before.slice(0, n).reverse()
          .find((x) => cpu[x].name === "aten::reshape" || cpu[x].name === "aten::contiguous");
        const copies = reshape !== undefined && tree.descendants(reshape)
          .some((d) => cpu[d].name === "aten::clone" || cpu[d].name === "aten::copy_");
        const d = dimsOf(cpu[j], 0);
        if (copies && (d === null || d.slice(1).includes(1))) found.push(j, reshape);
      }
    });
    if (!found.length) return null;
    const names = [...new Set(found.map((j) => cpu[j].name))];
    return { code: "kv_expand", ops: names, count: found.filter((j) => cpu[j].name !== "aten::expand").length,
      gpu_us: tree.trace.gpu.length ? r3(gpuUs(tree, found)) : null };
  }

  function flags(tree, calls, k, given, roots, decode) {
    const call = calls[k];
    const out = [
      hiddenCopies(tree, call),
      fp32Softmax(tree, call, given.dtype, decode),
      (call.kind === "sdpa" || call.kind === "mha") && call.backend === "math"
        ? { code: "math_backend", ops: [call.op], count: 1, gpu_us: null } : null,
      call.direction === "fwd" ? kvExpand(tree, call, roots) : null,
    ];
    return out.filter((f) => f !== null);
  }

  // --- analysis/explain.py and explainjson.py -------------------------------------------------------------------

  const LAUNCHES = /Launch|Memcpy|Memset/;

  function threadName(tree, e) {
    const name = tree.trace.threads.get(key2(e.pid, e.tid)) || "";
    const m = /\((\w+)\)\s*$/.exec(name);
    return m ? m[1] : name || String(e.tid);
  }

  function onePlace(trace) {
    const pids = new Set(trace.cpu.filter((e) => (e.kind === "annotation" || e.kind === "op") &&
      e.name.startsWith("ProfilerStep#")).map((e) => JSON.stringify(e.pid)));
    if (pids.size > 1) throw new Unreadable("ranks", { n: pids.size });
    const devices = new Set(trace.gpu.filter((g) => g.kind === "kernel").map((g) => JSON.stringify(g.device)));
    if (devices.size > 1) throw new Unreadable("gpus", { n: devices.size });
  }

  /** The reading of a trace document (parsed JSON), as `attnprof explain --json` has it (see the top). */
  function explain(doc, name, decode, maxEvents) {
    const trace = read(doc, name, maxEvents);
    onePlace(trace);
    const tree = new Tree(trace);
    const props = trace.deviceProperties.length ? trace.deviceProperties[0] : {};
    const found = findCalls(tree, decode);
    const inStep = new Set(tree.steps.flatMap((s) => s.gpu));
    const roots = new Set(found.flatMap((c) => c.roots));
    const perStepGpu = tree.steps.map(() => 0);
    const perStepCalls = tree.steps.map(() => ({ fwd: 0, bwd: 0 }));
    const backwardProjections = projectionNodes(tree, found);
    const calls = found.map((c, k) => {
      const first = trace.cpu[c.roots[0]];
      const step = tree.main && first.pid === tree.main[0] ? tree.stepOf(first.ts) : null;
      const projected = c.projections.length ? c.projections : backwardProjections.get(k) || [];
      const proj = new Set(projected.length ? tree.launched(tree.under(projected)) : []);
      const gpu = tree.launched(tree.under(c.roots)).filter((j) => !proj.has(j));
      const kernels = new Map();
      const kernelUs = {}; // name -> [launches, µs] of the call's kernels in the steps (what attnprof-diff.js times)
      for (const j of gpu) {
        if (!inStep.has(j)) continue;
        const g = trace.gpu[j];
        kernels.set(g.name, (kernels.get(g.name) || 0) + 1);
        if (!own(kernelUs, g.name)) kernelUs[g.name] = [0, 0];
        kernelUs[g.name][0] += 1;
        kernelUs[g.name][1] += g.dur;
      }
      for (const name of Object.keys(kernelUs)) kernelUs[name][1] = r3(kernelUs[name][1]);
      const gpuTotal = r3(sum(gpu.map((j) => trace.gpu[j].dur)));
      const end = Math.max(...c.roots.map((r) => trace.cpu[r].ts + trace.cpu[r].dur));
      const cpuUs = c.evidence === "sequence" ? sum(c.roots.map((r) => trace.cpu[r].dur)) : end - first.ts;
      const given = inputs(tree, found, k);
      const t0 = step !== null ? tree.steps[step].start : first.ts;
      if (step !== null) {
        perStepGpu[step] += gpuTotal;
        perStepCalls[step][c.direction] += 1;
      }
      return { index: k, step: step, kind: c.kind, backend: c.backend, direction: c.direction,
        compiled: c.compiled, op: c.op, evidence: c.evidence, thread: threadName(tree, first),
        start_us: r3(first.ts - t0), cpu_us: r3(cpuUs), gpu_us: gpuTotal, kernels: Array.from(kernels.entries()),
        kernel_us: kernelUs,
        inputs: given.query === null ? null : given, flags: flags(tree, found, k, given, roots, decode),
        forward: c.forward, module: c.module, phase: null,
        projection_us: projected.length && trace.gpu.length ? r3(sum(Array.from(proj).map((j) => trace.gpu[j].dur)))
          : null };
    });
    const phase = phases(calls);
    calls.forEach((c, k) => { c.phase = phase[k]; });
    const steps = tree.steps.map((s, k) => {
      const gpu = s.gpu.length > 0;
      const gaps = s.gaps.map((g) => g[1]);
      const att = r3(perStepGpu[k]);
      return { index: s.index, name: s.name, wall_us: s.wall_us, span_us: r3(s.span_us),
        gpu_busy_us: gpu ? r3(s.busy_us) : null, gpu_time_us: gpu ? r3(s.gpu_us) : null,
        gpu_busy_share: r4(s.busy_share), idle_us: gpu ? r3(s.idle_us) : null, gaps: gpu ? gaps.length : null,
        largest_gap_us: gpu ? r3(gaps.reduce((a, b) => Math.max(a, b), 0)) : null, waiting_us: gpu ? r3(s.waiting_us) : null,
        launch_bound: s.launch_bound, attention_gpu_us: gpu ? att : null,
        attention_share: gpu && s.gpu_us > 0 ? r4(att / s.gpu_us) : null, calls: perStepCalls[k],
        activities: s.gpu.length, generation: passes(calls.filter((c) => c.step === k)) };
    });
    const n = steps.length;
    const inside = calls.filter((c) => c.step !== null);
    const gpuAll = sum(tree.steps.map((s) => s.gpu_us));
    const attAll = sum(perStepGpu.map(r3));
    const summary = {
      steps: n,
      calls: { fwd: n ? r4(inside.filter((c) => c.direction === "fwd").length / n) : 0,
        bwd: n ? r4(inside.filter((c) => c.direction === "bwd").length / n) : 0 },
      outside_steps: calls.length - inside.length,
      attention_share: gpuAll > 0 ? r4(attAll / gpuAll) : null,
      launch_bound_steps: tree.steps.filter((s) => s.launch_bound).map((s) => s.index),
    };
    const flagSummary = {};
    for (const code of FLAGS) {
      const hit = [];
      for (const c of calls) for (const f of c.flags) if (f.code === code) hit.push([c, f]);
      if (hit.length) {
        flagSummary[code] = { calls: hit.length,
          steps: Array.from(new Set(hit.map(([c]) => c.step).filter((s) => s !== null))).sort((a, b) => a - b),
          gpu_us: hit.some(([, f]) => f.gpu_us !== null)
            ? r3(sum(hit.filter(([, f]) => f.gpu_us !== null).map(([, f]) => f.gpu_us))) : null };
      }
    }
    const info = isDict(trace.meta.distributedInfo) ? trace.meta.distributedInfo : {};
    return {
      schema: "attnprof.explain",
      trace: { name: name, events: trace.events, cpu_events: trace.cpu.length, gpu_events: trace.gpu.length,
        layout: trace.layout, gpus: Array.from(new Set(trace.gpu.filter((g) => g.kind === "kernel")
          .map((g) => g.device))).sort((a, b) => String(a).localeCompare(String(b))),
        device: props.name === undefined ? null : props.name,
        compute_capability: "computeMajor" in props ? props.computeMajor + "." + props.computeMinor : null,
        shapes: trace.shapes, rank: info.rank === undefined ? null : info.rank,
        world_size: info.world_size === undefined ? null : info.world_size },
      notes: notes(tree, calls, props),
      summary: summary,
      steps: steps,
      calls: calls,
      groups: groups(calls, n),
      flags: flagSummary,
    };
  }

  function notes(tree, calls, props) {
    const t = tree.trace;
    const out = [];
    const launches = t.cpu.filter((e) => (e.kind === "runtime" || e.kind === "driver") && LAUNCHES.test(e.name)).length;
    if (!t.gpu.length) out.push(launches ? { code: "no_gpu_events", launches: launches } : { code: "cpu_only" });
    if (!tree.steps.some((s) => s.name)) out.push({ code: "no_steps" });
    if (!t.shapes) out.push({ code: "no_shapes" });
    if (t.gpu.length && !Object.keys(props).length) out.push({ code: "no_device_properties" });
    if (!calls.length) out.push({ code: "no_calls" });
    let unlinked = 0;
    for (const s of tree.steps) for (const j of s.gpu) if (!tree.launchOf.has(t.gpu[j].correlation)) unlinked += 1;
    if (unlinked) out.push({ code: "unlinked", activities: unlinked });
    const info = t.meta.distributedInfo;
    if (isDict(info) && ![1, null, undefined].includes(info.world_size)) {
      out.push({ code: "rank", rank: info.rank === undefined ? null : info.rank, world_size: info.world_size });
    }
    return out;
  }

  function groups(calls, nSteps) {
    const by = new Map();
    for (const c of calls) {
      const i = c.inputs || {};
      const noLength = (s) => (!s || s.length < 2 ? null : [...s.slice(0, -2), null, s[s.length - 1]]);
      const decoding = c.phase === "decode";
      const key = JSON.stringify([c.kind, c.backend, c.direction, c.compiled, c.op, c.module, c.phase,
        i.query || null, decoding ? noLength(i.key) : i.key || null, decoding ? noLength(i.value) : i.value || null,
        i.dtype || null, i.mask === undefined ? null : i.mask, i.causal === undefined ? null : i.causal]);
      if (!by.has(key)) by.set(key, []);
      by.get(key).push(c);
    }
    return Array.from(by.values()).map((members) => {
      const kernels = new Map();
      for (const c of members) for (const [k, n] of c.kernels) kernels.set(k, (kernels.get(k) || 0) + n);
      const flagCount = {};
      for (const code of FLAGS) {
        const n = members.filter((c) => c.flags.some((f) => f.code === code)).length;
        if (n) flagCount[code] = n;
      }
      const first = members[0];
      const projected = members.filter((c) => c.projection_us !== null).map((c) => c.projection_us);
      const kv = members.filter((c) => c.phase === "decode").map((c) => lengths(c.kind, c.inputs))
        .filter((l) => l !== null).map((l) => l[1]);
      return { module: first.module, phase: first.phase,
        projection_us: projected.length ? r3(fmean(projected)) : null,
        kv: kv.length ? [Math.min(...kv), Math.max(...kv)] : null,
        kind: first.kind, backend: first.backend, direction: first.direction, compiled: first.compiled,
        op: first.op, inputs: first.inputs, calls: members.length, per_step: r4(members.length / Math.max(nSteps, 1)),
        cpu_us: r3(fmean(members.map((c) => c.cpu_us))),
        gpu_us: r3(fmean(members.map((c) => c.gpu_us))),
        kernels: Array.from(kernels.entries()).map(([k, n]) => [k, r4(n / members.length)]),
        flags: flagCount, first: first.index };
    });
  }

  function projectionNodes(tree, found) {
    const cpu = tree.trace.cpu;
    const wanted = new Map();
    found.forEach((c, k) => {
      if (c.direction === "bwd" && c.forward !== null && found[c.forward].projections.length) {
        for (const i of tree.under(found[c.forward].projections)) {
          const key = key2(cpu[i].pid, cpu[i].sequence);
          if (cpu[i].sequence !== null && !cpu[i].backward && !wanted.has(key)) wanted.set(key, k);
        }
      }
    });
    const out = new Map();
    if (wanted.size) {
      cpu.forEach((e, i) => {
        if (e.sequence !== null && e.backward && e.name.startsWith(EVALUATE)) {
          const k = wanted.get(key2(e.pid, e.sequence));
          if (k !== undefined) {
            if (!out.has(k)) out.set(k, []);
            out.get(k).push(i);
          }
        }
      });
    }
    return out;
  }

  // --- analysis/generation.py -----------------------------------------------------------------------------------

  function lengths(kind, inputs) {
    if (!inputs) return null;
    const q = inputs.query, k = inputs.key;
    if (!q || !k || q.length < 2 || k.length < 2) return null;
    return [q[q.length - 2], kind === "handwritten" ? k[k.length - 1] : k[k.length - 2]];
  }

  function phases(calls) {
    if (calls.some((c) => c.direction === "bwd")) return calls.map(() => null);
    const found = calls.map((c) => (c.direction === "fwd" ? lengths(c.kind, c.inputs) : null));
    if (!found.some((n) => n !== null && n[0] === 1 && n[1] > 1)) return calls.map(() => null);
    return found.map((n) => (n === null ? null : n[0] === 1 ? "decode" : "prefill"));
  }

  function passes(calls) {
    const runs = [];
    for (const c of calls) {
      if (c.phase === null) continue;
      const n = lengths(c.kind, c.inputs);
      const last = runs[runs.length - 1];
      if (last && last[0] === c.phase && last[1][0] === n[0] && last[1][1] === n[1]) last[2] += 1;
      else runs.push([c.phase, n, 1]);
    }
    if (!runs.length) return null;
    const layers = runs[0][2];
    const count = (p) => sum(runs.filter((r) => r[0] === p).map((r) => r[2]));
    const kv = runs.filter((r) => r[0] === "decode").map((r) => r[1][1]);
    return { prefill: Math.ceil(count("prefill") / layers), decode: Math.ceil(count("decode") / layers),
      kv: kv.length ? [Math.min(...kv), Math.max(...kv)] : null, layers: layers };
  }

  // --- the file, in the browser ---------------------------------------------------------------------------------

  /** The text of a File or Blob (gunzipped when it starts with gzip's magic), at most maxBytes of it. */
  async function fileText(file, maxBytes) {
    maxBytes = maxBytes || MAX_BYTES;
    const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
    const gz = head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
    if (!gz) {
      if (file.size > maxBytes) throw new Unreadable("too_large", { mb: Math.round(maxBytes / 1048576) });
      return new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    }
    if (typeof DecompressionStream === "undefined") throw new Unreadable("no_gzip", {});
    const reader = file.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
    const parts = [];
    let size = 0;
    for (;;) {
      let got;
      try {
        got = await reader.read();
      } catch (err) {
        throw new Unreadable("bad_gzip", {});
      }
      if (got.done) break;
      size += got.value.length;
      if (size > maxBytes) {
        reader.cancel();
        throw new Unreadable("too_large", { mb: Math.round(maxBytes / 1048576) });
      }
      parts.push(got.value);
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  }

  /** The reading of a dropped or chosen file (see explain), or an Unreadable naming what is wrong with it. */
  async function explainFile(file, decode, maxBytes) {
    let text;
    try {
      text = await fileText(file, maxBytes);
    } catch (err) {
      if (err instanceof Unreadable) throw err;
      throw new Unreadable("not_text", {});
    }
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new Unreadable("not_json", { error: String(err.message || err).slice(0, 120) });
    }
    text = null;
    return explain(doc, file.name, decode);
  }

  // --- the page: a drop zone and the report, in the words the page carries -------------------------------------

  // words/fmt.py's number (3 significant digits, never scientific), ratio, percent, count and dims.
  function number(v, digits) {
    digits = digits || 3;
    if (v === 0 || !Number.isFinite(v)) return String(v);
    const magnitude = Math.floor(Math.log10(Math.abs(v)));
    return v.toFixed(Math.max(0, digits - 1 - magnitude));
  }
  const ratio = (v) => (Math.abs(v) >= 1000 ? v.toFixed(0) : String(Number(v.toPrecision(3))));
  const percent = (v) => ratio(v) + "\u00a0%";
  const count = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  const dims = (d) => (d && d.length ? d.join("\u00d7") : "");

  function makeReport(words, lang, decode) {
    const word = (key, fields) => {
      const t = own(words, key) ? words[key] : key;
      return t.replace(/\{(\w+)\}/g, (m, k) => (fields && own(fields, k) ? String(fields[k]) : m));
    };
    const na = () => word("report.na");
    const pct = (share) => (share === null || share === undefined ? na() : percent(100 * share));
    const el = (tag, attrs, children) => {
      const e = document.createElement(tag);
      for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
      for (const c of children || []) e.append(c);
      return e;
    };
    // A report table: the first column is its key (it stays in view when the table scrolls sideways); the cells of
    // the columns in `wrap` (words, shapes, names) wrap, the others keep to one line.
    function table(cls, headers, rows, wrap) {
      const classes = (k, c) => [k === 0 ? "attnprof-key" : "", /^-?[0-9]/.test(c) ? "num" : "",
        wrap && wrap.includes(k) ? "wrap" : ""].filter(Boolean).join(" ");
      const attrs = (k, c) => (classes(k, c) ? { class: classes(k, c) } : {});
      const head = el("tr", {}, headers.map((h, k) => el("th", { scope: "col", ...(k === 0 ?
        { class: "attnprof-key" } : {}) }, [h])));
      const body = rows.map((r) => el("tr", {}, r.map((c, k) => el("td", attrs(k, c), [c]))));
      return el("div", { class: "attnprof-dropin-table" },
        [el("table", { class: cls }, [el("thead", {}, [head]), el("tbody", {}, body)])]);
    }
    function inputsText(i, kv) {
      if (!i) return word("explain.inputs.none");
      const cache = (s) => (!kv || kv[0] === kv[1] || !s || s.length < 2 ? s
        : [...s.slice(0, -2), kv[0] + "\u2026" + kv[1], s[s.length - 1]]);
      const shapes = [["q", i.query], ["k", cache(i.key)], ["v", cache(i.value)]].filter(([, s]) => s)
        .map(([n, s]) => n + " " + dims(s)).join(", ");
      const extra = [];
      if (i.causal) extra.push(word("explain.inputs.causal"));
      if (i.mask) extra.push(word("explain.inputs.mask"));
      if (i.gqa) extra.push(word("explain.inputs.gqa"));
      if (i.dropout) extra.push(word("explain.inputs.dropout", { p: String(i.dropout) }));
      return [(shapes + " " + (i.dtype || "?")).trim(), ...extra].join(", ");
    }
    const kindText = (kind, compiled, module, phase) => {
      let t = word("explain.kind." + kind);
      if (compiled) t = word("explain.compiled", { kind: t });
      if (module) t = word("explain.module", { module: word("explain.module." + module), kind: t });
      if (phase) t = word("explain.with_phase", { kind: t, phase: word("explain.phase." + phase) });
      return t;
    };
    const counted = (key, n) => word(n === 1 && own(words, key + ".1") ? key + ".1" : key, { n: n });
    const passesText = (g) => word("explain.gen.passes", { prefill: counted("explain.gen.prefill", g.prefill),
      decode: counted("explain.gen.decode", g.decode), kv: g.kv ? word("explain.gen.kv", { lo: g.kv[0], hi: g.kv[1] })
        : "" });
    const label = (name) => {
      const d = decode(name);
      return (d.text && (d.text[lang] || d.text.en)) || d.short || name;
    };

    return function report(x, seconds) {
      const out = [];
      const p = (text, cls) => el("p", cls ? { class: cls } : {}, [text]);
      const h = (text) => el("h3", {}, [text]);
      const t = x.trace;
      const device = t.device ? word("explain.device", { name: t.device, cc: t.compute_capability || "?.?" })
        : t.gpu_events ? word("explain.unnamed_device", { ids: t.gpus.join(", ") }) : word("explain.no_device");
      out.push(h(word("explain.title", { name: t.name })));
      out.push(p(word("explain.head", { name: t.name, steps: counted("explain.n_steps", x.steps.length),
        events: t.events, device: device })));
      if (x.notes.length) {
        out.push(p(word("explain.notes")));
        out.push(el("ul", { class: "attnprof-dropin-notes" }, x.notes.map((n) => el("li", {},
          [word("explain.note." + n.code, n)]))));
      }
      // steps
      out.push(h(word("explain.steps")));
      const stepRows = x.steps.slice(0, 50).map((s) => {
        const gpu = s.activities > 0;
        return [s.name || "-", number(s.wall_us / 1e3), pct(s.gpu_busy_share), gpu ? String(s.gaps) : na(),
          gpu ? number(s.largest_gap_us) : na(), gpu ? pct(s.idle_us > 0 ? s.waiting_us / s.idle_us : null) : na(),
          s.launch_bound === null ? na() : word(s.launch_bound ? "explain.yes" : "explain.no"),
          pct(s.attention_share), s.calls.fwd + "/" + s.calls.bwd];
      });
      out.push(table("attnprof-dropin-steps", ["step", "wall_ms", "gpu_busy", "gaps", "largest_gap", "waited",
        "cpu_bound", "attention", "calls"].map((k) => word("explain.col." + k)), stepRows));
      if (x.steps.length > 50) out.push(p("(+" + (x.steps.length - 50) + ")"));
      const sm = x.summary;
      out.push(p(word("explain.per_step", { fwd: count(sm.calls.fwd), bwd: count(sm.calls.bwd),
        share: pct(sm.attention_share) })));
      const gens = x.steps.filter((s) => s.generation);
      if (gens.length && gens.length === x.steps.length &&
          new Set(gens.map((s) => JSON.stringify(s.generation))).size === 1) {
        out.push(p(word("explain.generation", { passes: passesText(gens[0].generation),
          layers: gens[0].generation.layers })));
      } else {
        for (const s of gens.slice(0, 50)) {
          out.push(p(word("explain.generation.step", { step: s.name || String(s.index),
            passes: passesText(s.generation) })));
        }
      }
      if (sm.outside_steps) out.push(p(word("explain.outside", { n: sm.outside_steps })));
      if (sm.launch_bound_steps.length) {
        out.push(p(word("explain.cpu_bound", { steps: sm.launch_bound_steps.map((k) => x.steps[k].name || String(k))
          .join(", ") })));
      }
      // calls, one row per group of calls that look alike
      out.push(h(word("explain.calls")));
      const flagNames = (codes) => FLAGS.filter((c) => codes[c]).map((c) => word("explain.flag." + c)).join(", ") ||
        "-";
      const projected = x.groups.some((g) => g.projection_us !== null);
      out.push(table("attnprof-dropin-calls", ["group", "what", "backend", "direction", "per_step", "inputs",
        "cpu_us", "gpu_us", ...(projected ? ["projection_us"] : []), "flags"].map((k) => word("explain.col." + k)),
      x.groups.map((g, n) => [String(n + 1),
        kindText(g.kind, g.compiled, g.module, g.phase), word("explain.backend." + g.backend),
        word("kernel.dir." + g.direction), count(g.per_step), inputsText(g.inputs, g.kv), number(g.cpu_us),
        t.gpu_events ? number(g.gpu_us) : na(),
        ...(projected ? [g.projection_us === null ? na() : number(g.projection_us)] : []), flagNames(g.flags)]),
      [1, 5, projected ? 9 : 8])); // what, inputs and flags wrap: at 1280 px the table keeps to the column
      if (projected) out.push(p(word("explain.projections")));
      // their kernels, decoded
      const kernelRows = [];
      x.groups.forEach((g, n) => {
        for (const [name, perCall] of g.kernels) {
          const d = decode(name);
          kernelRows.push([String(n + 1), label(name), d.family, count(perCall)]);
        }
      });
      if (x.groups.length) {
        out.push(h(word("explain.kernels")));
        if (kernelRows.length) {
          const tbl = table("attnprof-dropin-kernels", [word("explain.col.group"), "kernel", word("dropin.family"),
            word("explain.col.per_call")], kernelRows, [1]);
          let r = 0;
          x.groups.forEach((g) => g.kernels.forEach(([name]) => {
            tbl.querySelectorAll("tbody tr")[r++].children[1].setAttribute("title", name);
          }));
          tbl.querySelector("thead th:nth-child(2)").textContent = word("dropin.kernel");
          out.push(tbl);
        } else out.push(p(word("explain.no_kernels")));
      }
      // flags
      out.push(h(word("explain.flags")));
      const codes = Object.keys(x.flags);
      if (!codes.length) out.push(p(word("explain.no_flags")));
      for (const code of codes) {
        const f = x.flags[code];
        const ops = [];
        for (const c of x.calls) for (const fl of c.flags) if (fl.code === code) for (const o of fl.ops) {
          if (!ops.includes(o)) ops.push(o);
        }
        out.push(p(word("explain.flag.line", { flag: word("explain.flag." + code), calls: f.calls,
          steps: f.steps.length, gpu: f.gpu_us ? word("explain.flag.gpu", { us: number(f.gpu_us) }) : "",
          ops: ops.slice(0, 3).join("; ") }), "attnprof-dropin-flag"));
        out.push(p(word("explain.flag.why." + code)));
      }
      out.push(p(word("dropin.read_in", { seconds: number(seconds, 2) }), "attnprof-dropin-made"));
      return out;
    };
  }

  /** Make the drop-in widget `root` (rendered by attnprof.render.dropin.fragment) work: a chosen or dropped file
      is read here and its reading shown under it. */
  function mount(widget) {
    if (widget.dataset.attnprofMounted) return;
    widget.dataset.attnprofMounted = "1";
    const words = JSON.parse(widget.dataset.words || "{}");
    const lang = widget.dataset.lang || "en";
    const kernels = root && root.attnprofKernels;
    const input = widget.querySelector("input[type=file]");
    const zone = widget.querySelector(".attnprof-dropin-zone");
    const status = widget.querySelector(".attnprof-dropin-status");
    const out = widget.querySelector(".attnprof-dropin-report");
    const word = (key, fields) => (own(words, key) ? words[key] : key)
      .replace(/\{(\w+)\}/g, (m, k) => (fields && own(fields, k) ? String(fields[k]) : m));
    const fallback = widget.parentNode && widget.parentNode.querySelector(".attnprof-dropin-fallback");
    if (fallback) fallback.hidden = true;
    widget.hidden = false;
    async function take(file) {
      if (!file) return;
      out.replaceChildren();
      widget.dataset.state = "reading";
      status.className = "attnprof-dropin-status";
      status.textContent = word("dropin.reading", { name: file.name });
      const t0 = performance.now();
      try {
        if (!kernels) throw new Unreadable("no_decoder", {});
        const x = await explainFile(file, kernels.decode);
        const seconds = (performance.now() - t0) / 1000;
        out.replaceChildren(...makeReport(words, lang, kernels.decode)(x, seconds));
        out.dataset.calls = String(x.calls.length);
        out.dataset.seconds = String(seconds);
        // a trace without GPU work reads, but says so on the status line too: the first thing to fix
        const gpuNote = x.notes.find((n) => n.code === "cpu_only" || n.code === "no_gpu_events");
        status.textContent = gpuNote ? word("dropin.error", { name: file.name,
          what: word("explain.note." + gpuNote.code, gpuNote) }) : "";
        widget.dataset.state = "done";
      } catch (err) {
        const code = err instanceof Unreadable ? err.code : "failed";
        const fields = err instanceof Unreadable ? err.fields : { error: String(err && err.message || err) };
        status.className = "attnprof-dropin-status attnprof-dropin-error";
        status.textContent = word("dropin.error", { name: file.name,
          what: word("dropin.error." + code, fields) });
        widget.dataset.state = "error";
        widget.dataset.error = code;
      }
    }
    input.addEventListener("change", () => take(input.files && input.files[0]));
    zone.addEventListener("dragover", (ev) => {
      ev.preventDefault();
      zone.classList.add("attnprof-dropin-over");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("attnprof-dropin-over"));
    zone.addEventListener("drop", (ev) => {
      ev.preventDefault();
      zone.classList.remove("attnprof-dropin-over");
      take(ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0]);
    });
  }

  function mountAll() {
    document.querySelectorAll(".attnprof-dropin").forEach(mount);
  }
  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
    else mountAll();
  }

  const api = { explain: explain, explainFile: explainFile, mount: mount, read: read, Tree: Tree, Unreadable: Unreadable,
    MAX_BYTES: MAX_BYTES, FLAGS: FLAGS, pyRound: pyRound,
    fmt: { number: number, ratio: ratio, percent: percent, count: count, dims: dims } };
  if (typeof module === "object" && module && module.exports) module.exports = api;
  if (root) root.attnprofExplain = api;
})(typeof window !== "undefined" ? window : null);
