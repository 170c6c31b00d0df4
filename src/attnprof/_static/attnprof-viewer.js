/* attnprof trace viewer: every profiled step of a result as lanes of slices (CPU ops by depth, runtime/driver
   calls, GPU streams), with zoom, pan, a tooltip per slice, launch-to-kernel links and "Open in Perfetto".

   Markup and data come from attnprof.viewer (fragment() and write_data()): each div.attnprof-trace-view names
   its view in data-view, and its data file registers the payload in window.attnprofViewerData[view]. No
   dependencies, no network except the trace fetched when the reader asks for Perfetto. */
(function () {
  "use strict";

  const PERFETTO = "https://ui.perfetto.dev";
  const ZOOM_STEP = 1.5;
  const PAN_SHARE = 0.2; // of the visible range, per arrow key
  const MIN_RANGE_US = 0.05; // 50 ns: finer than the trace's nanosecond rounding makes no sense
  let lastId = 0;

  const fill = (text, fields) => text.replace(/\{(\w+)\}/g, (all, key) => (key in fields ? fields[key] : all));
  // Trace times are µs with nanosecond decimals: shown as recorded.
  const us = (x) => String(+x.toFixed(3));

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // 1, 2 or 5 times a power of ten, at least `raw`: the distance between axis ticks.
  function niceStep(raw) {
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  }

  // --- the payload, unpacked into slice objects ------------------------------------------------------------------

  function unpack(data) {
    const str = data.strings;
    return data.steps.map((step) => ({
      label: step.label,
      span: step.span,
      lanes: step.lanes.map((lane, laneIndex) => {
        const slices = lane.slices.map((row) => {
          const s = { lane: laneIndex, kind: lane.kind, start: row[0], dur: row[1] };
          if (lane.kind === "gpu") {
            s.info = data.kernels[row[2]];
            s.name = str[s.info.n];
            s.short = str[s.info.s];
            s.colors = data.colors.families[s.info.f];
            s.corr = row[3];
          } else {
            s.name = s.short = str[row[2]];
            s.category = row[3] === null ? null : str[row[3]];
            s.corr = lane.kind === "launch" ? row[4] : null;
            s.colors = lane.kind === "launch" ? data.colors.runtime : data.colors.cpu[Math.min(lane.depth, data.colors.cpu.length - 1)];
            if (lane.kind === "cpu") s.short = s.name.replace(/^aten::/, "");
          }
          return s;
        });
        return { kind: lane.kind, name: lane.name, slices: slices };
      }),
    }));
  }

  // --- one viewer --------------------------------------------------------------------------------------------------

  function Viewer(view, data) {
    this.view = view;
    this.root = view.querySelector(".attnprof-viewer");
    this.data = data;
    this.w = data.words;
    this.steps = unpack(data);
    this.plot = this.root.querySelector(".attnprof-viewer-plot");
    this.rangeOut = this.root.querySelector(".attnprof-viewer-range");
    this.select = this.root.querySelector(".attnprof-viewer-step");
    this.id = "attnprof-viewer-" + ++lastId;
    this.tip = make("div", "attnprof-viewer-tip");
    this.tip.id = this.id + "-tip";
    this.tip.setAttribute("role", "tooltip");
    this.tip.hidden = true;
    this.live = make("p", "attnprof-viewer-live");
    this.live.setAttribute("aria-live", "polite");
    this.root.append(this.tip, this.live);
    this.root.setAttribute("role", "region");
    this.root.setAttribute("aria-label", fill(this.w["viewer.region"], { variant: data.title }));
    this.selected = null;
    this.current = null; // the slice that Tab reaches (roving tabindex)
    this.hovered = null;

    this.steps.forEach((step, i) => this.select.add(new Option(step.label, String(i))));
    this.select.addEventListener("change", () => this.showStep(+this.select.value));
    this.root.querySelectorAll("[data-zoom]").forEach((button) =>
      button.addEventListener("click", () => {
        const how = button.dataset.zoom;
        if (how === "reset") this.reset();
        else this.zoom(how === "in" ? 1 / ZOOM_STEP : ZOOM_STEP);
      })
    );
    this.legend();
    this.listen();
    this.root.hidden = false;
    this.showStep(data.step);
    new ResizeObserver(() => this.render()).observe(this.plot);
  }

  Viewer.prototype.legend = function () {
    const list = this.root.querySelector(".attnprof-viewer-legend");
    list.setAttribute("aria-label", this.w["viewer.legend"]);
    const c = this.data.colors;
    const items = [[this.w["timeline.legend.cpu"], c.cpu[0][0]], [this.w["timeline.legend.runtime"], c.runtime[0]]];
    this.data.families.forEach((f) => items.push([f, c.families[f][0]]));
    items.forEach(([label, color]) => {
      const item = make("li", "", label);
      item.prepend(make("span", "attnprof-viewer-swatch"));
      item.firstChild.style.background = color;
      list.append(item);
    });
  };

  Viewer.prototype.showStep = function (index) {
    this.step = this.steps[index];
    this.select.value = String(index);
    // a zoomed view stays where it is (steps are alike); a whole view stays whole
    const whole = !this.range || (this.range[0] <= this.full[0] && this.range[1] >= this.full[1]);
    this.full = [-this.step.span * 0.01, this.step.span * 1.01];
    if (whole) this.range = this.full.slice();
    this.selected = this.current = this.hovered = null;
    this.hideTip();
    this.build();
    this.setRange(this.range[0], this.range[1]);
  };

  Viewer.prototype.build = function () {
    this.plot.textContent = "";
    this.plot.classList.remove("has-selection");
    const axis = make("div", "attnprof-viewer-lane attnprof-viewer-axis");
    this.ruler = make("div", "attnprof-viewer-track attnprof-viewer-ruler");
    axis.append(make("div", "attnprof-viewer-name", "µs"), this.ruler);
    this.plot.append(axis);
    this.tracks = [];
    this.slices = [];
    this.step.lanes.forEach((lane) => {
      const row = make("div", "attnprof-viewer-lane attnprof-viewer-" + lane.kind);
      const name = make("div", "attnprof-viewer-name", lane.name);
      name.title = lane.name;
      const track = make("div", "attnprof-viewer-track");
      lane.slices.forEach((s) => {
        const node = make("div", "attnprof-viewer-slice", s.short);
        node.tabIndex = -1;
        node.setAttribute("role", "button");
        node.setAttribute("aria-label", s.short + ", " + us(s.dur) + " µs");
        node.style.background = s.colors[0];
        node.style.color = s.colors[1];
        node.slice = s;
        s.node = node;
        track.append(node);
        this.slices.push(s);
      });
      row.append(name, track);
      this.plot.append(row);
      this.tracks.push(track);
    });
    this.links = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.links.setAttribute("class", "attnprof-viewer-links-overlay");
    this.links.setAttribute("aria-hidden", "true");
    this.plot.append(this.links);
    this.byCorr = new Map();
    this.slices.forEach((s) => {
      if (s.corr === null || s.corr === undefined) return;
      if (!this.byCorr.has(s.corr)) this.byCorr.set(s.corr, []);
      this.byCorr.get(s.corr).push(s);
    });
    this.current = this.step.lanes.reduce((found, lane) => found || lane.slices[0], null);
    if (this.current) this.current.node.tabIndex = 0;
  };

  // --- the visible range -------------------------------------------------------------------------------------------

  Viewer.prototype.setRange = function (t0, t1) {
    const fullWidth = this.full[1] - this.full[0];
    const width = Math.min(Math.max(t1 - t0, MIN_RANGE_US), fullWidth);
    t0 = Math.min(Math.max(t0, this.full[0]), this.full[1] - width);
    this.range = [t0, t0 + width];
    this.render();
  };

  Viewer.prototype.zoom = function (factor, at) {
    const [t0, t1] = this.range;
    if (at === undefined) at = (t0 + t1) / 2;
    const width = Math.min(Math.max((t1 - t0) * factor, MIN_RANGE_US), this.full[1] - this.full[0]);
    const left = at - ((at - t0) * width) / (t1 - t0);
    this.setRange(left, left + width);
  };

  Viewer.prototype.pan = function (dt) {
    this.setRange(this.range[0] + dt, this.range[1] + dt);
  };

  Viewer.prototype.reset = function () {
    this.setRange(this.full[0], this.full[1]);
  };

  Viewer.prototype.width = function () {
    return this.ruler.clientWidth || 1;
  };

  Viewer.prototype.timeAt = function (clientX) {
    const box = this.ruler.getBoundingClientRect();
    return this.range[0] + ((clientX - box.left) / (box.width || 1)) * (this.range[1] - this.range[0]);
  };

  Viewer.prototype.render = function () {
    const [t0, t1] = this.range;
    const W = this.width();
    const scale = W / (t1 - t0);
    this.slices.forEach((s) => {
      const x0 = (s.start - t0) * scale;
      const x1 = (s.start + s.dur - t0) * scale;
      const shown = x1 >= 0 && x0 <= W;
      s.node.hidden = !shown;
      if (!shown) return;
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
    }
    const fields = { start: us(Math.max(t0, 0)), end: us(Math.min(t1, this.step.span)) };
    this.root.dataset.visibleStart = us(t0);
    this.root.dataset.visibleEnd = us(t1);
    this.rangeOut.textContent = fill(this.w["viewer.visible"], fields);
    this.plot.setAttribute("aria-label", fill(this.w["viewer.timeline"], fields));
    this.drawLinks();
    const shownTip = this.hovered || (this.plot.contains(document.activeElement) && document.activeElement.slice);
    if (shownTip && !shownTip.node.hidden) this.showTip(shownTip);
  };

  // --- launch <-> kernel links ----------------------------------------------------------------------------------------

  Viewer.prototype.choose = function (s) {
    this.selected = s;
    const linked = s && s.corr !== null && s.corr !== undefined ? this.byCorr.get(s.corr) : s ? [s] : [];
    this.slices.forEach((other) => other.node.classList.toggle("is-linked", linked.indexOf(other) >= 0));
    this.plot.classList.toggle("has-selection", !!s);
    this.drawLinks();
    if (!s) return;
    const launch = linked.find((x) => x.kind === "launch");
    const work = linked.filter((x) => x.kind === "gpu");
    this.live.textContent =
      launch && work.length
        ? fill(this.w["viewer.linked"], { launch: launch.name, kernel: work.map((x) => x.short).join(", "), id: s.corr })
        : fill(this.w["viewer.unlinked"], { name: s.short });
  };

  Viewer.prototype.drawLinks = function () {
    const svg = this.links;
    if (!svg) return;
    svg.textContent = "";
    const s = this.selected;
    const linked = s && s.corr !== null && s.corr !== undefined ? this.byCorr.get(s.corr) : [];
    const launch = linked.find((x) => x.kind === "launch");
    if (!launch || launch.node.hidden) return;
    const origin = this.plot.getBoundingClientRect();
    const from = launch.node.getBoundingClientRect();
    linked
      .filter((x) => x.kind === "gpu" && !x.node.hidden)
      .forEach((k) => {
        const to = k.node.getBoundingClientRect();
        const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
        line.setAttribute("x1", from.left + from.width / 2 - origin.left);
        line.setAttribute("y1", from.bottom - origin.top);
        line.setAttribute("x2", to.left - origin.left);
        line.setAttribute("y2", to.top - origin.top);
        svg.append(line);
      });
  };

  // --- the tooltip ---------------------------------------------------------------------------------------------------

  Viewer.prototype.tipRows = function (s) {
    const w = this.w;
    const rows = [];
    if (s.kind === "gpu") {
      const k = s.info;
      rows.push([w["col.family"], k.f]);
      rows.push([w["tip.start"], us(s.start) + " µs"], [w["tip.duration"], us(s.dur) + " µs"]);
      [["col.grid_block", k.gb], ["col.registers", k.regs], ["col.shared_memory", k.smem], ["tip.bytes", k.bytes],
        ["col.reported_occupancy", k.occ], ["col.theoretical_occupancy", k.theo]].forEach(([key, value]) => {
        if (value !== undefined) rows.push([w[key], value]);
      });
      if (k.api !== undefined) rows.push([w["col.launch_api"], this.data.strings[k.api]]);
    } else {
      rows.push([w["tip.category"], s.category || ""]);
      rows.push([w["tip.start"], us(s.start) + " µs"], [w["tip.duration"], us(s.dur) + " µs"]);
    }
    if (s.corr !== null && s.corr !== undefined) {
      rows.push([w["tip.correlation"], String(s.corr)]);
      const others = this.byCorr.get(s.corr).filter((x) => x !== s);
      if (others.length) {
        const key = s.kind === "launch" ? "tip.launches" : "tip.launched_by";
        rows.push([w[key], others.map((x) => x.short).join(", ")]);
      }
    }
    return rows;
  };

  Viewer.prototype.showTip = function (s, clientX) {
    const tip = this.tip;
    tip.textContent = "";
    tip.append(make("strong", "attnprof-viewer-tip-short", s.short));
    if (s.name !== s.short) {
      const full = make("p", "attnprof-viewer-tip-full");
      full.append(make("span", "attnprof-viewer-tip-key", this.w["tip.full_name"] + ": "), make("code", "", s.name));
      tip.append(full);
    }
    const list = make("dl");
    this.tipRows(s).forEach(([key, value]) => list.append(make("dt", "", key), make("dd", "", value)));
    tip.append(list);
    tip.dataset.slice = s.kind;
    tip.style.left = "0px"; // measured at its natural width, then placed
    tip.hidden = false;
    // Placed under the slice's lane (over it when there is more room there), inside the viewer's width.
    const box = this.root.getBoundingClientRect();
    const lane = s.node.parentNode.getBoundingClientRect();
    const node = s.node.getBoundingClientRect();
    const x = clientX === undefined ? node.left + Math.min(node.width, lane.right - node.left) / 2 : clientX;
    const left = Math.min(Math.max(x - box.left - tip.offsetWidth / 2, 0), box.width - tip.offsetWidth);
    const below = lane.bottom - box.top + 4;
    const above = lane.top - box.top - tip.offsetHeight - 4;
    const roomBelow = window.innerHeight - lane.bottom;
    tip.style.left = Math.max(left, 0) + "px";
    tip.style.top = (roomBelow < tip.offsetHeight + 8 && above > -box.top ? above : below) + "px";
  };

  Viewer.prototype.hideTip = function () {
    this.tip.hidden = true;
  };

  // --- keyboard, pointer and wheel ----------------------------------------------------------------------------------

  Viewer.prototype.focusSlice = function (s) {
    if (!s) return;
    if (this.current) this.current.node.tabIndex = -1;
    this.current = s;
    s.node.tabIndex = 0;
    const [t0, t1] = this.range;
    if (s.start + s.dur < t0 || s.start > t1) this.pan(s.start + s.dur / 2 - (t0 + t1) / 2);
    s.node.focus();
  };

  // The slice a key moves to from `s`: along its lane, or the nearest in time on the next lane up or down.
  Viewer.prototype.neighbour = function (s, key) {
    const lanes = this.step.lanes;
    const own = lanes[s.lane].slices;
    const i = own.indexOf(s);
    if (key === "ArrowLeft") return own[i - 1];
    if (key === "ArrowRight") return own[i + 1];
    if (key === "Home") return own[0];
    if (key === "End") return own[own.length - 1];
    const dir = key === "ArrowUp" ? -1 : 1;
    const mid = s.start + s.dur / 2;
    for (let l = s.lane + dir; l >= 0 && l < lanes.length; l += dir) {
      if (!lanes[l].slices.length) continue;
      return lanes[l].slices.reduce((a, b) =>
        Math.abs(b.start + b.dur / 2 - mid) < Math.abs(a.start + a.dur / 2 - mid) ? b : a
      );
    }
    return undefined;
  };

  Viewer.prototype.onKey = function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const s = event.target.slice;
    const [t0, t1] = this.range;
    const at = s ? s.start + s.dur / 2 : undefined;
    const k = event.key;
    if (k === "+" || k === "=") this.zoom(1 / ZOOM_STEP, at);
    else if (k === "-" || k === "_" || k === "−") this.zoom(ZOOM_STEP, at);
    else if (k === "0") this.reset();
    else if (s && (k === "Enter" || k === " ")) this.choose(this.selected === s ? null : s);
    else if (s && k === "Escape") {
      this.choose(null);
      this.plot.focus();
    } else if (s && !event.shiftKey && /^(Arrow(Left|Right|Up|Down)|Home|End)$/.test(k)) this.focusSlice(this.neighbour(s, k));
    else if (k === "ArrowLeft" || k === "ArrowRight") this.pan((k === "ArrowLeft" ? -PAN_SHARE : PAN_SHARE) * (t1 - t0));
    else if (!s && k === "Home") this.setRange(this.full[0], this.full[0] + t1 - t0);
    else if (!s && k === "End") this.setRange(this.full[1] - (t1 - t0), this.full[1]);
    else if (!s && k === "Enter") this.focusSlice(this.current);
    else return;
    event.preventDefault();
  };

  Viewer.prototype.listen = function () {
    const plot = this.plot;
    plot.addEventListener("keydown", (e) => this.onKey(e));
    plot.addEventListener("focusin", (e) => {
      const s = e.target.slice;
      if (!s) return;
      if (this.current && this.current !== s) this.current.node.tabIndex = -1;
      this.current = s;
      s.node.tabIndex = 0;
      this.showTip(s);
      s.node.setAttribute("aria-describedby", this.tip.id);
    });
    plot.addEventListener("focusout", (e) => {
      if (e.target.slice) e.target.removeAttribute("aria-describedby");
      if (!this.hovered && !plot.contains(e.relatedTarget)) this.hideTip();
    });
    plot.addEventListener("pointermove", (e) => {
      if (e.pointerType !== "mouse" || this.drag) return;
      const s = e.target.slice;
      if (s) {
        this.hovered = s;
        this.showTip(s, e.clientX);
      } else if (this.hovered) {
        this.hovered = null;
        this.hideTip();
      }
    });
    plot.addEventListener("pointerleave", () => {
      this.hovered = null;
      const focused = document.activeElement && document.activeElement.slice;
      if (focused && plot.contains(document.activeElement)) this.showTip(focused);
      else this.hideTip();
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
        const lines = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.width() : 1;
        const dx = e.deltaX * lines;
        const dy = e.deltaY * lines;
        // The wheel alone zooms only once the timeline has focus, so that scrolling the page over it still works.
        if (e.ctrlKey || e.metaKey || plot.contains(document.activeElement)) {
          if (!dy) return;
          this.zoom(Math.exp(dy * 0.002), this.timeAt(e.clientX));
        } else if (Math.abs(dx) > Math.abs(dy)) {
          this.pan((dx / this.width()) * (this.range[1] - this.range[0]));
        } else return;
        e.preventDefault();
      },
      { passive: false }
    );
    // Pointer drag pans; two touch points pinch-zoom around their middle.
    const points = new Map();
    const spread = () => {
      const [a, b] = [...points.values()];
      return { mid: (a.x + b.x) / 2, d: Math.abs(a.x - b.x) || 1 };
    };
    plot.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      points.set(e.pointerId, { x: e.clientX, x0: e.clientX, range: this.range.slice() });
      this.dragged = false;
      this.drag = null;
      if (points.size === 2) this.pinch = { start: spread(), range: this.range.slice() };
    });
    plot.addEventListener("pointermove", (e) => {
      const p = points.get(e.pointerId);
      if (!p) return;
      p.x = e.clientX;
      if (points.size === 2 && this.pinch) {
        const now = spread();
        const [t0, t1] = this.pinch.range;
        const at = this.pinch.range[0] + ((this.pinch.start.mid - this.ruler.getBoundingClientRect().left) / this.width()) * (t1 - t0);
        const width = ((t1 - t0) * this.pinch.start.d) / now.d;
        const left = at - ((at - t0) * width) / (t1 - t0) - ((now.mid - this.pinch.start.mid) / this.width()) * width;
        this.setRange(left, left + width);
        this.dragged = true;
      } else if (points.size === 1 && (this.drag || Math.abs(p.x - p.x0) > 4)) {
        if (!this.drag) {
          this.drag = true;
          this.hideTip();
          plot.setPointerCapture(e.pointerId);
          plot.classList.add("is-dragging");
        }
        this.dragged = true;
        const [t0, t1] = p.range;
        const shift = ((p.x0 - p.x) / this.width()) * (t1 - t0);
        this.setRange(t0 + shift, t1 + shift);
      }
    });
    const release = (e) => {
      points.delete(e.pointerId);
      if (points.size < 2) this.pinch = null;
      if (!points.size) {
        this.drag = null;
        plot.classList.remove("is-dragging");
      }
    };
    plot.addEventListener("pointerup", release);
    plot.addEventListener("pointercancel", release);
  };

  // --- Open in Perfetto ------------------------------------------------------------------------------------------------

  // Perfetto's documented deep link (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui): open the UI,
  // post 'PING' until it answers 'PONG', then post {perfetto: {buffer, title, fileName}}. Its trace processor reads
  // gzipped traces itself, so the .json.gz goes as it is.
  function openInPerfetto(view, button, words, title) {
    const status = view.querySelector(".attnprof-viewer-status");
    const say = (text) => (status.textContent = text);
    if (location.protocol === "file:") return say(words["perfetto.file"]);
    const win = window.open(PERFETTO + "/#!/", "_blank");
    if (!win) return say(words["perfetto.blocked"]);
    say(words["perfetto.opening"]);
    const url = button.dataset.trace;
    const fileName = decodeURIComponent(url.split("/").pop());
    fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(r.status + " " + r.statusText);
        return r.arrayBuffer();
      })
      .then(
        (buffer) =>
          new Promise((done, fail) => {
            const ping = setInterval(() => win.postMessage("PING", PERFETTO), 100);
            const give_up = setTimeout(() => stop(fail, new Error("ui.perfetto.dev did not answer")), 60000);
            function stop(then, value) {
              clearInterval(ping);
              clearTimeout(give_up);
              window.removeEventListener("message", onMessage);
              then(value);
            }
            function onMessage(e) {
              if (e.source !== win || e.data !== "PONG") return;
              win.postMessage({ perfetto: { buffer: buffer, title: title, fileName: fileName } }, PERFETTO);
              stop(done);
            }
            window.addEventListener("message", onMessage);
          })
      )
      .then(() => say(words["perfetto.sent"]))
      .catch((err) => {
        win.close();
        say(fill(words["perfetto.failed"], { error: err.message }));
      });
  }

  // --- start -----------------------------------------------------------------------------------------------------------

  function init() {
    document.querySelectorAll(".attnprof-trace-view").forEach((view) => {
      const data = (window.attnprofViewerData || {})[view.dataset.view];
      if (!data || view.dataset.ready) return; // without data the PNG stays, and so does the download link
      view.dataset.ready = "true";
      new Viewer(view, data);
      const button = view.querySelector(".attnprof-viewer-perfetto");
      button.hidden = false;
      button.addEventListener("click", () => openInPerfetto(view, button, data.words, data.title));
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
