"""
Run it: a training step
=======================

A training step runs attention twice: the forward computes the output, the backward computes the gradients of
``q``, ``k`` and ``v`` from the gradient of the output. The backward has its own kernels, does more work, and on a GPU
it is issued from a different CPU thread, which changes where its launches appear in the trace. Profile one training
step the way the Hugging Face article `“Profiling in PyTorch (Part 3): Attention is all you profile”
<https://huggingface.co/blog/torch-attention-profile>`__ profiled a forward, read where the backward went, then
compare every variant's step: time, the backward's share, and the memory each keeps between the two passes. Last,
time the forward and the backward of each SDPA backend from 1k to 16k tokens, as a kernel benchmark does, and plot
TFLOP/s against length.

How to read these traces: :doc:`../guide/training`.
"""
# sphinx_gallery_attnprof_budget_s = 10

# %%
# Inputs
# ------
# On a GPU, the article's shape ``[batch=8, heads=16, seq=1024, head_dim=64]`` in bfloat16; without one, a small shape
# on the CPU (no GPU kernels then, and the times describe the CPU). The inputs are leaves that require gradients, and
# the gradient that flows back from the rest of a model is fixed here: one random tensor, the same for every variant.
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import inputs, settings, workloads
from attnprof.analysis import summary
from attnprof.analysis.workload_rows import Build
from attnprof.measure import profiling, reuse, trainscale
from attnprof.records import trainscale as trainscale_records
from attnprof.render import report, timeline, trainplot, workloadreport

t_start = time.perf_counter()
lang = settings.language()  # the language of the printed output and of the figure
setup = workloads.default_setup("train")
print(workloadreport.setup_line(setup, "train", lang))
q, k, v = (t.requires_grad_() for t in inputs.make_inputs(setup))
grad = torch.randn(setup.shape, generator=torch.Generator().manual_seed(7)).to(setup.device, q.dtype)

# %%
# One training step, and a check against float64
# ----------------------------------------------
# SDPA without a forced backend: it picks one for these inputs, now with gradients required. ``out.backward(grad)``
# runs the backward. The gradients are compared with those of the same attention written out in float64.


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


out = attention(q, k, v)
out.backward(grad)


def gradient_errors():
    ref_inputs = [t.detach().double().requires_grad_() for t in (q, k, v)]
    inputs.reference_attention(*ref_inputs).backward(grad.double())
    return [inputs.relative_error(t.grad, r.grad) for t, r in zip((q, k, v), ref_inputs, strict=True)]


errors = reuse.once("training_grad_errors", gradient_errors)  # the docs build prints one run in every language
for name, error in zip("qkv", errors, strict=True):
    print(workloadreport.grad_error_line(name, error, lang))

# %%
# Profile it as the article did, with the backward annotated too
# --------------------------------------------------------------
# Three steps first, so that one-time work stays out of the trace. Then five profiler steps with the article's
# schedule (``wait=1, warmup=1, active=3``). Each training step runs inside ``record_function("sdpa_auto_train")``,
# with the forward and the backward in ranges of their own, and the GPU is waited for before each ``prof.step()``.
activities = [ProfilerActivity.CPU]
if setup.device == "cuda":
    activities.append(ProfilerActivity.CUDA)


def step():
    q.grad = k.grad = v.grad = None  # a fresh step: gradients are set, not accumulated
    with record_function("sdpa_auto_fwd"):
        out = attention(q, k, v)
    with record_function("sdpa_auto_bwd"):
        out.backward(grad)


for _ in range(3):
    step()
with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
    for _ in range(5):
        with record_function("sdpa_auto_train"):
            step()
        if setup.device == "cuda":
            torch.cuda.synchronize()
        prof.step()
trace_file = settings.results_dir() / "sdpa_auto_train_trace.json"
trace_file.parent.mkdir(parents=True, exist_ok=True)
prof.export_chrome_trace(str(trace_file))
print(report.trace_line(trace_file, lang))

# %%
# A first look: the profiler's own table
# --------------------------------------
# ``key_averages()`` adds up each op over the three active steps. The backward's ops are named after the forward op
# they differentiate (``...Backward0``), and the autograd engine wraps each in ``evaluate_function``.
sort_by = "cuda_time_total" if setup.device == "cuda" else "cpu_time_total"
print(report.first_look_line(sort_by, lang))
table = prof.key_averages().table(sort_by=sort_by, row_limit=12, max_name_column_width=60)
print(reuse.once("training_table", table))  # the docs build prints one run's table in every language

# %%
# Every variant, one training step each
# -------------------------------------
# attnprof runs the same step for every variant that trains, except the two that compile (compiling a backward takes
# seconds; profile them with ``attnprof profile flex --workload train``), times the whole step and the forward alone
# without the profiler, and measures the memory the forward leaves for the backward. It reads each trace with the
# backward's launches taken from the autograd thread, and saves the results for the guide's pages.
found = []
for planned in workloads.plan("train", setup.device):
    found.append(profiling.profile(planned.variant, planned.setup, workload="train", save_to=settings.results_dir()))
# sphinx_gallery_attnprof_writes = ["*__train__*.json"]
build = Build({"train": [summary.analyse(r) for r in found]})
print(workloadreport.train_table(build.train_rows(), lang))

# %%
# The backward's kernels
# ----------------------
# SDPA's own choice, backward only: the kernels launched inside ``sdpa_auto_bwd``, whichever thread launched them.
auto = next(r for r in found if r.variant == "sdpa_auto")
print(workloadreport.workload_summary(auto, lang))
print(report.kernel_table(auto, lang=lang, phase="bwd"))

# %%
# One training step on a timeline
# -------------------------------
# The forward's ops sit under ``sdpa_auto_fwd`` on the main thread. Under ``sdpa_auto_bwd`` the main thread only
# waits; on a GPU the backward's ops and launches are on the rows of the autograd thread below.
fig = timeline.figure(auto, lang=lang)

# %%
# Across lengths and head dims: one point by hand
# -----------------------------------------------
# A kernel benchmark times the forward and the backward apart, at many lengths, and gives each as TFLOP/s. One point
# written out: SDPA's own choice, causal, head_dim 64, at the longest length of the grid below, with as many tokens
# per batch as every point of it. The forward is timed with autograd recording, as in training. The backward is
# timed as ``out.backward(grad, retain_graph=True)`` on one forward's graph, so that each call is the backward alone.
# The count: ``4·B·H·S²·D`` for the forward, halved by the causal mask; the backward 2.5 times the forward.
seq = max(workloads.TRAIN_SCALE_LENS if setup.device == "cuda" else workloads.CPU_TRAIN_SCALE_LENS)
shape = workloads.train_scale_shape(seq, 64, setup.device)
q_long, k_long, v_long = (
    torch.randn(shape, device=setup.device, dtype=q.dtype, requires_grad=True) for _ in range(3)
)
grad_long = torch.randn(shape, device=setup.device, dtype=q.dtype)


def timed_ms(fn, reps=5):
    fn()  # warm-up
    samples = []
    for _ in range(reps):
        if setup.device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
    return sorted(samples)[reps // 2]


fwd_ms = timed_ms(lambda: attention(q_long, k_long, v_long))
out_long = attention(q_long, k_long, v_long)
bwd_ms = timed_ms(lambda: out_long.backward(grad_long, retain_graph=True))
by_hand = reuse.once("training_by_hand", [fwd_ms, bwd_ms])  # the docs build prints one run in every language
print(trainplot.by_hand_line(shape, by_hand[0], by_hand[1], workloads.forward_flops(shape, causal=True), lang))
out_long = q_long = k_long = v_long = grad_long = None  # free the device memory before the grid

# %%
# The grid
# --------
# The same for each SDPA backend forced, at head_dim 64 and 128, causal and without a mask, from 1k to 16k tokens on
# a GPU (tiny lengths on the CPU). A backend PyTorch refuses keeps PyTorch's reason; the math backend stops where
# one step gets too slow, and says so. Each rate is read against two scales: the matmul ceiling this build measured
# (with the sweep of :doc:`10-scaling`), and the GPU's peak as NVIDIA publishes it. The grid is saved for the guide.
grid = trainscale.measure_grid()
trainscale_records.save(grid, settings.results_dir())
# sphinx_gallery_attnprof_writes = ["trainscale__*.json"]
print(trainplot.report(grid, lang))

# %%
# TFLOP/s against length: the forward
# -----------------------------------
# One line per backend, one panel per head dim and mask, the bands of the medians shaded. The dashed line is the
# matmul ceiling, the dotted one the published peak.
fig = trainplot.figure(grid, "fwd", lang=lang)

# %%
# TFLOP/s against length: the backward
# ------------------------------------
# The backward does five matrix products where the forward does two, and writes three gradients.
fig = trainplot.figure(grid, "bwd", lang=lang)
print(workloadreport.elapsed_line(reuse.once("training_elapsed_s", time.perf_counter() - t_start), lang))
