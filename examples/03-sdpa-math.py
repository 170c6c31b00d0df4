"""
SDPA's math backend: the one-liner that is slower
=================================================

``F.scaled_dot_product_attention`` forced to its math backend, PyTorch's reference implementation. One line of
code, so surely fast? The article measured it several times slower than the hand-written version; here is what
this build's trace says, kernel by kernel.
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
# The backend is forced with ``torch.nn.attention.sdpa_kernel`` inside the call, so the forcing is part of what
# the profiler sees.
try:
    with torch.no_grad():
        out = variants.sdpa_attention(q, k, v, "MATH")
    err = inputs.relative_error(out, inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except RuntimeError as exc:
    print("this backend cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# Watch the number of GPU activities per step, and which ops appear on the CPU lane that the naive code never
# called.
result = profiling.profile("sdpa_math", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_math__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Look for three things: the matrix products as FP32 gemms (names with ``f32`` and ``ffma``) instead of bf16
# tensor-core gemms, kernels that build the causal mask again on every call (``triu_tril``, fills, ``where``), and
# the extra kernels of ``_safe_softmax`` that guard rows where everything is masked.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# Many short kernels, each launched separately: the CPU lane is as busy as the GPU lane.
fig = timeline.figure(result)
