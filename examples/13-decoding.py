"""
Run it: a decoding step
=======================

When a model generates text, each new token attends to every token before it: one query row against a cache of keys
and values that grows with the text. With grouped-query attention, several query heads share each head of that cache.
The step does little arithmetic and reads the whole cache, so it is bound by memory bandwidth at long caches and by
the CPU's launch overhead at short ones. Profile one decoding step the way the Hugging Face article `“Profiling in
PyTorch (Part 3): Attention is all you profile” <https://huggingface.co/blog/torch-attention-profile>`__ profiled a
forward, see which backends accept grouped heads, measure how close each gets to the GPU's read bandwidth, and replay
the step from a CUDA graph to see what the CPU saves.

How to read these traces: :doc:`../guide/decoding`.
"""
# sphinx_gallery_attnprof_budget_s = 5

# %%
# Inputs
# ------
# On a GPU: a batch of 8 sequences, 32 query heads sharing 8 KV heads (4 query heads per group), head_dim 128,
# bfloat16, one new token against a cache of 1024 positions. Without a GPU, a small shape on the CPU with the same
# grouping (no GPU kernels then, no CUDA graph, and the times describe the CPU).
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import settings, workloads
from attnprof.analysis import summary
from attnprof.analysis.workload_rows import Build
from attnprof.inputs import relative_error
from attnprof.measure import profiling, reuse, steps
from attnprof.render import report, timeline, workloadreport

t_start = time.perf_counter()
lang = settings.language()  # the language of the printed output and of the figure
setup = workloads.default_setup("decode")
print(workloadreport.setup_line(setup, "decode", lang))
q, k, v = steps.decode_inputs(setup)  # q [B, 32, 1, D]; k, v [B, 8, L, D]: the cache

# %%
# One decoding step, and a check
# ------------------------------
# ``enable_gqa=True`` lets SDPA share each KV head among its group of query heads without copying the cache. No mask:
# the new token may see every cached position. The reference is the same attention written out in float32.


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


with torch.no_grad():
    out = attention(q, k, v)
    error = reuse.once("decoding_error", lambda: relative_error(out, steps.decode_reference(q, k, v)))
    print(workloadreport.decode_error_line(error, lang))  # the docs build prints one run in every language

# %%
# A pitfall: ``is_causal=True`` with one query row
# ------------------------------------------------
# It looks right for a decoder, but SDPA aligns the causal mask to the top left of the ``[1, L]`` score matrix: the
# one query row is position 0, so it may see key 0 only. Some backends run it and return that wrong answer, flash
# refuses it. Never pass ``is_causal=True`` to a decoding step.


def causal_pitfall():
    with torch.no_grad():
        try:
            wrong = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            return relative_error(wrong, out)
        except RuntimeError as exc:  # a backend that refuses it says why
            return str(exc)


outcome = reuse.once("decoding_causal_pitfall", causal_pitfall)  # the docs build prints one run in every language
print(workloadreport.causal_pitfall_line(outcome, lang))

# %%
# Profile it as the article did
# -----------------------------
# The same schedule as every page (``wait=1, warmup=1, active=3``), each step inside ``record_function``.
activities = [ProfilerActivity.CPU]
if setup.device == "cuda":
    activities.append(ProfilerActivity.CUDA)
with torch.no_grad():
    for _ in range(3):
        attention(q, k, v)
    with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            with record_function("sdpa_auto_decode"):
                attention(q, k, v)
            if setup.device == "cuda":
                torch.cuda.synchronize()
            prof.step()
trace_file = settings.results_dir() / "sdpa_auto_decode_trace.json"
trace_file.parent.mkdir(parents=True, exist_ok=True)
prof.export_chrome_trace(str(trace_file))
print(report.trace_line(trace_file, lang))
sort_by = "cuda_time_total" if setup.device == "cuda" else "cpu_time_total"
print(report.first_look_line(sort_by, lang))
table = prof.key_averages().table(sort_by=sort_by, row_limit=8, max_name_column_width=60)
print(reuse.once("decoding_table", table))  # the docs build prints one run's table in every language

# %%
# The step as a CUDA graph
# ------------------------
# A CUDA graph records the kernels of one step once; replaying it launches them all with one call, so the CPU's
# per-kernel work disappears. The inputs must stay where they were captured: a real decoder copies each new token
# into the same buffers before replaying.
if setup.device == "cuda":
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):  # warm up outside the capture, on a side stream
            attention(q, k, v)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        static_out = attention(q, k, v)
    graph.replay()
    torch.cuda.synchronize()
    error = reuse.once("decoding_graph_error", lambda: relative_error(static_out, out))
    print(workloadreport.replay_line(error, lang))  # the docs build prints one run in every language
    del graph, static_out

# %%
# Every backend, over cache lengths
# ---------------------------------
# attnprof profiles the decoding step of every variant that decodes, over cache lengths (on a GPU 1024, 16384 and
# 131072; the slow variants stop at 16384 and FlexAttention, which compiles a kernel per length, runs there only),
# measures the GPU's read bandwidth once, and at the shortest cache, where the CPU weighs most, compares the step
# replayed from a CUDA graph with the eager one. A backend that refuses grouped heads records PyTorch's reason.
found = []
for planned in workloads.plan("decode", setup.device):
    found.append(profiling.profile(planned.variant, planned.setup, workload="decode", graph=planned.graph,
                                   save_to=settings.results_dir()))  # fmt: skip
# sphinx_gallery_attnprof_writes = ["*__decode__*.json"]
build = Build({"decode": [summary.analyse(r) for r in found]})
print(workloadreport.decode_table(build.decode_rows(), lang))

# %%
# What the CUDA graph saved
# -------------------------
# CPU time to issue one step, wall time of one step from an idle GPU, and GPU time, eager and replayed.
for row in build.graph_rows():
    print(workloadreport.graph_line(row, lang))  # or why the variant has no CUDA graph

# %%
# One decoding step on a timeline
# -------------------------------
# SDPA's own choice at the longest cache it ran: on a GPU, a split-KV kernel that spreads the cache over the SMs
# and a small kernel that combines their partial results.
ran = [r for r in found if r.variant == "sdpa_auto" and r.ok]
if ran:
    longest = max(ran, key=lambda r: r.kv_len or 0)
    print(workloadreport.workload_summary(longest, lang))
    print(report.kernel_table(longest, lang=lang))
    fig = timeline.figure(longest, lang=lang)
else:
    reason = next((r.reason for r in found if r.variant == "sdpa_auto"), None)
    print(workloadreport.auto_not_run_line(reason, lang))
print(workloadreport.elapsed_line(reuse.once("decoding_elapsed_s", time.perf_counter() - t_start), lang))
