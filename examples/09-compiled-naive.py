"""
torch.compile of the naive code
===============================

The in-place naive code through ``torch.compile``. Guess what survives: the two matrix products stay library
gemms, while scaling, masking and softmax fuse into one generated kernel. The score matrix is still written to
memory, so this should land between the naive code and the fused backends.
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
# Compilation happens on the first call; the mask is still built outside.
attn = variants.get("compiled_naive").build(setup.shape[2], setup.device)
try:
    with torch.no_grad():
        err = inputs.relative_error(attn(q, k, v), inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except Exception as exc:
    print("cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# Warm-up includes compilation.
result = profiling.profile("compiled_naive", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["compiled_naive__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Two gemm rows and one ``triton_per_fused_...`` row whose name lists the ops it fused.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# Three kernels where the naive code had six or more.
fig = timeline.figure(result)
