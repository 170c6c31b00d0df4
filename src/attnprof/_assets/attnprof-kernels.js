/* attnprof kernel-name decoder for the browser (and node): it interprets the rule table that
   attnprof.analysis.kernels.export_rules() exports (attnprof-kernel-rules.js registers it in
   window.attnprofKernelRules), so that a page decodes kernel names from the one table, offline. Each step of
   attnprof/analysis/kernels/engine.py is implemented here once, under the same name; the data's format is
   described in attnprof/analysis/kernels/export.py. Plain ES2019, no dependencies.

   decode(name) -> {name, family, short, fields, label: {form, values, words, items}, text: {en, ja, ...}}, the
   same as Python's decode() (short is the English label; text has the label in every language of the site). */
(function (root) {
  "use strict";

  const CACHE_MAX = 8192; // names kept, as Python's decode keeps them
  const HOLE = /\{([^{}]*)\}/g;
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const truthy = (v) => v !== null && v !== undefined && v.length > 0; // Python's bool() of a text or a list
  const length = (s) => Array.from(s).length; // Python's len(): code points, not UTF-16 units

  // Python's str.strip(chars), lstrip and rstrip; without chars, Python's whitespace (data.whitespace).
  function strip(s, chars, left, right) {
    const set = new Set(Array.from(chars));
    const cps = Array.from(s);
    let a = 0;
    let b = cps.length;
    while (left && a < b && set.has(cps[a])) a++;
    while (right && b > a && set.has(cps[b - 1])) b--;
    return cps.slice(a, b).join("");
  }

  // Python's sequence[i] for a decimal i (negative counts from the end); null when out of range.
  function index(seq, i) {
    let n = parseInt(i, 10);
    if (n < 0) n += seq.length;
    return n >= 0 && n < seq.length ? seq[n] : null;
  }

  // 2 ** n in decimal, for a text of digits and n up to max (the pow2 pipe); null otherwise.
  function pow2(s, max) {
    if (!/^[0-9]+$/.test(s) || Number(s) > max) return null;
    let digits = [1]; // least significant first
    for (let k = Number(s); k > 0; k--) {
      let carry = 0;
      digits = digits.map((d) => {
        const x = 2 * d + carry;
        carry = x >= 10 ? 1 : 0;
        return x % 10;
      });
      if (carry) digits.push(carry);
    }
    return digits.reverse().join("");
  }

  // split_names: a list joined by "_" whose names may hold "_", split greedily against multiword (in order).
  function splitNames(joined, multiword) {
    const tokens = joined.split("_");
    const names = [];
    let i = 0;
    while (i < tokens.length) {
      let prefix = "";
      if (tokens[i] === "" && i + 1 < tokens.length) {
        prefix = "_";
        i += 1;
      }
      let found = false;
      for (const name of multiword) {
        const parts = name.split("_");
        if (parts.every((p, k) => tokens[i + k] === p)) {
          names.push(prefix + name);
          i += parts.length;
          found = true;
          break;
        }
      }
      if (!found) {
        if (tokens[i]) names.push(prefix + tokens[i]);
        i += 1;
      }
    }
    return names;
  }

  function makeDecoder(data) {
    const tables = data.tables;
    const words = data.words;
    const languages = data.languages;
    const space = data.whitespace;
    const SHORT_MAX = data.short_max;
    const pyStrip = (s, chars) => strip(s, chars === undefined ? space : chars, true, true);

    // --- words (attnprof.words: language, text, text_or) and labels (labels.py: clip, shorten, Label.text)

    function language(name) {
      const lang = (name || languages[0]).split("-").join("_").split("_")[0].toLowerCase();
      return languages.indexOf(lang) >= 0 ? lang : languages[0];
    }

    function text(key, lang, fields) {
      if (!own(words, key)) throw new Error("unknown word key " + JSON.stringify(key));
      const t = words[key][language(lang)];
      if (!fields || Object.keys(fields).length === 0) return t;
      return t.replace(/\{\{|\}\}|\{(\w+)\}/g, (all, k) => {
        if (all === "{{") return "{";
        if (all === "}}") return "}";
        if (!own(fields, k)) throw new Error("no value for {" + k + "} in " + JSON.stringify(key));
        return String(fields[k]);
      });
    }

    const textOr = (key, fallback, lang) => (own(words, key) ? text(key, lang) : fallback);

    function clip(s, limit) {
      const cps = Array.from(s);
      if (cps.length <= limit) return s;
      return strip(cps.slice(0, limit - 1).join(""), space, false, true) + "…";
    }

    function stripSignature(name) {
      let s = pyStrip(name);
      if (s.startsWith("void ")) s = s.slice(5);
      if (s.endsWith(")")) {
        let depth = 0;
        for (let i = s.length - 1; i >= 0; i--) {
          if (s[i] === ")") depth += 1;
          else if (s[i] === "(") {
            depth -= 1;
            if (depth === 0) {
              if (i > 0) s = s.slice(0, i);
              break;
            }
          }
        }
      }
      return pyStrip(s);
    }

    function collapseTemplates(s) {
      let out = "";
      let depth = 0;
      for (const ch of s) {
        if (ch === "<") {
          if (depth === 0) out += "<…";
          depth += 1;
        } else if (ch === ">" && depth) {
          depth -= 1;
          if (depth === 0) out += ">";
        } else if (depth === 0) out += ch;
      }
      return out;
    }

    function shorten(name, limit) {
      if (limit === undefined) limit = SHORT_MAX;
      let s = stripSignature(name);
      if (length(s) > limit) s = collapseTemplates(s);
      if (length(s) > limit && s.indexOf("::") >= 0) {
        const lt = s.indexOf("<");
        const head = lt < 0 ? s : s.slice(0, lt);
        const tail = lt < 0 ? "" : s.slice(lt + 1);
        const parts = head.split("::");
        while (parts.length > 1 && length(parts.join("::")) + length(tail) + 1 > limit) parts.shift();
        s = parts.join("::") + (tail ? "<" + tail : "");
      }
      return clip(s, limit);
    }

    function labelHead(label, lang) {
      const fields = Object.assign({}, label.values);
      for (const k of Object.keys(label.words)) {
        const pair = label.words[k];
        fields[k] = pair[0] ? textOr(pair[0], pair[1], lang) : "";
      }
      return text("kernel." + label.form, lang, fields);
    }

    function withItems(label, head, n, lang) {
      const left = label.items.length - n;
      const more = left ? text("kernel.more", lang, { n: left }) : "";
      return head + label.items.slice(0, n).join(text("kernel.item_sep", lang)) + more;
    }

    // Label.items_shown: the most items that fit in every language, so that each lists the same ones
    function itemsShown(label, limit) {
      const heads = languages.map((lang) => [lang, labelHead(label, lang)]);
      for (let n = label.items.length; n > 0; n--) {
        if (heads.every(([lang, head]) => length(withItems(label, head, n, lang)) <= limit)) return n;
      }
      return 0;
    }

    function labelText(label, lang, limit) {
      if (limit === undefined) limit = SHORT_MAX;
      if (label.form === "raw") return clip(label.values.name, limit);
      const head = labelHead(label, lang);
      if (!label.items.length) return clip(head, limit);
      const n = itemsShown(label, limit);
      if (n === 0) return clip(head + text("kernel.ops", lang, { n: label.items.length }), limit);
      return withItems(label, head, n, lang);
    }

    const familyText = (family, lang) => textOr("family." + family, family, lang);

    // --- templates and their pipes (engine.py: Template, PIPES)

    const parsed = new Map();
    function template(source) {
      if (parsed.has(source)) return parsed.get(source);
      const parts = [];
      let at = 0;
      HOLE.lastIndex = 0;
      let m;
      while ((m = HOLE.exec(source)) !== null) {
        if (m.index > at) parts.push(source.slice(at, m.index));
        const pieces = m[1].split("|");
        const pipes = pieces.slice(1).map((p) => {
          const args = p.split(":");
          return { name: args[0], args: args.slice(1) };
        });
        parts.push({ v: pieces[0], pipes: pipes });
        at = m.index + m[0].length;
      }
      if (at < source.length) parts.push(source.slice(at));
      const t = { source: source, parts: parts };
      parsed.set(source, t);
      return t;
    }

    function dtype(s) {
      if (!s) return "?";
      s = pyStrip(s);
      if (s.endsWith(" const")) s = s.slice(0, -" const".length);
      s = pyStrip(s);
      if (own(tables.dtypes, s)) return tables.dtypes[s];
      const at = s.lastIndexOf("::");
      return at < 0 ? s : s.slice(at + 2);
    }

    function pipe(name, args, v) {
      switch (name) {
        case "dtype":
          return dtype(v);
        case "map":
          return own(tables[args[0]], v) ? tables[args[0]][v] : null;
        case "lookup":
          return own(tables[args[0]], v) ? tables[args[0]][v] : v;
        case "nonempty":
          return v === "" ? null : v;
        case "lower":
          return v.toLowerCase();
        case "removeprefix":
          return args[0] && v.startsWith(args[0]) ? v.slice(args[0].length) : v;
        case "removesuffix":
          return args[0] && v.endsWith(args[0]) ? v.slice(0, v.length - args[0].length) : v;
        case "strip":
          return pyStrip(v, args.length ? args[0] : undefined);
        case "replace":
          return v.split(args[0]).join(args[1]);
        case "before": {
          const at = v.indexOf(args[0]);
          return at < 0 ? v : v.slice(0, at);
        }
        case "char":
          return index(Array.from(v), args[0]);
        case "pow2":
          return pow2(v, data.pow2_max);
        case "shorten":
          return shorten(v);
        case "split":
          return v.split(args[0]);
        case "names":
          return splitNames(v, tables[args[0]]);
        default:
          throw new Error("unknown pipe " + name);
      }
    }

    function hole(h, env) {
      let v = env.has(h.v) ? env.get(h.v) : null;
      for (const p of h.pipes) {
        if (p.name === "default") {
          if (v === null) v = p.args[0];
        } else if (v === null) {
          continue;
        } else if (p.name === "item" || p.name === "join") {
          if (!Array.isArray(v)) throw new Error("pipe " + p.name + " takes a list");
          v = p.name === "item" ? index(v, p.args[0]) : v.join(p.args[0]);
        } else if (Array.isArray(v)) {
          if (p.name === "split" || p.name === "names") throw new Error("pipe " + p.name + " takes one text");
          v = v.map((x) => pipe(p.name, p.args, x)).filter((r) => typeof r === "string");
        } else {
          v = pipe(p.name, p.args, v);
        }
      }
      return v;
    }

    function value(source, env) {
      const t = template(source);
      if (t.parts.length === 1 && typeof t.parts[0] !== "string") return hole(t.parts[0], env);
      let out = "";
      for (const part of t.parts) {
        if (typeof part === "string") {
          out += part;
          continue;
        }
        const v = hole(part, env);
        if (v === null) return null;
        if (Array.isArray(v)) throw new Error("a list inside text: " + source);
        out += v;
      }
      return out;
    }

    function first(alternatives, env) {
      for (const source of alternatives) {
        const v = value(source, env);
        if (v !== null) return v;
      }
      return null;
    }

    function asText(v) {
      if (Array.isArray(v)) throw new Error("a label's value is a list");
      return v || "";
    }

    // --- steps (engine.py: _Run) over compiled rules

    const regex = (source, flags) => new RegExp(source, flags || "u");
    function compile(steps) {
      return steps.map((s) => {
        const c = Object.assign({}, s);
        if (own(s, "search")) c.res = s.search.map((p) => regex(p));
        if (own(s, "find")) c.re = regex(s.pattern, "gu");
        if (own(s, "classify")) c.res = s.tokens.map((t) => [t[0], regex(t[1])]);
        if (own(s, "when")) {
          c.conditions = Object.keys(s.when).map((k) => [k, typeof s.when[k] === "string" ? regex(s.when[k]) : s.when[k]]);
          c.then = compile(s.then);
          c.else = compile(s.else);
        }
        return c;
      });
    }
    const rules = data.rules.map((r) => ({ family: r.family, re: regex(r.pattern), steps: compile(r.steps) }));

    function run(steps, state) {
      const env = state.env;
      const fields = state.fields;
      const set = (name, v) => {
        if (v === null) return;
        if (!name.startsWith("_")) {
          if (typeof v !== "string") throw new Error("field " + name + " would be a list");
          fields.set(name, v);
        }
        env.set(name, v);
      };
      for (const s of steps) {
        if (own(s, "set")) set(s.set, first(s.value, env));
        else if (own(s, "search")) {
          const t = value(s.in, env);
          if (typeof t !== "string") continue;
          for (const re of s.res) {
            const m = re.exec(t);
            if (!m) continue;
            const groups = m.groups || {};
            for (const k of Object.keys(groups)) if (groups[k] !== undefined) env.set(k, groups[k]);
            break;
          }
        } else if (own(s, "find")) {
          const t = value(s.in, env);
          const found = [];
          if (typeof t === "string") {
            s.re.lastIndex = 0;
            let m;
            while ((m = s.re.exec(t)) !== null) {
              found.push(s.group ? (m[1] === undefined ? "" : m[1]) : m[0]);
              if (m[0] === "") s.re.lastIndex += 1;
            }
          }
          env.set(s.find, found);
        } else if (own(s, "spread")) {
          const items = env.get(s.spread) || [];
          if (items.length === s.names.length) s.names.forEach((n, k) => n && set(n, items[k]));
          else if (s.rest && items.length) set(s.rest, items.join(","));
        } else if (own(s, "classify")) {
          const tokens = value(s.classify, env);
          const rest = [];
          for (const tok of Array.isArray(tokens) ? tokens : []) {
            const hit = s.res.find((t) => t[1].test(tok));
            if (hit) set(hit[0], fields.has(hit[0]) ? fields.get(hit[0]) + "," + tok : tok);
            else rest.push(tok);
          }
          if (rest.length) set(s.rest, rest.join(s.sep));
        } else if (own(s, "when")) {
          const holds = s.conditions.every((c) => {
            const v = env.has(c[0]) ? env.get(c[0]) : null;
            if (typeof c[1] === "boolean") return truthy(v) === c[1];
            return typeof v === "string" && c[1].test(v);
          });
          run(holds ? s.then : s.else, state);
        } else if (own(s, "show")) {
          const values = {};
          for (const k of Object.keys(s.values)) values[k] = asText(first(s.values[k], env));
          const pairs = {};
          for (const k of Object.keys(s.words)) {
            const key = asText(value(s.words[k][0], env));
            pairs[k] = [key, s.words[k][1] === null ? key : asText(value(s.words[k][1], env))];
          }
          const items = s.items === null ? null : value(s.items, env);
          state.label = { form: s.show, values: values, words: pairs, items: Array.isArray(items) ? items : [] };
        }
      }
    }

    function info(name, family, fields, label) {
      const out = { name: name, family: family, short: labelText(label, "en"), fields: fields, label: label };
      out.text = {};
      for (const lang of languages) out.text[lang] = labelText(label, lang);
      return out;
    }

    function decodeName(name) {
      for (const rule of rules) {
        const m = rule.re.exec(name);
        if (!m) continue;
        const env = new Map();
        const groups = m.groups || {};
        for (const k of Object.keys(groups)) if (groups[k] !== undefined) env.set(k, groups[k]);
        env.set("@name", name);
        env.set("@after", name.slice(m.index + m[0].length));
        const state = { env: env, fields: new Map(), label: null };
        run(rule.steps, state);
        if (!state.label) throw new Error("rule " + rule.re.source + " showed no label for " + name);
        const family = state.fields.has("family") ? state.fields.get("family") : rule.family;
        state.fields.delete("family");
        return info(name, family, Object.fromEntries(state.fields), state.label);
      }
      return info(name, "other", {}, { form: "raw", values: { name: shorten(name) }, words: {}, items: [] });
    }

    const cache = new Map();
    function decode(name) {
      if (cache.has(name)) return cache.get(name);
      if (cache.size >= CACHE_MAX) cache.clear();
      const result = decodeName(name);
      cache.set(name, result);
      return result;
    }

    return {
      decode: decode,
      familyText: familyText,
      families: data.families.slice(),
      labelText: labelText,
      language: language,
      shorten: shorten,
      text: text,
    };
  }

  let standing = null; // the decoder of window.attnprofKernelRules, made on first use
  const api = {
    makeDecoder: makeDecoder,
    decode: function (name) {
      if (!standing) {
        if (!root || !root.attnprofKernelRules) throw new Error("attnprof-kernel-rules.js is not loaded");
        standing = makeDecoder(root.attnprofKernelRules);
      }
      return standing.decode(name);
    },
  };
  if (typeof module === "object" && module && module.exports) module.exports = api;
  if (root) root.attnprofKernels = api;
})(typeof window !== "undefined" ? window : null);
