"""
Run it: flash
=============

FlashAttention-2 inside PyTorch: one fused kernel that walks over keys and values tile by tile with an online softmax.
The Hugging Face article `“Profiling in PyTorch (Part 3): Attention is all you profile”
<https://huggingface.co/blog/torch-attention-profile>`__ found it the fastest backend, and yet the profiler reported
only about 13% occupancy for it. Profile it here as the article did, then read the register and thread counts the
trace records to see where that figure comes from.

How to read this trace: :doc:`../variants/sdpa-flash`.
"""
# sphinx_gallery_attnprof_budget_s = 2

# %%
# Inputs
# ------
# On a GPU, the article's shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16; without one, a small shape
# on the CPU (no GPU kernels then, and the times describe the CPU).
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import inputs, settings
from attnprof.measure import profiling, reuse
from attnprof.render import report, timeline

lang = settings.language()  # the language of the printed output and of the figure
setup = inputs.default_setup()
print(report.setup_line(setup, lang))
q, k, v = inputs.make_inputs(setup)

# %%
# The call, and a check against float64
# -------------------------------------
# ``sdpa_kernel`` lets SDPA use only the backends it names, here flash alone. Flash needs float16 or bfloat16 on a GPU
# of compute capability 8.0 or newer, and head_dim up to 256; when a condition fails, PyTorch says which.


def attention(q, k, v):
    # the forcing context is entered inside the call, so the profiler records its cost too
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


try:
    with torch.no_grad():
        out = attention(q, k, v)
    error = reuse.once("sdpa_flash_error", lambda: inputs.relative_error(out, inputs.reference_attention(q, k, v)))
    print(report.error_line(error, lang))  # the docs build prints one run in every language
    runs_here = True
except RuntimeError as exc:  # the backend refuses these inputs or this device, and says why
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
                with record_function("sdpa_flash_fwd"):
                    attention(q, k, v)
                if setup.device == "cuda":
                    torch.cuda.synchronize()
                prof.step()
    trace_file = settings.results_dir() / "sdpa_flash_trace.json"
    trace_file.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(trace_file))
print(report.trace_line(trace_file, lang))

# %%
# A first look: the profiler's own table
# --------------------------------------
# ``key_averages()`` adds up each op over the three active steps. On a GPU, sort by the time the GPU spent on each
# op's kernels; on the CPU there is no GPU time, so sort by CPU time. Find ``sdpa_flash_fwd`` and the flash op under
# it.
if runs_here:
    sort_by = "cuda_time_total" if setup.device == "cuda" else "cpu_time_total"
    print(report.first_look_line(sort_by, lang))
    table = prof.key_averages().table(sort_by=sort_by, row_limit=10, max_name_column_width=50)
    print(reuse.once("sdpa_flash_table", table))  # the docs build prints one run's table in every language

# %%
# What attnprof reads from the same trace
# ---------------------------------------
# attnprof parses the trace file you just exported into its active steps, decodes the kernel names and works out the
# occupancy from each kernel's registers, threads and shared memory. It also times the call without the profiler. The
# result is saved where the guide's pages read it.
result = profiling.from_trace("sdpa_flash", setup, trace_file, attention=attention, save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_flash__prefill__*.json"]
print(report.summary(result, lang))

# %%
# Read the registers and the block size of the ``flash_fwd_kernel`` row: registers x threads per block gives the
# register file one block needs, and the SM's register file holds only a few such blocks.
print(report.kernel_table(result, lang=lang))

# %%
# One step on a timeline
# ----------------------
# One kernel per step; compare its length with the efficient backend's.
fig = timeline.figure(result, lang=lang)
