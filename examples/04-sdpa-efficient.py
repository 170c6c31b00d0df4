"""
SDPA's memory-efficient backend: one fused kernel
=================================================

The memory-efficient backend runs the whole attention in one CUTLASS kernel from the xFormers lineage; the score
matrix never reaches device memory. Guess: one kernel per step, with a name that tells the dtype, the tile and the
GPU generation it was written for.
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
# The call, and a check against float64
# -------------------------------------
# This backend exists only on CUDA; on the CPU PyTorch refuses it, and the refusal is the output.
try:
    with torch.no_grad():
        out = variants.sdpa_attention(q, k, v, "EFFICIENT_ATTENTION")
    err = inputs.relative_error(out, inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except RuntimeError as exc:
    print("this backend cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# The CPU lane is worth a look too: count the ``aten::transpose`` ops SDPA inserts around the kernel.
result = profiling.profile("sdpa_efficient", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_efficient__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# One row. The ``sm80`` in the name is the architecture the kernel targets; on a newer GPU it still runs, without
# that GPU's newer instructions.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# One kernel per step: the GPU lane is one block, the CPU lane mostly SDPA's own bookkeeping.
fig = timeline.figure(result)
