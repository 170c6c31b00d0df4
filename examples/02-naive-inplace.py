"""
In-place masking: one line, one copy less
=========================================

The naive code again with a single change: ``masked_fill_`` instead of ``masked_fill``. The guess to check: the
device-to-device copy disappears from every step, and with it the time the GPU spent moving the whole score
matrix.
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
# The only difference from the naive variant is the trailing underscore. In-place writes are safe here because no
# gradient is recorded and nothing else holds the score tensor.
attn = variants.get("naive_inplace").build(setup.shape[2], setup.device)
try:
    with torch.no_grad():
        err = inputs.relative_error(attn(q, k, v), inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except Exception as exc:
    print("cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# Same schedule as every other variant: three warm-up calls, then wait 1, warm-up 1, active 3.
result = profiling.profile("naive_inplace", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["naive_inplace__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Compare with the naive table: the memcpy row should be gone, every other row unchanged.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# The gap between the scaling kernel and the masking kernel, where the copy used to run, should close.
fig = timeline.figure(result)
