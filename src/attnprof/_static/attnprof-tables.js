/* attnprof.sphinxext: a table wider than its box says so. Every table of the article scrolls sideways inside its own
   box (furo's .table-wrapper, or the box the drop-in reader draws its tables in); where it is wider than that box, the
   box gets the class attnprof-scrolls (a shadow at the edge that hides columns, attnprof.css) and a line above it
   (p.attnprof-scroll-cue, in the page's language: the script tag's data-cue) says that the rest is a sideways scroll
   away. The box can then take the keyboard's focus, so that the arrow keys scroll it. Boxes are looked at again
   when they change size (a font loaded, a phone turned) and when tables are added (the drop-in reader's report). */
(function () {
  "use strict";
  const script = document.currentScript;
  const CUE = (script && script.dataset.cue) || "Scroll sideways for more columns \u2192";
  const CUE_CLASS = "attnprof-scroll-cue";

  const boxOf = (table) => table.closest(".table-wrapper") || table.parentElement;
  const cueOf = (box) => {
    const before = box.previousElementSibling;
    return before && before.classList.contains(CUE_CLASS) ? before : null;
  };

  function edges(box) {
    const end = box.scrollWidth - box.clientWidth;
    box.classList.toggle("attnprof-scrolled", box.scrollLeft > 1);
    box.classList.toggle("attnprof-scrolled-to-end", box.scrollLeft >= end - 1);
  }

  function look(box) {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("attnprof-scrolls", scrolls);
    let cue = cueOf(box);
    if (scrolls && !cue) {
      cue = document.createElement("p");
      cue.className = CUE_CLASS;
      cue.textContent = CUE;
      box.before(cue);
    }
    if (cue) cue.hidden = !scrolls;
    if (scrolls) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", CUE);
    } else if (box.getAttribute("aria-label") === CUE) {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
    edges(box);
  }

  const seen = new WeakSet();
  const boxes = new WeakMap(); // a table, or its box -> the box
  const resized = new ResizeObserver((entries) => entries.forEach((e) => look(boxes.get(e.target))));

  function watch(root) {
    for (const table of root.querySelectorAll("table")) {
      const box = boxOf(table);
      if (!box || seen.has(box)) continue;
      seen.add(box);
      boxes.set(box, box);
      boxes.set(table, box);
      box.addEventListener("scroll", () => edges(box), { passive: true });
      resized.observe(box);
      resized.observe(table);
      look(box);
    }
  }

  function start() {
    const article = document.querySelector("article") || document.body;
    watch(article);
    new MutationObserver(() => watch(article)).observe(article, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
