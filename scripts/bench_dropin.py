"""Benchmark the drop-in reader of the page "Read your own trace" in headless Chromium (a benchmark, not a test).

Makes a trace of about ``--mb`` megabytes from a real one (the H200 transformers training fixture, its profiler steps
repeated with shifted timestamps and ids: :func:`bench_explain.synthesize`), and its gzip, then, for each, opens a
page holding the reader (its scripts as the site serves them, :func:`attnprof.render.dropin.write_static`) from
``file://`` in Chromium, chooses the file in the reader, and times it until the report is on the page: the page's
own figure (from the file's choice to the report written, ``data-seconds``) and the wall time seen from outside.
Checks that the page found as many attention calls as ``attnprof explain`` does in the same file.

    python scripts/bench_dropin.py [--mb 50] [--runs 3] [--out /tmp/bench-dropin] [--chromium /usr/bin/chromium]

Needs Playwright for Python and a Chromium (the browser tests' own).
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "src"))

from bench_explain import synthesize  # noqa: E402

from attnprof.analysis import attention, explain  # noqa: E402
from attnprof.records import foreign  # noqa: E402
from attnprof.render import dropin  # noqa: E402

SEED = ROOT / "tests/data/foreign/h200/hf_sdpa_train.json.gz"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
WIDGET = ".attnprof-dropin"


def page_file(folder: Path) -> Path:
    """A page with the reader and its scripts, in ``folder``."""
    scripts = dropin.write_static(folder / "_static")
    tags = "".join(f'<script src="_static/{p.name}"></script>' for p in scripts)
    page = folder / "index.html"
    page.write_text(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{tags}</head><body>'
                    f"{dropin.fragment('en')}</body></html>", encoding="utf-8")  # fmt: skip
    return page


def read_in_page(browser, page_url: str, trace: Path) -> tuple[float, float, int]:
    """(the page's seconds, wall seconds, calls) for reading ``trace`` once, in a fresh page."""
    page = browser.new_page()
    try:
        page.goto(page_url, wait_until="load")
        page.wait_for_selector(f"{WIDGET}:not([hidden])")
        t0 = time.perf_counter()
        page.set_input_files(f"{WIDGET} input[type=file]", str(trace))
        page.wait_for_function(
            f"() => ['done', 'error'].includes(document.querySelector('{WIDGET}').dataset.state)", timeout=300_000
        )
        wall = time.perf_counter() - t0
        state = page.evaluate(f"() => document.querySelector('{WIDGET}').dataset.state")
        if state != "done":
            raise SystemExit(f"the page could not read {trace.name}: {page.inner_text('.attnprof-dropin-status')}")
        report = page.locator(f"{WIDGET} .attnprof-dropin-report")
        return float(report.get_attribute("data-seconds") or "nan"), wall, int(report.get_attribute("data-calls"))
    finally:
        page.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=50.0, help="size of the trace to make, MB of JSON (default 50)")
    p.add_argument("--runs", type=int, default=3, help="readings of each file (default 3)")
    p.add_argument("--out", type=Path, default=Path("/tmp/bench-dropin"), help="where the files go")
    p.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium", help="Chromium to run")
    a = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    a.out.mkdir(parents=True, exist_ok=True)
    trace = a.out / "big.json"
    made = synthesize(SEED, int(a.mb * 1e6), trace)
    packed = a.out / "big.json.gz"
    packed.write_bytes(gzip.compress(trace.read_bytes(), compresslevel=6))
    expected = len(explain.explain(foreign.load(trace, inputs_of=attention.wants_inputs)).calls)
    url = page_file(a.out).as_uri()
    print(f"trace: {made['bytes'] / 1e6:.1f} MB of JSON ({packed.stat().st_size / 1e6:.1f} MB gzipped), "
          f"{made['events']} events, {made['steps']} steps; explain finds {expected} attention calls")  # fmt: skip
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=a.chromium, headless=True, args=FLAGS)
        try:
            for f in (trace, packed):
                got = [read_in_page(browser, url, f) for _ in range(a.runs)]
                calls = {g[2] for g in got}
                if calls != {expected}:
                    raise SystemExit(f"{f.name}: the page found {sorted(calls)} calls, explain {expected}")
                rows.append((f.name, f.stat().st_size / 1e6, [g[0] for g in got], [g[1] for g in got]))
        finally:
            browser.close()
    print(f"{'file':<12} {'MB':>6} {'page s (median)':>16} {'wall s (median)':>16}  runs (page s)")
    for name, mb, page_s, wall_s in rows:
        runs = ", ".join(f"{s:.2f}" for s in page_s)
        print(f"{name:<12} {mb:>6.1f} {statistics.median(page_s):>16.2f} {statistics.median(wall_s):>16.2f}  {runs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
