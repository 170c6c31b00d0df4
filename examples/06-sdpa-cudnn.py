"""
SDPA's cuDNN backend: a generated kernel and a driver-API launch
================================================================

cuDNN builds an attention kernel for the problem at hand. Its trace looks different in two ways the article points
out: no ``aten::transpose`` on the CPU lane, and a launch through the driver API (``cuLaunchKernelEx``) for which
the profiler shows 0% occupancy. Check both, and whether the CPU side really costs more.
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
# cuDNN attention needs CUDA, cuDNN 9 or newer and float16/bfloat16.
try:
    with torch.no_grad():
        out = variants.sdpa_attention(q, k, v, "CUDNN_ATTENTION")
    err = inputs.relative_error(out, inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except RuntimeError as exc:
    print("this backend cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# Compare the profiled CPU time of ``sdpa_cudnn_fwd`` with the flash and efficient pages, then with the dispatch
# cost measured without the profiler: the two need not agree.
result = profiling.profile("sdpa_cudnn", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_cudnn__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# The kernel name spells out the target architecture, the MMA instruction family (``wmma`` or ``wgmma``), the
# tuning knob and the tile. Check the launch API column and the reported occupancy.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# A memset before the kernel, and both launched from one SDPA call.
fig = timeline.figure(result)
