"""
SDPA's own choice
=================

No backend forced: ``F.scaled_dot_product_attention`` picks one by its priority list and the inputs. Which one
does it pick on this GPU, at this shape, and is that the fastest one measured in this build?
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
# Without ``sdpa_kernel`` the call is the plain one-liner most models use.
attn = variants.get("sdpa_auto").build(setup.shape[2], setup.device)
try:
    with torch.no_grad():
        err = inputs.relative_error(attn(q, k, v), inputs.reference_attention(q, k, v))
    print(f"relative error against float64: {err:.1e}")
except Exception as exc:
    print("cannot run here:", str(exc).splitlines()[0])

# %%
# Profile
# -------
# The kernel names reveal the choice; the guide's comparison table puts its time next to each forced backend.
result = profiling.profile("sdpa_auto", setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sdpa_auto__*.json"]
print(report.summary(result))

# %%
# What the GPU ran
# ----------------
# Match the kernel name against the forced backends' pages.
print(report.kernel_table(result))

# %%
# One step on a timeline
# ----------------------
# Compare with the page of the backend it matches: the same kernel, but no forcing context on the CPU lane.
fig = timeline.figure(result)
