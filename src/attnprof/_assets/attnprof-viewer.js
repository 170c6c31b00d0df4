/* attnprof trace viewer: every profiled step of a result as lanes of slices (CPU ops by depth, runtime/driver
   calls, GPU streams) with zoom, pan, a tooltip per slice, launch <-> kernel links and "Open in Perfetto".
   Markup and data come from attnprof.viewer: each div.attnprof-trace-view names its view in data-view, and its
   data file registers the payload in window.attnprofViewerData[view]. No dependencies; no network but the trace,
   fetched when the reader asks for Perfetto. */
(function () {
  "use strict";

  const PERFETTO = "https://ui.perfetto.dev";
  const ZOOM = 1.5; // per button or key press
  const PAN = 0.2; // share of the visible range per arrow key
  const MIN_RANGE = 0.05; // µs: finer than the trace's nanoseconds makes no sense
  const SVG = "http://www.w3.org/2000/svg";
  let views = 0;

  const fill = (text, fields) => text.replace(/\{(\w+)\}/g, (all, k) => (k in fields ? fields[k] : all));
  const us = (x) => String(+x.toFixed(3)); // trace times as recorded: µs with nanosecond decimals
  const has = (x) => x !== null && x !== undefined;

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // 1, 2 or 5 times a power of ten, at least `raw`: the distance between axis ticks
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  }

  // The payload's lanes of arrays, as slice objects (layout: attnprof.viewer's module docstring).
  function unpack(data) {
    const str = data.strings, colors = data.colors;
    return data.steps.map((step) => ({
      label: step.label,
      span: step.span,
      lanes: step.lanes.map((lane, index) => ({
        kind: lane.kind,
        name: lane.name,
        slices: lane.slices.map((row) => {
          const s = { lane: index, kind: lane.kind, start: row[0], dur: row[1] };
          if (lane.kind === "gpu") {
            s.info = data.kernels[row[2]];
            s.name = str[s.info.n];
            s.short = str[s.info.s];
            s.colors = colors.families[s.info.f];
            s.corr = row[3];
          } else {
            s.name = str[row[2]];
            s.short = lane.kind === "cpu" ? s.name.replace(/^aten::/, "") : s.name;
            s.category = has(row[3]) ? str[row[3]] : "";
            s.corr = lane.kind === "launch" ? row[4] : null;
            s.colors = lane.kind === "launch" ? colors.runtime : colors.cpu[Math.min(lane.depth, colors.cpu.length - 1)];
          }
          return s;
        }),
      })),
    }));
  }

  class Viewer {
    constructor(view, data) {
      const root = (this.root = view.querySelector(".attnprof-viewer"));
      this.data = data;
      this.w = data.words;
      this.steps = unpack(data);
      this.plot = root.querySelector(".attnprof-viewer-plot");
      this.rangeOut = root.querySelector(".attnprof-viewer-range");
      this.select = root.querySelector(".attnprof-viewer-step");
      this.tip = make("div", "attnprof-viewer-tip");
      this.tip.id = "attnprof-viewer-tip-" + ++views;
      this.tip.setAttribute("role", "tooltip");
      this.tip.hidden = true;
      this.live = make("p", "attnprof-viewer-live");
      this.live.setAttribute("aria-live", "polite");
      this.plot.after(this.tip, this.live);
      root.setAttribute("role", "region");
      root.setAttribute("aria-label", fill(this.w["viewer.region"], { title: data.title }));
      this.steps.forEach((step, i) => this.select.add(new Option(step.label, String(i))));
      this.select.addEventListener("change", () => this.showStep(+this.select.value));
      root.querySelectorAll("[data-zoom]").forEach((button) =>
        button.addEventListener("click", () => {
          const how = button.dataset.zoom;
          if (how === "reset") this.reset();
          else this.zoom(how === "in" ? 1 / ZOOM : ZOOM);
        })
      );
      if (data.note) this.plot.before(make("p", "attnprof-viewer-note", data.note));
      this.legend(root.querySelector(".attnprof-viewer-legend"));
      this.listen();
      root.hidden = false;
      this.showStep(data.step);
      new ResizeObserver(() => this.render()).observe(this.plot);
    }

    legend(list) {
      const c = this.data.colors, w = this.w;
      list.setAttribute("aria-label", w["viewer.legend"]);
      const items = [[w["timeline.legend.cpu"], c.cpu[0][0]]];
      if (this.steps.some((s) => s.lanes.some((l) => l.kind === "launch")))
        items.push([w["timeline.legend.runtime"], c.runtime[0]]);
      this.data.families.forEach((f) => items.push([w["family." + f] || f, c.families[f][0]]));
      items.forEach(([label, color]) => {
        const swatch = make("span", "attnprof-viewer-swatch");
        swatch.style.background = color;
        const item = make("li", "", label);
        item.prepend(swatch);
        list.append(item);
      });
    }

    showStep(index) {
      this.step = this.steps[index];
      this.select.value = String(index);
      // a zoomed view stays where it is (the steps are alike); a whole view stays whole
      const whole = !this.range || (this.range[0] <= this.full[0] && this.range[1] >= this.full[1]);
      this.full = [-this.step.span * 0.01, this.step.span * 1.01];
      if (whole) this.range = this.full.slice();
      this.selected = this.current = this.hovered = null;
      this.tip.hidden = true;
      this.build();
      this.setRange(...this.range);
    }

    build() {
      const plot = this.plot;
      plot.textContent = "";
      plot.classList.remove("has-selection");
      const axis = make("div", "attnprof-viewer-lane attnprof-viewer-axis");
      this.ruler = make("div", "attnprof-viewer-track attnprof-viewer-ruler");
      axis.append(make("div", "attnprof-viewer-name", "µs"), this.ruler);
      plot.append(axis);
      this.slices = [];
      this.byCorr = new Map();
      this.step.lanes.forEach((lane) => {
        const row = make("div", "attnprof-viewer-lane attnprof-viewer-" + lane.kind);
        const name = make("div", "attnprof-viewer-name", lane.name);
        name.title = lane.name;
        const track = make("div", "attnprof-viewer-track");
        lane.slices.forEach((s) => {
          const node = (s.node = make("div", "attnprof-viewer-slice", s.short));
          node.tabIndex = -1;
          node.setAttribute("role", "button");
          node.setAttribute("aria-label", s.short + ", " + us(s.dur) + " µs");
          node.style.background = s.colors[0];
          node.style.color = s.colors[1];
          node.slice = s;
          track.append(node);
          this.slices.push(s);
          if (has(s.corr)) this.byCorr.set(s.corr, (this.byCorr.get(s.corr) || []).concat(s));
        });
        row.append(name, track);
        plot.append(row);
      });
      this.links = document.createElementNS(SVG, "svg");
      this.links.setAttribute("class", "attnprof-viewer-links-overlay");
      this.links.setAttribute("aria-hidden", "true");
      plot.append(this.links);
      // roving tabindex: Tab reaches one slice, the last one visited
      this.current = this.slices[0] || null;
      if (this.current) this.current.node.tabIndex = 0;
    }

    // --- the visible range

    setRange(t0, t1) {
      const width = Math.min(Math.max(t1 - t0, MIN_RANGE), this.full[1] - this.full[0]);
      t0 = Math.min(Math.max(t0, this.full[0]), this.full[1] - width);
      this.range = [t0, t0 + width];
      this.render();
    }

    zoom(factor, at) {
      const [t0, t1] = this.range;
      if (!has(at)) at = (t0 + t1) / 2;
      const width = Math.min(Math.max((t1 - t0) * factor, MIN_RANGE), this.full[1] - this.full[0]);
      const left = at - ((at - t0) * width) / (t1 - t0);
      this.setRange(left, left + width);
    }

    pan(dt) {
      this.setRange(this.range[0] + dt, this.range[1] + dt);
    }

    reset() {
      this.setRange(...this.full);
    }

    width() {
      return this.ruler.clientWidth || 1;
    }

    timeAt(clientX) {
      const [t0, t1] = this.range;
      return t0 + ((clientX - this.ruler.getBoundingClientRect().left) / this.width()) * (t1 - t0);
    }

    render() {
      const [t0, t1] = this.range;
      const W = this.width();
      const scale = W / (t1 - t0);
      this.slices.forEach((s) => {
        const x0 = (s.start - t0) * scale;
        const x1 = (s.start + s.dur - t0) * scale;
        s.node.hidden = x1 < 0 || x0 > W;
        if (s.node.hidden) return;
        // clipped to the track, so that a slice wider than the view keeps its label in sight
        const left = Math.max(x0, -2);
        const width = Math.max(Math.min(x1, W + 2) - left, 1);
        s.node.style.left = left + "px";
        s.node.style.width = width + "px";
        s.node.classList.toggle("is-narrow", width < 18);
      });
      this.ruler.textContent = "";
      const step = niceStep((t1 - t0) / Math.max(W / 90, 1));
      const digits = Math.max(0, -Math.floor(Math.log10(step)));
      for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
        const tick = make("span", "attnprof-viewer-tick", t.toFixed(digits));
        tick.style.left = (t - t0) * scale + "px";
        this.ruler.append(tick);
        if (tick.offsetLeft + tick.offsetWidth > W) tick.remove(); // no half-cut number at the right edge
      }
      const fields = { start: us(Math.max(t0, 0)), end: us(Math.min(t1, this.step.span)) };
      this.root.dataset.visibleStart = us(t0);
      this.root.dataset.visibleEnd = us(t1);
      this.rangeOut.textContent = fill(this.w["viewer.visible"], fields);
      this.plot.setAttribute("aria-label", fill(this.w["viewer.timeline"], fields));
      this.drawLinks();
      const focused = this.plot.contains(document.activeElement) && document.activeElement.slice;
      const shown = this.hovered || focused;
      if (shown && !shown.node.hidden) this.showTip(shown);
    }

    // --- launch <-> kernel links

    linked(s) {
      return !s ? [] : has(s.corr) ? this.byCorr.get(s.corr) : [s];
    }

    choose(s) {
      this.selected = s;
      const linked = this.linked(s);
      this.slices.forEach((x) => x.node.classList.toggle("is-linked", linked.includes(x)));
      this.plot.classList.toggle("has-selection", !!s);
      this.drawLinks();
      if (!s) return;
      const launch = linked.find((x) => x.kind === "launch");
      const work = linked.filter((x) => x.kind === "gpu").map((x) => x.short);
      this.live.textContent =
        launch && work.length
          ? fill(this.w["viewer.linked"], { launch: launch.name, kernel: work.join(", "), id: s.corr })
          : fill(this.w["viewer.unlinked"], { name: s.short });
    }

    drawLinks() {
      if (!this.links) return;
      this.links.textContent = "";
      const linked = this.selected && has(this.selected.corr) ? this.linked(this.selected) : [];
      const launch = linked.find((x) => x.kind === "launch");
      if (!launch || launch.node.hidden) return;
      const origin = this.plot.getBoundingClientRect();
      const from = launch.node.getBoundingClientRect();
      linked.forEach((k) => {
        if (k.kind !== "gpu" || k.node.hidden) return;
        const to = k.node.getBoundingClientRect();
        const line = document.createElementNS(SVG, "line");
        line.setAttribute("x1", from.left + from.width / 2 - origin.left);
        line.setAttribute("y1", from.bottom - origin.top);
        line.setAttribute("x2", to.left - origin.left);
        line.setAttribute("y2", to.top - origin.top);
        this.links.append(line);
      });
    }

    // --- the tooltip

    // the slice's own start and duration, then, for GPU work, its row of the kernel table
    tipRows(s) {
      const w = this.w, k = s.info;
      const rows = s.category ? [[w["tip.category"], s.category]] : [];
      rows.push([w["tip.start"], us(s.start) + " µs"], [w["tip.duration"], us(s.dur) + " µs"]);
      if (k) {
        this.data.columns.forEach((key, i) => has(k.c[i]) && rows.push([w[key], k.c[i]]));
        if (has(k.b)) rows.push([w["tip.bytes"], k.b]);
      }
      if (has(s.corr)) {
        rows.push([w["tip.correlation"], String(s.corr)]);
        const others = this.linked(s).filter((x) => x !== s);
        const key = s.kind === "launch" ? "tip.launches" : "tip.launched_by";
        if (others.length) rows.push([w[key], others.map((x) => x.short).join(", ")]);
      }
      return rows;
    }

    showTip(s, clientX) {
      const tip = this.tip;
      tip.textContent = "";
      tip.append(make("strong", "attnprof-viewer-tip-short", s.short));
      if (s.name !== s.short) {
        const full = make("p", "attnprof-viewer-tip-full", this.w["tip.full_name"] + ": ");
        full.append(make("code", "", s.name));
        tip.append(full);
      }
      const list = make("dl", "attnprof-viewer-tip-rows"); // a class: furo spaces out a plain dl
      this.tipRows(s).forEach(([key, value]) => list.append(make("dt", "", key), make("dd", "", value)));
      tip.append(list);
      tip.style.left = "0px"; // measured at its natural width, then placed
      tip.hidden = false;
      if (getComputedStyle(tip).position !== "absolute") return; // docked under the plot on a narrow screen
      // under the slice's lane (over it when there is more room there), within the viewer's width
      const box = this.root.getBoundingClientRect();
      const lane = s.node.parentNode.getBoundingClientRect();
      const node = s.node.getBoundingClientRect();
      const x = has(clientX) ? clientX : node.left + Math.min(node.width, lane.right - node.left) / 2;
      const left = Math.min(x - box.left - tip.offsetWidth / 2, box.width - tip.offsetWidth);
      const above = lane.top - box.top - tip.offsetHeight - 4;
      const below = window.innerHeight - lane.bottom < tip.offsetHeight + 8 && above > -box.top;
      tip.style.left = Math.max(left, 0) + "px";
      tip.style.top = (below ? above : lane.bottom - box.top + 4) + "px";
    }

    // --- keyboard, pointer and wheel

    focusSlice(s) {
      if (!s) return;
      const [t0, t1] = this.range;
      if (s.start + s.dur < t0 || s.start > t1) this.pan(s.start + s.dur / 2 - (t0 + t1) / 2);
      s.node.focus();
    }

    // where a key moves from slice `s`: along its lane, or to the nearest in time on the next lane up or down
    neighbour(s, key) {
      const lanes = this.step.lanes;
      const own = lanes[s.lane].slices;
      const i = own.indexOf(s);
      const along = { ArrowLeft: own[i - 1], ArrowRight: own[i + 1], Home: own[0], End: own[own.length - 1] };
      if (key in along) return along[key];
      const dir = key === "ArrowUp" ? -1 : 1;
      const mid = (x) => x.start + x.dur / 2;
      for (let l = s.lane + dir; l >= 0 && l < lanes.length; l += dir) {
        const c = lanes[l].slices;
        if (c.length) return c.reduce((a, b) => (Math.abs(mid(b) - mid(s)) < Math.abs(mid(a) - mid(s)) ? b : a));
      }
    }

    onKey(e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const s = e.target.slice, k = e.key;
      const [t0, t1] = this.range;
      if (k === "+" || k === "=") this.zoom(1 / ZOOM, s && s.start + s.dur / 2);
      else if (k === "-" || k === "_") this.zoom(ZOOM, s && s.start + s.dur / 2);
      else if (k === "0") this.reset();
      else if (k === "ArrowLeft" || k === "ArrowRight") {
        if (s && !e.shiftKey) this.focusSlice(this.neighbour(s, k));
        else this.pan((k === "ArrowLeft" ? -PAN : PAN) * (t1 - t0));
      } else if (s && /^(ArrowUp|ArrowDown|Home|End)$/.test(k)) this.focusSlice(this.neighbour(s, k));
      else if (s && (k === "Enter" || k === " ")) this.choose(this.selected === s ? null : s);
      else if (s && k === "Escape") {
        this.choose(null);
        this.plot.focus();
      } else if (!s && k === "Home") this.setRange(this.full[0], this.full[0] + t1 - t0);
      else if (!s && k === "End") this.setRange(this.full[1] - (t1 - t0), this.full[1]);
      else if (!s && k === "Enter") this.focusSlice(this.current);
      else return;
      e.preventDefault();
    }

    listen() {
      const plot = this.plot;
      plot.addEventListener("keydown", (e) => this.onKey(e));
      plot.addEventListener("focusin", (e) => {
        const s = e.target.slice;
        if (!s) return;
        if (this.current) this.current.node.tabIndex = -1;
        this.current = s;
        s.node.tabIndex = 0;
        this.showTip(s);
        s.node.setAttribute("aria-describedby", this.tip.id);
      });
      plot.addEventListener("focusout", (e) => {
        e.target.removeAttribute("aria-describedby");
        if (!this.hovered && !plot.contains(e.relatedTarget)) this.tip.hidden = true;
      });
      plot.addEventListener("pointermove", (e) => {
        if (e.pointerType !== "mouse" || this.drag) return;
        const s = e.target.slice;
        if (s) this.showTip(s, e.clientX);
        else if (this.hovered) this.tip.hidden = true;
        this.hovered = s || null;
      });
      plot.addEventListener("pointerleave", () => {
        this.hovered = null;
        const focused = plot.contains(document.activeElement) && document.activeElement.slice;
        if (focused) this.showTip(focused);
        else this.tip.hidden = true;
      });
      plot.addEventListener("click", (e) => {
        if (this.dragged) return; // the end of a drag is no click
        const s = e.target.slice;
        this.choose(s && this.selected !== s ? s : null);
        if (s) s.node.focus();
      });
      plot.addEventListener(
        "wheel",
        (e) => {
          const unit = [1, 16, this.width()][e.deltaMode] || 1;
          const dx = e.deltaX * unit, dy = e.deltaY * unit;
          // the wheel alone zooms only once the timeline has focus: until then it scrolls the page
          if (dy && (e.ctrlKey || e.metaKey || plot.contains(document.activeElement))) {
            this.zoom(Math.exp(dy * 0.002), this.timeAt(e.clientX));
          } else if (Math.abs(dx) > Math.abs(dy)) {
            this.pan((dx / this.width()) * (this.range[1] - this.range[0]));
          } else return;
          e.preventDefault();
        },
        { passive: false }
      );
      // a pointer dragged pans; two touch points pinch-zoom around their middle
      const points = new Map();
      const spread = () => {
        const [a, b] = [...points.values()];
        return { mid: (a.x + b.x) / 2, d: Math.abs(a.x - b.x) || 1 };
      };
      plot.addEventListener("pointerdown", (e) => {
        if (e.button !== 0) return;
        points.set(e.pointerId, { x: e.clientX, x0: e.clientX, range: this.range.slice() });
        this.dragged = this.drag = false;
        if (points.size === 2) {
          const start = spread();
          this.pinch = { start: start, range: this.range.slice(), at: this.timeAt(start.mid) }; // under the fingers
        }
      });
      plot.addEventListener("pointermove", (e) => {
        const p = points.get(e.pointerId);
        if (!p) return;
        p.x = e.clientX;
        const W = this.width();
        if (points.size === 2 && this.pinch) {
          const { start, at, range: [t0, t1] } = this.pinch;
          const now = spread();
          const width = ((t1 - t0) * start.d) / now.d;
          const left = at - ((at - t0) * width) / (t1 - t0) - ((now.mid - start.mid) / W) * width;
          this.setRange(left, left + width);
          this.dragged = true;
        } else if (points.size === 1 && (this.drag || Math.abs(p.x - p.x0) > 4)) {
          if (!this.drag) {
            this.drag = this.dragged = true;
            this.tip.hidden = true;
            plot.setPointerCapture(e.pointerId);
            plot.classList.add("is-dragging");
          }
          const [t0, t1] = p.range;
          const shift = ((p.x0 - p.x) / W) * (t1 - t0);
          this.setRange(t0 + shift, t1 + shift);
        }
      });
      const release = (e) => {
        points.delete(e.pointerId);
        if (points.size < 2) this.pinch = null;
        if (!points.size) this.drag = false;
        plot.classList.toggle("is-dragging", !!this.drag);
      };
      plot.addEventListener("pointerup", release);
      plot.addEventListener("pointercancel", release);
    }
  }

  // --- Open in Perfetto: its documented deep link (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui).
  // Open the UI, post 'PING' until it answers 'PONG', then post {perfetto: {buffer, title, fileName}}. Its trace
  // processor reads gzipped traces itself, so the .json.gz goes as published.
  function openInPerfetto(view, data, bytes) {
    const words = data.words, status = view.querySelector(".attnprof-viewer-status");
    const say = (text) => (status.textContent = text);
    const url = view.querySelector(".attnprof-viewer-perfetto").dataset.trace;
    if (!bytes && location.protocol === "file:") return say(words["perfetto.file"]); // fetch() cannot read it
    const win = window.open(PERFETTO + "/#!/", "_blank");
    if (!win) return say(words["perfetto.blocked"]);
    say(words["perfetto.opening"]);
    const fileName = view.querySelector(".attnprof-viewer-download").getAttribute("download");
    const title = data.title;
    const handOver = (buffer) =>
      new Promise((done, fail) => {
        const ping = setInterval(() => win.postMessage("PING", PERFETTO), 100);
        const giveUp = setTimeout(() => stop(fail, new Error("no answer from " + PERFETTO)), 60000);
        const onMessage = (e) => {
          if (e.source !== win || e.data !== "PONG") return;
          win.postMessage({ perfetto: { buffer: buffer, title: title, fileName: fileName } }, PERFETTO);
          stop(done);
        };
        const stop = (then, value) => {
          clearInterval(ping);
          clearTimeout(giveUp);
          window.removeEventListener("message", onMessage);
          then(value);
        };
        window.addEventListener("message", onMessage);
      });
    (bytes
      ? Promise.resolve(bytes.buffer)
      : fetch(url).then((r) => {
          if (!r.ok) throw new Error(r.status + " " + r.statusText);
          return r.arrayBuffer();
        })
    )
      .then(handOver)
      .then(() => say(words["perfetto.sent"]))
      .catch((err) => {
        win.close();
        say(fill(words["perfetto.failed"], { error: err.message }));
      });
  }

  function init() {
    document.querySelectorAll(".attnprof-trace-view").forEach((view) => {
      const data = (window.attnprofViewerData || {})[view.dataset.view];
      if (!data || view.dataset.ready) return; // without data the PNG and the download link stay as they are
      view.dataset.ready = "true";
      new Viewer(view, data);
      const noScript = view.querySelector(".attnprof-viewer-noscript");
      if (noScript) noScript.remove();
      // a trace that came inline (attnprof.viewer.embed): the download link and Perfetto read it from memory
      const bytes = data.trace && Uint8Array.from(atob(data.trace), (c) => c.charCodeAt(0));
      const link = view.querySelector(".attnprof-viewer-download");
      if (bytes) {
        link.href = URL.createObjectURL(new Blob([bytes], { type: "application/gzip" }));
        link.hidden = false;
      }
      const button = view.querySelector(".attnprof-viewer-perfetto");
      button.hidden = !bytes && !button.dataset.trace;
      button.addEventListener("click", () => openInPerfetto(view, data, bytes));
      // The PNG figure right before the view stays for print and no-script; on screen the viewer stands for it.
      const figure = view.previousElementSibling;
      if (figure && figure.matches("figure")) figure.classList.add("attnprof-viewer-replaced");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
  window.addEventListener("load", init);
  window.attnprofViewer = { init: init };
})();
