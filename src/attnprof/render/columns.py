"""The kernel table's columns as text: each column's word key and what it says for one kernel row, in the page's
language. The site's kernel table (:mod:`attnprof.sphinxext.tables`) and the trace viewer's tooltip
(:mod:`attnprof.render.viewer`) both write a kernel through :func:`kernel_cells`, so the two say the same.

>>> KERNEL_COLUMNS[:3]
('col.kernel', 'col.avg_us', 'col.per_step')
"""

from __future__ import annotations

from collections.abc import Sequence

from attnprof import words
from attnprof.analysis.summary import KernelRow
from attnprof.words import fmt

#: The kernel table's columns, in order (word keys of their headers).
KERNEL_COLUMNS: tuple[str, ...] = (
    "col.kernel",
    "col.avg_us",
    "col.per_step",
    "col.family",
    "col.launch_api",
    "col.registers",
    "col.shared_memory",
    "col.grid_block",
    "col.reported_occupancy",
    "col.theoretical_occupancy",
)
#: Indexes of the columns that hold numbers (right-aligned).
NUMERIC_COLUMNS: tuple[int, ...] = (1, 2, 5, 6, 8, 9)


def limiter_words(limiters: str | Sequence[str], lang: str | None) -> str:
    """Occupancy limiters in words, every one of a tie (registers and shared memory: ``レジスタと共有メモリ``); one
    the table has no words for as is."""
    return words.limiters([limiters] if isinstance(limiters, str) else limiters, lang)


def kernel_cells(row: KernelRow, lang: str | None) -> dict[str, str | None]:
    """The text of each column of :data:`KERNEL_COLUMNS` for ``row``; ``None`` where there is nothing to say
    (the table writes "n/a" there, the tooltip leaves the line out).

    ``col.kernel`` is the decoded label in ``lang`` (the full name is ``row.name``). The theoretical occupancy names
    its limiting resource in ``lang`` when it is below 100 %: at full occupancy nothing limits anything worth naming.
    """
    percent, limiter = theoretical_parts(row, lang)
    return {
        "col.kernel": row.info.text(lang) or row.name,
        "col.avg_us": fmt.number(row.avg_us),
        "col.per_step": fmt.count(row.per_step),
        "col.family": row.info.family_text(lang),
        "col.launch_api": row.launch_api,
        "col.registers": None if row.registers_per_thread is None else str(row.registers_per_thread),
        "col.shared_memory": None if row.shared_memory is None else fmt.size(row.shared_memory),
        "col.grid_block": f"{fmt.dims(row.grid)} × {fmt.dims(row.block)}" if row.grid and row.block else None,
        "col.reported_occupancy": None if row.reported_occupancy is None else fmt.percent(row.reported_occupancy),
        "col.theoretical_occupancy": (f"{percent} ({limiter})" if limiter else percent) or None,
    }


def theoretical_parts(row: KernelRow, lang: str | None) -> tuple[str, str]:
    """The theoretical occupancy of ``row`` and what limits it, in ``lang`` (``""`` at full occupancy, where
    nothing limits anything worth naming); ``("", "")`` without a theoretical occupancy."""
    theo = row.theoretical
    if theo is None:
        return "", ""
    limiter = limiter_words(theo.limiters or theo.limiter, lang) if theo.percent < 100 else ""
    return fmt.percent(theo.percent), limiter
