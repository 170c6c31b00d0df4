"""The cross-GPU view: what each machine measured (from its bundle) or a publication reported, per workload, shape
and variant, side by side, with the fastest variant of each machine.

A :class:`Machine` is one source of figures: a bundle (:mod:`attnprof.records.bundle`; its provenance names the
machine and the date) or a publication (:mod:`attnprof.records.published`). Each of its :class:`Entry` is one
variant's time per call and its rate: TFLOP/s for the workloads measured by FLOPs, GB/s for a decoding step (the
workload whose result carries the bytes it moved), with the share of the machine's *own* measured ceiling (the
matmul ceiling of its sweep; the read bandwidth measured beside the decoding step). A publication has no ceilings
here. :func:`compare` groups the entries of every machine by workload, shape and dtype.

Nothing here reads this build's own results: the view shows other machines, and no verdict is made from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attnprof import inputs, noise, variants
from attnprof.noise import Figure
from attnprof.records.bundle import Bundle
from attnprof.records.published import Published
from attnprof.records.results import Result

#: What a machine's figures are: measured (carried in a bundle) or published.
SOURCES = ("bundle", "published")


@dataclass(frozen=True)
class Entry:
    """One variant's figures on one machine.

    Attributes:
        workload: The workload's registry name.
        shape: ``(batch, heads, seq, head_dim)``.
        dtype: Canonical dtype name.
        kv_len: The KV cache length of a decoding step, else ``None``.
        variant: The variant's registry name.
        ms: Time per call (ms).
        rate: TFLOP/s, or GB/s when ``bandwidth``; ``None`` when unknown.
        bandwidth: The rate is a bandwidth (GB/s), not TFLOP/s.
        share: ``rate`` over the machine's own measured ceiling, or ``None`` without one.
        time: ``ms`` with its confidence interval (exact for a published figure: no interval was published).
    """

    workload: str
    shape: tuple[int, ...]
    dtype: str
    kv_len: int | None
    variant: str
    ms: float
    rate: float | None
    bandwidth: bool = False
    share: float | None = None
    time: Figure | None = None

    @property
    def band(self) -> Figure:
        """The time as a figure with its band (the median alone when no band is known)."""
        return self.time or noise.exact(self.ms)

    @property
    def key(self) -> tuple[str, tuple[int, ...], str, int | None]:
        return (self.workload, self.shape, self.dtype, self.kv_len)


@dataclass
class Machine:
    """One source of figures: its name, the date of its figures, where they come from, and the figures.

    Attributes:
        name: The machine (``NVIDIA H200``, ``2× NVIDIA H200``, ``NVIDIA A100-SXM4-80GB``).
        date: Date of the measurements or of the publication (``YYYY-MM-DD``).
        source: One of :data:`SOURCES`.
        origin: The bundle's name, or the publication's URL.
        software: PyTorch / CUDA versions, when known.
        entries: The figures.
    """

    name: str
    date: str
    source: str
    origin: str
    software: str = ""
    entries: list[Entry] = field(default_factory=list)


def entry(result: Result, matmul_tflops: float | None) -> Entry | None:
    """The figures of one result, or ``None`` for one that did not run or was not timed."""
    if not result.ok or result.timing is None or not result.timing.gpu_ms_median:
        return None
    t, d = result.timing, result.decode_figures
    if d is not None:
        rate, share, bandwidth = d.gbs, d.read_fraction, True
    else:
        rate, bandwidth = t.tflops, False
        share = rate / matmul_tflops if rate and matmul_tflops else None
    return Entry(result.workload, tuple(result.shape), result.dtype, result.kv_len, result.variant,
                 t.gpu_ms_median, rate, bandwidth, share, t.gpu)  # fmt: skip


def from_bundle(b: Bundle) -> Machine:
    """The machine of a bundle, with an entry per timed CUDA result.

    Raises:
        attnprof.records.files.UnreadableFile: for a member that is not a file of its kind.
    """
    p = b.provenance
    sw = b.sweep()
    ceiling = sw.ceilings.matmul_tflops if sw is not None and sw.ceilings is not None else None
    found = [entry(r, ceiling) for r in b.results() if r.device == "cuda" and r.variant in variants.VARIANTS]
    software = ", ".join(x for x in (f"PyTorch {p.torch}", p.cuda and f"CUDA {p.cuda}") if x)
    return Machine(p.machine, p.day, "bundle", b.name, software, [e for e in found if e is not None])


def from_published(pub: Published) -> Machine:
    """The machine of a publication: its times, and TFLOP/s from the workload's FLOPs (no ceiling)."""
    flops = inputs.causal_flops(pub.shape)
    found = [
        Entry(pub.workload, tuple(pub.shape), pub.dtype, None, v, ms, flops / (ms * 1e-3) / 1e12)
        for v, ms in pub.gpu_ms.items()
    ]
    return Machine(pub.machine, pub.date, "published", pub.url, "", found)


@dataclass(frozen=True)
class Cell:
    """One machine's figures for one variant of a group, and whether it was that machine's fastest there: the
    lowest median, or a time too close to it to call by the one comparison rule (:func:`attnprof.noise.compare`,
    GPU floor and minimum effect), when ``tied``."""

    machine: Machine
    entry: Entry
    fastest: bool
    tied: bool = False


@dataclass
class Group:
    """Every machine's figures for one workload, shape and dtype: a row per variant (registry order), a cell per
    machine that measured it."""

    workload: str
    shape: tuple[int, ...]
    dtype: str
    kv_len: int | None
    rows: list[tuple[str, list[Cell]]]

    @property
    def machines(self) -> list[Machine]:
        """The machines of the group, in the order given to :func:`compare`."""
        seen: dict[int, Machine] = {}
        for _, cells in self.rows:
            for c in cells:
                seen.setdefault(id(c.machine), c.machine)
        return list(seen.values())


def _tie(a: Entry, b: Entry) -> bool:
    return noise.compare(a.band, b.band, noise.GPU_FLOOR, min_effect=noise.GPU_MIN_EFFECT) == "tie"


def compare(machines: list[Machine], workload: str | None = None) -> list[Group]:
    """The machines' figures grouped by workload, shape and dtype (only ``workload``'s when given), each machine's
    fastest variant of each group marked (the lowest median time, and every time tied with it: :class:`Cell`).
    Workloads come in order of first appearance, the groups of one by shape, dtype and cache length; rows in
    registry order."""
    keys: list[tuple[str, tuple[int, ...], str, int | None]] = []
    for m in machines:
        for e in m.entries:
            if e.key not in keys and (workload is None or e.workload == workload):
                keys.append(e.key)
    # workloads in order of first appearance; within one, by shape and dtype, then cache length
    first = {w: i for i, w in reversed(list(enumerate(k[0] for k in keys)))}
    keys.sort(key=lambda k: (first[k[0]], k[1], k[2], k[3] or 0))
    order = {name: i for i, name in enumerate(variants.VARIANTS)}
    groups = []
    for key in keys:
        rows: dict[str, list[Cell]] = {}
        for m in machines:
            mine = [e for e in m.entries if e.key == key]
            if not mine:
                continue
            best = min(mine, key=lambda e: e.ms)
            fastest = [e for e in mine if e is best or _tie(e, best)]
            for e in mine:
                rows.setdefault(e.variant, []).append(Cell(m, e, e in fastest, e in fastest and len(fastest) > 1))
        ordered = sorted(rows.items(), key=lambda kv: order.get(kv[0], len(order)))
        groups.append(Group(key[0], key[1], key[2], key[3], ordered))
    return groups
