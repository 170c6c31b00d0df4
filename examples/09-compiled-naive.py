"""
Run it: compiled
================

The in-place naive code through ``torch.compile``. Guess what survives: the two matrix products stay library gemms,
while scaling, masking and softmax fuse into one generated kernel. The score matrix is still written to memory, so
this should land between the naive code and the fused backends. The profiler schedule and the shape come from the
Hugging Face article `“Profiling in PyTorch (Part 3): Attention is all you profile”
<https://huggingface.co/blog/torch-attention-profile>`__.

How to read this trace: :doc:`../guide/beyond`.
"""
# sphinx_gallery_attnprof_budget_s = 3

# %%
# Inputs
# ------
# On a GPU, the article's shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16; without one, a small shape
# on the CPU (no GPU kernels then, and the times describe the CPU).
import math

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import inputs, settings
from attnprof.measure import profiling, reuse
from attnprof.render import report, timeline

lang = settings.language()  # the language of the printed output and of the figure
setup = inputs.default_setup()
print(report.setup_line(setup, lang))
q, k, v = inputs.make_inputs(setup)

# %%
# The code, compiled, and a check against float64
# -----------------------------------------------
# The in-place naive code, unchanged, handed to ``torch.compile``. The mask is still built once, outside; the first
# call compiles, which takes seconds.
seq = setup.shape[2]
mask = torch.ones(seq, seq, dtype=torch.bool, device=setup.device).triu(1)


def naive_inplace(q, k, v, mask):
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1))
    scores = scores * scale
    scores.masked_fill_(mask, float("-inf"))  # fills in place: no copy
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v)


compiled = torch.compile(naive_inplace)


def attention(q, k, v):
    return compiled(q, k, v, mask)


try:
    with torch.no_grad():
        out = attention(q, k, v)
    error = reuse.once(
        "compiled_naive_error", lambda: inputs.relative_error(out, inputs.reference_attention(q, k, v))
    )
    print(report.error_line(error, lang))  # the docs build prints one run in every language
    runs_here = True
except Exception as exc:  # no compiler for this device, for instance, and says why
    print(report.refused_line(exc, lang))
    runs_here = False

# %%
# Profile it as the article did
# -----------------------------
# Three calls first, so that one-time work (here, compilation) stays out of the trace. Then five profiler steps with
# the article's schedule: one skipped (``wait``), one recorded and thrown away (``warmup``), three kept (``active``).
# Each forward runs inside ``record_function``, a named range that makes it easy to find in the trace, and the GPU is
# waited for before each ``prof.step()``, so that a step's kernels stay in that step.
activities = [ProfilerActivity.CPU]
if setup.device == "cuda":
    activities.append(ProfilerActivity.CUDA)  # GPU kernels, memcpys and memsets, through CUPTI
trace_file = None  # stays None where the call cannot run

if runs_here:
    with torch.no_grad():
        for _ in range(3):
            attention(q, k, v)
        plan = schedule(wait=1, warmup=1, active=3)
        with profile(activities=activities, schedule=plan, record_shapes=True) as prof:
            for _ in range(5):
                with record_function("compiled_naive_fwd"):
                    attention(q, k, v)
                if setup.device == "cuda":
                    torch.cuda.synchronize()
                prof.step()
    trace_file = settings.results_dir() / "compiled_naive_trace.json"
    trace_file.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(trace_file))
print(report.trace_line(trace_file, lang))

# %%
# A first look: the profiler's own table
# --------------------------------------
# ``key_averages()`` adds up each op over the three active steps. On a GPU, sort by the time the GPU spent on each
# op's kernels; on the CPU there is no GPU time, so sort by CPU time. The matrix products are still there as ATen ops;
# scaling, masking and softmax are gone into one generated function.
if runs_here:
    sort_by = "cuda_time_total" if setup.device == "cuda" else "cpu_time_total"
    print(report.first_look_line(sort_by, lang))
    table = prof.key_averages().table(sort_by=sort_by, row_limit=10, max_name_column_width=50)
    print(reuse.once("compiled_naive_table", table))  # the docs build prints one run's table in every language

# %%
# What attnprof reads from the same trace
# ---------------------------------------
# attnprof parses the trace file you just exported into its active steps, decodes the kernel names and works out the
# occupancy from each kernel's registers, threads and shared memory. It also times the call without the profiler. The
# result is saved where the guide's pages read it.
result = profiling.from_trace(
    "compiled_naive", setup, trace_file, attention=attention, save_to=settings.results_dir()
)
# sphinx_gallery_attnprof_writes = ["compiled_naive__prefill__*.json"]
print(report.summary(result, lang))

# %%
# Two gemm rows and one ``triton_per_fused_...`` row whose name lists the ops it fused.
print(report.kernel_table(result, lang=lang))

# %%
# One step on a timeline
# ----------------------
# Count the kernels of one step and compare with the naive page's timeline.
fig = timeline.figure(result, lang=lang)
