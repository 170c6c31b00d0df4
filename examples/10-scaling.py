"""
How cost grows with sequence length
===================================

Every variant at several sequence lengths and two head dims, measured next to the two ceilings of the device:
how fast it multiplies matrices and how fast it moves bytes. Before you run it, guess which curves bend: time
grows with the square of the length for every variant, but memory does so only for the variants that write the
whole score matrix, and those are the ones that run out of it first.
"""

# %%
# The plan
# --------
# On a GPU: batch 8, 16 heads, bfloat16, sequence lengths 512 to 16384, head_dim 64 and 128, eight variants.
# FlexAttention compiles a new kernel for every shape (seconds each), so it runs at three lengths only. Without a
# GPU the script runs a tiny sweep on the CPU instead: the same code, but times that describe the CPU.
from attnprof import inputs, report, scalingplot, sweep, sweeprun

config = sweeprun.default_config()
print(f"device: {config.device}; variants: {', '.join(config.variants)}")
print(
    f"seq: {list(config.seqs)}; head_dim: {list(config.head_dims)}; batch {config.batch}, {config.heads} heads, "
    f"{config.dtype}"
)
if config.compiled_seqs is not None:
    print(f"compiled variants at seq {list(config.compiled_seqs)} only")

# %%
# The ceilings
# ------------
# A bf16 matrix multiply of 8192 x 8192 by 8192 x 8192 is the fastest arithmetic the GPU does; a copy of 2 GiB from
# device memory to device memory is the fastest it moves bytes (counting what it reads and what it writes).
# Attention cannot beat either.
ceilings = sweeprun.measure_ceilings(config.device)
if ceilings is None:
    print("no ceilings on the CPU")
else:
    print(
        f"matmul: {ceilings.matmul_tflops:.0f} TFLOP/s; copy: {ceilings.bandwidth_gbs:.0f} GB/s; "
        f"they meet at {ceilings.ridge:.0f} FLOP/byte"
    )

# %%
# The sweep
# ---------
# Each point is timed the way the variant pages time their shape (the same function, the same plan): warm-up,
# then ten to a hundred timed calls (seven for slow ones), the median kept; a point whose calls spread widely is
# measured again, and flagged if it spreads again. A variant that runs out of memory at one length is not tried at
# longer ones. The result is saved for the guide's pages.
result = sweeprun.run_sweep(config, ceilings=ceilings)
path = sweep.save(result, inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["sweep__*.json"]
print(f"{len(result.points)} points in {result.elapsed_s:.1f} s, saved to {path.name}")

# %%
# Time per forward call
# ---------------------
# Read down a column to compare variants at one length, along a row to see one variant grow: doubling the length
# should multiply the time by about four once the GPU is busy.
print(report.sweep_table(result, "gpu_ms"))

# %%
# Memory
# ------
# The extra device memory one call needs. The fused kernels grow with the length, the variants that write the
# score matrix with its square (the CPU has no such counter, so a CPU run shows none).
print(report.sweep_table(result, "peak_mib"))

# %%
# SDPA's pick, and where the CPU is the bottleneck
# ------------------------------------------------
# At each point: the backend SDPA ran with nothing forced, the fastest backend measured there, and the points where
# issuing the call took the CPU longer than the GPU took to run it.
print(report.sweep_summary(result))

# %%
# The picture
# -----------
# Log-log axes: a cost that grows with the square of the length is a straight line of slope 2, like the dotted
# reference. Crosses at the top mark points that ran out of memory.
fig = scalingplot.figure(result, "gpu_ms")
