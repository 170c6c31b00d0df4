"""
Run it: naive
=============

Causal attention written with five basic PyTorch ops, profiled as the Hugging Face article `“Profiling in PyTorch
(Part 3): Attention is all you profile” <https://huggingface.co/blog/torch-attention-profile>`__ profiled it. Before
you look at the output, make a guess: five ops, so five GPU kernels? The trace disagrees, and the reason is one
out-of-place call.

How to read this trace: :doc:`../variants/naive`.
"""
# sphinx_gallery_attnprof_budget_s = 6

# %%
# Inputs
# ------
# On a GPU, the article's shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16; without one, a small shape
# on the CPU. The ops are the same there, but there are no GPU kernels to see and the times describe the CPU.
import math

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import inputs, settings
from attnprof.measure import profiling, reuse
from attnprof.render import report, timeline, viewer

lang = settings.language()  # the language of the printed output and of the figure
setup = inputs.default_setup()
print(report.setup_line(setup, lang))
q, k, v = inputs.make_inputs(setup)

# %%
# The code, and a check against float64
# -------------------------------------
# Scale the scores, hide the future with the causal mask, softmax, and weigh the values. The mask is built once,
# outside the code being profiled: ``True`` above the diagonal, where a query would look ahead.
seq = setup.shape[2]
mask = torch.ones(seq, seq, dtype=torch.bool, device=setup.device).triu(1)


def attention(q, k, v):
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1))  # [batch, heads, seq, seq]
    scores = scores * scale
    scores = scores.masked_fill(mask, float("-inf"))  # copies scores, then fills the copy
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v)  # [batch, heads, seq, head_dim]


try:
    with torch.no_grad():
        out = attention(q, k, v)
    error = reuse.once("naive_error", lambda: inputs.relative_error(out, inputs.reference_attention(q, k, v)))
    print(report.error_line(error, lang))  # the docs build prints one run in every language
    runs_here = True
except RuntimeError as exc:  # a call that fails (out of memory, say) says why
    print(report.refused_line(exc, lang))
    runs_here = False

# %%
# Profile it as the article did
# -----------------------------
# Three calls first, so that one-time work stays out of the trace. Then five profiler steps with the article's
# schedule: one skipped (``wait``), one recorded and thrown away (``warmup``), three kept (``active``). Each forward
# runs inside ``record_function``, a named range that makes it easy to find in the trace, and the GPU is waited for
# before each ``prof.step()``, so that a step's kernels stay in that step.
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
                with record_function("naive_fwd"):
                    attention(q, k, v)
                if setup.device == "cuda":
                    torch.cuda.synchronize()
                prof.step()
    trace_file = settings.results_dir() / "naive_trace.json"
    trace_file.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(trace_file))
print(report.trace_line(trace_file, lang))

# %%
# A first look: the profiler's own table
# --------------------------------------
# ``key_averages()`` adds up each op over the three active steps. On a GPU, sort by the time the GPU spent on each
# op's kernels; on the CPU there is no GPU time, so sort by CPU time. Look for ``aten::masked_fill`` and, under it, an
# ``aten::clone`` that nobody wrote.
if runs_here:
    sort_by = "cuda_time_total" if setup.device == "cuda" else "cpu_time_total"
    print(report.first_look_line(sort_by, lang))
    table = prof.key_averages().table(sort_by=sort_by, row_limit=12, max_name_column_width=50)
    print(reuse.once("naive_table", table))  # the docs build prints one run's table in every language

# %%
# What attnprof reads from the same trace
# ---------------------------------------
# attnprof parses the trace file you just exported into its active steps, decodes the kernel names and works out the
# occupancy from each kernel's registers, threads and shared memory. It also times the call without the profiler. The
# result is saved where the guide's pages read it.
result = profiling.from_trace("naive", setup, trace_file, attention=attention, save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["naive__prefill__*.json"]
print(report.summary(result, lang))

# %%
# Count the rows before reading them. Look for a ``Memcpy DtoD`` between the scaling kernel and the masking kernel:
# ``masked_fill`` first copies the whole score matrix, then fills the copy.
print(report.kernel_table(result, lang=lang))

# %%
# One step on a timeline
# ----------------------
# The CPU lane shows the ops nested under ``naive_fwd``; the GPU lane the kernels they launched, joined by a line from
# each launch call to its kernel. The picture is one step; below it, on the site, the same trace can be explored:
# every active step, zoom, a tooltip per slice, a click on a launch to find its kernel, and a button that opens the
# trace in Perfetto.
fig = timeline.figure(result, lang=lang)
viewer.embed(result, lang=lang) if result.ok else None
