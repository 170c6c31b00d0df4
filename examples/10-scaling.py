"""
Run it: the sequence-length sweep
=================================

Every variant at several sequence lengths and two head dims, measured next to the two ceilings of the device: how
fast it multiplies matrices and how fast it moves bytes. Before you run it, guess which curves bend: time grows with
the square of the length for every variant, but memory does so only for the variants that write the whole score
matrix, and those are the ones that run out of it first.

What the sweep shows: :doc:`../guide/scaling`.
"""
# sphinx_gallery_attnprof_budget_s = 18

# %%
# The plan
# --------
# On a GPU: batch 8, 16 heads, bfloat16, sequence lengths 512 to 16384, head_dim 64 and 128, eight variants.
# FlexAttention compiles a new kernel for every shape (seconds each), so it runs at three lengths only. Without a GPU
# the script runs a tiny sweep on the CPU instead: the same code, but times that describe the CPU.
import time

import torch
import torch.nn.functional as F

from attnprof import settings
from attnprof.measure import reuse, sweeprun
from attnprof.records import sweep
from attnprof.render import report, scalingplot

lang = settings.language()  # the language of the printed output and of the figure
config = sweeprun.default_config()
print(report.sweep_plan(config, lang))

# %%
# One point by hand
# -----------------
# Every point of the sweep is measured the same way: a few calls to warm up, then single calls, each timed on its own
# with CUDA events on a GPU (``perf_counter`` on the CPU), and the median kept. Here is one point, SDPA's own choice
# at the second sequence length, written out.
seq, head_dim = config.seqs[1], config.head_dims[0]
dtype = getattr(torch, config.dtype)
q, k, v = (
    torch.randn(config.batch, config.heads, seq, head_dim, device=config.device, dtype=dtype) for _ in range(3)
)
samples_ms = []
with torch.no_grad():
    for _ in range(2):  # warm-up
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    for _ in range(10):
        if config.device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()  # queued on the GPU before the call's kernels ...
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            end.record()  # ... and after them: the GPU's own clock times what lies between
            end.synchronize()
            samples_ms.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
            samples_ms.append((time.perf_counter() - t0) * 1e3)
samples_ms = reuse.once("scaling_one_point_ms", samples_ms)  # the docs build prints one run in every language
print(report.one_point_line(seq, samples_ms, config.device, lang))
del q, k, v

# %%
# The ceilings
# ------------
# A bf16 matrix multiply of 8192 x 8192 by 8192 x 8192 is the fastest arithmetic the GPU does; a copy of 2 GiB from
# device memory to device memory is the fastest it moves bytes (counting what it reads and what it writes). Attention
# cannot beat either.
ceilings = sweeprun.measure_ceilings(config.device)
print(report.ceilings_line(ceilings, lang))

# %%
# The sweep
# ---------
# Each point is timed the way the variant pages time their shape (the same function, the same plan): warm-up, then
# ten to a hundred timed calls (seven for slow ones), the median kept; a point whose calls spread widely is measured
# again, and flagged if it spreads again. A variant that runs out of memory at one length is not tried at longer
# ones. Last, the points the sweep itself contradicts are measured a second time: slower than the variant page
# measured the same shape, slower than at a longer length, or SDPA's own call and the backend it runs disagreeing.
# The result is saved for the guide's pages.
pages = sweeprun.page_references(settings.results_dir(), config)
result = sweeprun.run_sweep(config, ceilings=ceilings, references=pages)
path = sweep.save(result, settings.results_dir())
# sphinx_gallery_attnprof_writes = ["sweep__*.json"]
print(report.sweep_saved_line(result, path, lang))

# %%
# Time per forward call
# ---------------------
# Read down a column to compare variants at one length, along a row to see one variant grow: doubling the length
# should multiply the time by about four once the GPU is busy.
print(report.sweep_table(result, "gpu_ms", lang=lang))

# %%
# Memory
# ------
# The extra device memory one call needs. The fused kernels grow with the length, the variants that write the score
# matrix with its square (the CPU has no such counter, so a CPU run shows none).
print(report.sweep_table(result, "peak_mib", lang=lang))

# %%
# SDPA's pick, and where the CPU is the bottleneck
# ------------------------------------------------
# At each point: the backend SDPA ran with nothing forced, the fastest backend measured there, and the points where
# issuing the call took the CPU longer than the GPU took to run it.
print(report.sweep_summary(result, lang))

# %%
# The picture
# -----------
# Log-log axes: a cost that grows with the square of the length is a straight line of slope 2, like the dotted
# reference. Crosses at the top mark points that ran out of memory.
fig = scalingplot.figure(result, "gpu_ms", lang=lang)
