"""
FlexAttention: a kernel generated for your mask
===============================================

FlexAttention turns a mask written as a Python function into one Triton kernel through ``torch.compile``, skipping
blocks the causal mask hides entirely. The first call compiles (seconds); after that, guess: one kernel per step,
launched through the driver API like every Triton kernel.
"""

# %%
# Inputs
# ------
# The reference shape in bfloat16 on a GPU; a small shape on the CPU when there is none (no GPU kernels then,
# and the times describe the CPU).
import torch

from attnprof import inputs, profiling, report, timeline, variants

setup = inputs.default_setup()
print("running:", setup.describe())
q, k, v = inputs.make_inputs(setup)

# %%
# Build it, and check against float64
# -----------------------------------
# The block mask is built once, outside the timed region; the first call compiles the kernel.
attn = variants.get("flex").build(setup.shape[2], setup.device)
try:
    with torch.no_grad():
        err = inputs.relative_error(attn(q, k, v), inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except Exception as exc:
    print("cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# Warm-up includes compilation, so the three warm-up calls take far longer than the profiled ones.
result = profiling.profile("flex", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["flex__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# One ``triton_tem_fused_flex_attention`` row: a Triton template kernel. Compare its registers and shared memory
# with flash's.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# Almost nothing on the CPU lane: the compiled wrapper launches the kernel directly.
fig = timeline.figure(result)
