"""
Run it: context parallelism
===========================

Causal attention over a long sequence, split across every GPU of the machine with PyTorch's context parallelism:
each GPU keeps a slice of the sequence, and the keys and values travel between the GPUs over NCCL while attention
runs. One trace per GPU shows what each did. Before you run it, guess: on two GPUs, how close to twice as fast does
it get, how much of a step goes to communication, and does the causal mask leave one GPU with more work than the
other?

What the traces show, and what they say about two GPUs: :doc:`../guide/parallel`.
"""
# sphinx_gallery_attnprof_budget_s = 1

# %%
# The plan
# --------
# Batch 2, 16 heads, head_dim 64, bfloat16, causal, the flash backend, sequence lengths from 32768 up, each with
# both rotation methods PyTorch offers (all-gather and all-to-all), and the same attention on one GPU as the
# yardstick. It needs two or more CUDA GPUs; anywhere else the script says so and stops there.
import time

from attnprof import settings
from attnprof.analysis import rank_traces
from attnprof.measure import parallelrun, reuse
from attnprof.render import ranktimeline, report, workloadreport

started = time.perf_counter()
lang = settings.language()  # the language of the printed output and of the figure
config = parallelrun.default_config()
print(workloadreport.parallel_plan(config, lang))

# %%
# What every rank runs
# --------------------
# One process per GPU, each a *rank*. Every rank builds the whole ``q``, ``k`` and ``v`` (the same on every rank),
# then ``context_parallel`` cuts them along the sequence (dim 2) in place, so that each rank keeps its shard, and
# swaps ``F.scaled_dot_product_attention`` for ring attention while the context is open: call SDPA through the
# module attribute, as below, or the ring version is never used. With load balancing on (PyTorch's default), the
# sequence is cut into ``2 × world`` chunks and each rank gets one from the head and one from the tail, so that the
# causal mask gives every rank the same work. The profiler runs on every rank with the schedule of the rest of the
# guide, and each rank exports its own trace:
#
# .. code-block:: python
#
#    import torch
#    import torch.distributed as dist
#    import torch.nn.functional as F
#    from torch.distributed.device_mesh import init_device_mesh
#    from torch.distributed.tensor.experimental import context_parallel
#    from torch.distributed.tensor.experimental._attention import set_rotate_method
#    from torch.profiler import ProfilerActivity, profile, record_function, schedule
#
#    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
#    mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("cp",))
#    set_rotate_method("allgather")  # or "alltoall"
#    with context_parallel(mesh, buffers=[q, k, v], buffer_seq_dims=[2, 2, 2]):
#        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
#                     schedule=schedule(wait=1, warmup=1, active=3)) as prof:
#            for _ in range(5):
#                with record_function("cp_allgather"):
#                    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
#                torch.cuda.synchronize()
#                prof.step()
#    prof.export_chrome_trace(f"rank{rank}.json")  # one trace per rank
#
# ``attnprof.measure.parallelrank`` runs exactly these calls on every rank, and around them it times the call with
# CUDA events (every rank released by a barrier first), reads the peak memory, and gathers the output from every rank
# (``context_parallel_unshard``) to compare it with the one-GPU output.

# %%
# Start the ranks
# ---------------
# Run plainly (``python 14-context-parallel.py``, or inside the docs build), the script starts one process per
# GPU with ``torch.multiprocessing`` (start method ``spawn``); started by ``torchrun --standalone
# --nproc-per-node=2 14-context-parallel.py``, each process is already one rank. Either way NVLink multicast stays
# off in every process (``NCCL_NVLS_ENABLE=0``). Without two GPUs nothing starts, and the result file says why.
run = parallelrun.run(config, save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["parallel__*.json"]
print(workloadreport.parallel_run_line(run, lang))

# %%
# One GPU against all of them
# ---------------------------
# The step time of the distributed call is its slowest rank's. The NCCL share is the part of a step's GPU time
# that NCCL kernels took, on the rank where it was largest; "overlapped" is the part of that time during which the
# rank's GPU was also computing. The error compares the gathered output with the one-GPU output.
print(workloadreport.parallel_table(run, lang))

# %%
# Where each rank's time went
# ---------------------------
# Per rank, from its trace: time in attention kernels, in NCCL kernels (on their own stream), in the copies and
# float32 arithmetic that merge the partial results, and with the GPU idle. Compare the attention column across the
# ranks: that is the load balance. Each rank's trace is a file of its own, beside the run's file.
longest = [c for c in run.ran() if c.seq == max(x.seq for x in run.ran())] if run.ran() else []
for case in longest:
    print(workloadreport.rank_table(case, lang))
    for rank in case.ranks:
        print(report.trace_line(rank.trace_file, lang))

# %%
# Which attention kernel ran on each chunk
# ----------------------------------------
# With two ranks, each runs attention twice per step: once on its own shard (with the causal mask), once against the
# keys and values that came from the other rank. The grid says how many query blocks each pass covers.
for case in longest[:1]:
    for rank, position, kernel in rank_traces.chunk_rows(case.traces()):
        print(workloadreport.chunk_line(rank, position, kernel, lang))

# %%
# One step, every rank
# --------------------
# Both ranks on one time axis (one host, one clock): each rank's annotated call on the CPU, then its compute stream
# and its NCCL stream. Look for the NCCL kernel under the first attention kernel: that is the overlap.
if longest:
    fig = ranktimeline.figure(longest[0], lang=lang)
print(workloadreport.elapsed_line(reuse.once("parallel_elapsed_s", time.perf_counter() - started), lang))
