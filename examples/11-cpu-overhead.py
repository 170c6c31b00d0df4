"""
What a call costs the CPU, with and without the profiler
========================================================

A profiler trace shows how long the CPU spent on a call, but the profiler itself records every op and so adds to
that time, not equally for every backend. This script measures the four SDPA variants side by side, with the
profiler and without it, plus the cost of the ``sdpa_kernel`` context that forces a backend, so that the CPU
claims of the guide can be checked without the profiler's own cost mixed in.
"""

# %%
# Inputs
# ------
# The reference shape in bfloat16 on a GPU; a small shape on the CPU when there is none, where the CUDA-only
# backends report why they cannot run.
from attnprof import inputs, profiling, report

setup = inputs.default_setup()
print("running:", setup.describe())

# %%
# Measure side by side
# --------------------
# CPU timings drift with the machine's state (clock, other processes) by more than the differences between
# backends, so every backend is measured in the same rounds, in turn, and the medians are compared. First without
# the profiler: the time until a call returns (the GPU idle before it) and the forcing context alone; then one
# profiler session over the same rounds, where the length of each ``<variant>_fwd`` annotation is the profiled
# CPU time.
costs = profiling.measure_cpu_costs(setup=setup, save_to=inputs.results_dir())
# sphinx_gallery_attnprof_writes = ["cpu_costs__*.json"]

# %%
# The table
# ---------
# The profiler's share is the part of the profiled time that is not there without the profiler. Compare the
# orderings: a backend that looks expensive in a trace need not be the expensive one without the profiler. Each
# figure comes with the range its median may lie in, from the rounds: where two ranges overlap, this machine
# cannot tell the two backends apart.
print(report.cpu_cost_table(costs))
