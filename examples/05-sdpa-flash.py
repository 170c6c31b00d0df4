"""
SDPA's flash backend: low occupancy by design
=============================================

FlashAttention-2 inside PyTorch: one fused kernel that walks over keys and values tile by tile with an online
softmax. The article found it the fastest backend, and yet the profiler reported only about 13% occupancy for it.
Check both claims, and work the occupancy out from the register and thread counts the trace records.
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
# Flash needs float16 or bfloat16 on a GPU of compute capability 8.0 or newer, and head_dim up to 256; PyTorch
# says which condition failed when one does.
try:
    with torch.no_grad():
        out = variants.sdpa_attention(q, k, v, "FLASH_ATTENTION")
    err = inputs.relative_error(out, inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except RuntimeError as exc:
    print("this backend cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# The profiler records, for each kernel, registers per thread, threads per block and shared memory: enough to
# compute how many blocks fit on one SM.
result = profiling.profile("sdpa_flash", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_flash__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Read the registers and the block size of the ``flash_fwd_kernel`` row: registers x threads per block gives the
# register file one block needs, and the SM's register file holds only a few such blocks.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# One kernel per step again; compare its length with the efficient backend's.
fig = timeline.figure(result)
