"""
Run it: CPU cost per call
=========================

A profiler trace shows how long the CPU spent on a call, but the profiler itself records every op and so adds to
that time, not equally for every backend. This script measures one call by hand with and without the profiler, then
every variant side by side, then two costs that are the same whatever the shape: the empty ``sdpa_kernel`` context,
and what the profiler adds to each op it records. Last, the whole cost of forcing a backend at every shape of the
decision table: the forced call against SDPA's own choice, issued in the same rounds. The guide's advice about
forcing rests on that last figure, not on the empty context.

Where the guide uses these figures: :doc:`../variants/sdpa-cudnn`.
"""
# sphinx_gallery_attnprof_budget_s = 9

# %%
# Inputs
# ------
# On a GPU, the variant pages' shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16; without one, a small
# shape on the CPU, where the CUDA-only backends report why they cannot run.
import statistics
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

from attnprof import inputs, settings
from attnprof.measure import cpucosts, fixedcosts, reuse
from attnprof.measure import forcing as forcing_costs
from attnprof.render import report

lang = settings.language()  # the language of the printed output
setup = inputs.default_setup()
print(report.setup_line(setup, lang))
q, k, v = inputs.make_inputs(setup)

# %%
# One call by hand
# ----------------
# SDPA's own choice, called twenty times. Without the profiler: the time until the call returns, the GPU idle before
# it (so the call never waits for a full launch queue). With the profiler: the length of the call's
# ``record_function`` range, which is what a trace shows as the call's CPU time.
activities = [ProfilerActivity.CPU]
if setup.device == "cuda":
    activities.append(ProfilerActivity.CUDA)


def sync():
    if setup.device == "cuda":
        torch.cuda.synchronize()


with torch.no_grad():
    for _ in range(3):  # warm-up
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    without_us = []
    for _ in range(20):
        sync()
        t0 = time.perf_counter()
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
        without_us.append((time.perf_counter() - t0) * 1e6)
    sync()
    with profile(activities=activities) as prof:
        for _ in range(20):
            with record_function("sdpa_auto_fwd"):
                F.scaled_dot_product_attention(q, k, v, is_causal=True)
            sync()
annotated = next(e for e in prof.key_averages() if e.key == "sdpa_auto_fwd")
with_us = annotated.cpu_time_total / annotated.count
# the docs build prints one run in every language
by_hand = reuse.once("cpu_by_hand_us", [statistics.median(without_us), with_us])
print(report.cpu_by_hand_line("sdpa_auto", *by_hand, lang))

# %%
# Measure side by side
# --------------------
# CPU timings drift with the machine's state (clock, other processes) by more than the differences between backends,
# so every backend is measured in the same rounds, in turn, and the medians are compared. First without the profiler:
# the time until a call returns (the GPU idle before it); then one profiler session over the same rounds, where the
# length of each ``<variant>_fwd`` range is the profiled CPU time.
costs = cpucosts.measure_cpu_costs(setup=setup, save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["cpu_costs__*.json"]

# %%
# The table
# ---------
# The profiler's share is the part of the profiled time that is not there without the profiler. Compare the
# orderings: a backend that looks expensive in a trace need not be the expensive one without the profiler. Each
# figure comes with the range its median may lie in, from the rounds: where two ranges overlap, this machine cannot
# tell the two backends apart.
print(report.cpu_cost_table(costs, lang))

# %%
# Costs that do not depend on the shape
# -------------------------------------
# Forcing a backend wraps every call in ``sdpa_kernel(...)``, which sets and restores SDPA's backend flags and looks
# at no tensor: its cost is the same for every backend and every shape. So is what the profiler adds to each op it
# records. Both are measured here once, directly, with thousands of calls: the context entered and left with nothing
# inside, and a one-element ``torch.add`` with and without the profiler recording. Subtracting two dispatch costs
# measured at different times would mix in the drift of the machine, which is larger than the cost itself.
fixed = fixedcosts.measure_fixed_costs(setup.device, save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["fixed_costs__*.json"]
print(report.fixed_costs_lines(fixed, lang))

# %%
# The whole cost of forcing, shape by shape
# -----------------------------------------
# The empty context is not all that forcing costs: inside it, SDPA dispatches another way, and the forced call can
# take longer to issue than SDPA's own choice by much more than the context. What a user pays is that whole
# difference, at the shape they run. So at every shape of the decision table (training, prefill at the sweep's
# lengths, decoding at each cache length), SDPA's own choice, every backend it can be forced to and the naive code
# are issued in the same rounds, in turn, the GPU idle before each call; each round gives one difference per forced
# backend, and the rounds give its band.
forcing = forcing_costs.measure_forcing(save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["forcing__*.json"]
print(report.forcing_table(forcing, lang))
