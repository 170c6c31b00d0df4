"""Figures published elsewhere, shown beside measured ones and labelled as published: never measured here, never
feeding a verdict.

One source today: the article this guide checks ("Profiling in PyTorch (Part 3): Attention is all you profile",
Hugging Face blog, 2026-07-10), which profiled the prefill forward on an NVIDIA A100-SXM4-80GB and reported, per
forward, the average CUDA time of each variant's ``*_fwd`` annotation under the profiler (claims C4 and C15 of
/work/shared/reference/published-claims.md). These are the only numbers in attnprof typed by hand; they are the
article's, with its machine and date.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Published:
    """Per-variant times one publication reported for one workload and shape.

    Attributes:
        machine: The GPU it ran on.
        date: Publication date (ISO 8601).
        title: The publication's title.
        url: Where to read it.
        workload: The workload (:mod:`attnprof.workloads`) of the figures.
        shape: ``[batch, heads, seq, head_dim]``.
        dtype: Canonical dtype name.
        gpu_ms: Variant -> time per call (ms) as published.
        timer: How the publication timed it, in words of the word table (``crossgpu.timer.<timer>``).
    """

    machine: str
    date: str
    title: str
    url: str
    workload: str
    shape: tuple[int, int, int, int]
    dtype: str
    gpu_ms: dict[str, float] = field(default_factory=dict)
    timer: str = "profiler"


ARTICLE = Published(
    machine="NVIDIA A100-SXM4-80GB",
    date="2026-07-10",
    title="Profiling in PyTorch (Part 3): Attention is all you profile",
    url="https://huggingface.co/blog/torch-attention-profile",
    workload="prefill",
    shape=(8, 16, 1024, 64),
    dtype="bfloat16",
    # C4: math 7.239 ms, naive in-place 1.955 ms; C15: efficient 277.9 µs, flash 146.8 µs, cuDNN 186.3 µs
    gpu_ms={
        "naive_inplace": 1.955,
        "sdpa_math": 7.239,
        "sdpa_efficient": 0.2779,
        "sdpa_flash": 0.1468,
        "sdpa_cudnn": 0.1863,
    },
)

#: Every published source the cross-GPU view shows.
SOURCES: tuple[Published, ...] = (ARTICLE,)
