"""The published figures (attnprof.records.published): the article's A100 times, each variant a registered one."""

from __future__ import annotations

from attnprof import variants, workloads
from attnprof.records import published


def test_the_article_source_names_its_machine_date_and_registered_variants():
    a = published.ARTICLE
    assert a.machine == "NVIDIA A100-SXM4-80GB" and a.date == "2026-07-10" and a.url.startswith("https://")
    assert a.workload == workloads.article() and set(a.gpu_ms) <= set(variants.VARIANTS)
    # C15: flash is the fastest of the fused backends; C4: math about 3.7x naive in-place
    assert min(a.gpu_ms, key=a.gpu_ms.get) == "sdpa_flash"
    assert round(a.gpu_ms["sdpa_math"] / a.gpu_ms["naive_inplace"], 1) == 3.7
