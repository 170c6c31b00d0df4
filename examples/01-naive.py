"""
Naive attention: five ops, and a copy nobody asked for
======================================================

Causal attention written with five basic PyTorch ops, profiled as the guide profiles every variant. Before you
look at the output, make a guess: five ops, so five GPU kernels? The trace disagrees, and the reason is one
out-of-place call.
"""

# %%
# Inputs
# ------
# On a GPU this is the reference shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16. Without a GPU
# the script falls back to a small shape on the CPU: the op sequence is the same, but there are no GPU kernels
# to see and the times say nothing about a GPU.
import torch

from attnprof import inputs, profiling, report, timeline, variants, viewer

setup = inputs.default_setup()
print("running:", setup.describe())
if setup.device == "cpu":
    print("no CUDA device: CPU run with a small shape; GPU lanes will be empty")
q, k, v = inputs.make_inputs(setup)

# %%
# The code, and a check against float64
# -------------------------------------
# ``variants.naive_attention`` is the code being profiled. The causal mask is built once, outside the timed
# region, exactly as ``variants.get("naive").build`` does.
mask = variants.causal_mask(setup.shape[2], setup.device)
with torch.no_grad():
    out = variants.naive_attention(q, k, v, mask)
    err = inputs.relative_error(out, inputs.reference_attention(q, k, v))
print(f"relative error against float64: {err:.1e}")

# %%
# Profile
# -------
# Three warm-up calls, then five profiler steps (wait 1, warm-up 1, active 3), each forward inside
# ``record_function("naive_fwd")``. The result is also saved for the docs pages.
result = profiling.profile("naive", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["naive__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Count the rows before reading them. Look for a ``Memcpy DtoD`` between the scaling kernel and the masking
# kernel: ``masked_fill`` first copies the whole score matrix, then fills the copy.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# The CPU lane shows the ops nested under ``naive_fwd``; the GPU lane the kernels they launched, joined by a line
# from each launch call to its kernel. The picture is one step; below it, on the site, the same trace can be
# explored: every active step, zoom, a tooltip per slice, a click on a launch to find its kernel, and a button
# that opens the trace in Perfetto.
fig = timeline.figure(result)
viewer.embed(result)
