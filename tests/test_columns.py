"""attnprof.render.columns: the kernel table's cells as text, shared by the site's table and the viewer's tooltip."""

from __future__ import annotations

import dataclasses

from attnprof.analysis import summary
from attnprof.render import columns
from attnprof.words import fmt
from helpers import trace_result


def test_cells_of_the_flash_kernel():
    row = summary.analyse(trace_result("sdpa_flash")[0]).main_kernel()
    en, ja = columns.kernel_cells(row, "en"), columns.kernel_cells(row, "ja")
    assert list(en) == list(columns.KERNEL_COLUMNS)
    assert en["col.kernel"] == row.info.text("en") and en["col.family"] == "flash"
    assert ja["col.kernel"] == row.info.text("ja") and ja["col.family"] == row.info.family_text("ja")
    assert en["col.per_step"] == "1" and en["col.avg_us"] == fmt.number(row.avg_us)
    assert en["col.launch_api"] == row.launch_api
    assert en["col.grid_block"] == f"{fmt.dims(row.grid)} × {fmt.dims(row.block)}"
    assert en["col.shared_memory"] == fmt.size(row.shared_memory)
    assert en["col.theoretical_occupancy"] == f"{fmt.percent(row.theoretical.percent)} (registers)"
    assert ja["col.theoretical_occupancy"] == f"{fmt.percent(row.theoretical.percent)} (レジスタ)"


def test_nothing_to_say_is_none_and_full_occupancy_names_no_limiter():
    row = summary.analyse(trace_result("sdpa_flash")[0]).main_kernel()
    full = dataclasses.replace(row, theoretical=dataclasses.replace(row.theoretical, percent=100.0))
    assert columns.kernel_cells(full, "en")["col.theoretical_occupancy"] == "100\u00a0%"
    bare = dataclasses.replace(row, launch_api=None, grid=None, registers_per_thread=None, shared_memory=None,
                               reported_occupancy=None, theoretical=None)  # fmt: skip
    cells = columns.kernel_cells(bare, "en")
    assert [k for k, v in cells.items() if v is None] == [
        "col.launch_api", "col.registers", "col.shared_memory", "col.grid_block", "col.reported_occupancy",
        "col.theoretical_occupancy",
    ]  # fmt: skip


def test_percent_and_limiter_words():
    assert fmt.percent(18.75) == "18.8\u00a0%" and fmt.percent(100) == "100\u00a0%"
    assert columns.limiter_words("shared memory", "ja") == "共有メモリ"
    assert columns.limiter_words("something new", "ja") == "something new"
