"""
Run it: masks beyond causal
===========================

A sliding window, documents packed side by side in one batch row, a prompt that sees itself both ways: each is a
mask that is not the causal one. PyTorch gives three ways to run attention under it. FlexAttention takes the mask as
a function and builds a block mask from it, so that its generated kernel skips every block the mask leaves out.
``scaled_dot_product_attention`` takes the mask as a dense ``[seq, seq]`` tensor, and only some of its backends
accept one. Packed documents can also be nested (jagged) tensors, one sequence per document, with no mask at all.
This script writes each of them out once for packed documents, profiles them, then measures every mask every way.

What the numbers say: :doc:`../guide/masks`.
"""
# sphinx_gallery_attnprof_budget_s = 12

# %%
# One mask, written once
# ----------------------
# A ``mask_mod`` says whether query ``q_idx`` may look at key ``kv_idx``. Here: four documents of different lengths
# packed into each row, causal within a document. The same function gives FlexAttention's block mask and, evaluated
# at every pair, the dense boolean mask SDPA takes (``True`` where a query may look).
import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from attnprof import settings, words, workloads
from attnprof.measure import maskrun, reuse
from attnprof.render import masks as report

lang = settings.language()  # the language of the printed output
device = "cuda" if torch.cuda.is_available() else "cpu"
plan = maskrun.build_plan(device)
batch, heads, head_dim = plan.bhd
seq = plan.seqs[-1]
lengths = [workloads.document_lengths(seq, row) for row in range(batch)]
doc = torch.tensor([workloads.document_ids(n) for n in lengths], dtype=torch.int32, device=device)


def documents(b, h, q_idx, kv_idx):
    return (doc[b, q_idx] == doc[b, kv_idx]) & (q_idx >= kv_idx)


q, k, v = (torch.randn(batch, heads, seq, head_dim, device=device, dtype=torch.bfloat16) for _ in range(3))
idx = torch.arange(seq, device=device)
dense = documents(torch.arange(batch, device=device)[:, None, None, None], 0, idx[None, None, :, None],
                  idx[None, None, None, :])  # fmt: skip
share = f"{dense.float().mean().item():.3f}"
print(words.text("mask.script.documents", lang, lengths=lengths[0], share=share))

# %%
# The three ways
# --------------
# FlexAttention: the block mask is built once (``create_block_mask``) and passed to every call of the compiled
# kernel. SDPA: the dense mask as ``attn_mask``; flash takes no mask at all, so SDPA picks another backend. Nested
# tensors: each document is one sequence, and ``is_causal=True`` is causal within it (the CPU's only path for nested
# tensors, math, refuses that).
block_mask = create_block_mask(documents, batch, None, seq, seq, device=device)
flex = torch.compile(flex_attention)


def with_flex():
    return flex(q, k, v, block_mask=block_mask)


def with_dense_mask():
    return F.scaled_dot_product_attention(q, k, v, attn_mask=dense)


offsets = torch.tensor([0, *torch.tensor([n for row in lengths for n in row]).cumsum(0).tolist()], device=device)
nested = [torch.nested.nested_tensor_from_jagged(t.transpose(1, 2).reshape(-1, heads, head_dim), offsets)
          .transpose(1, 2) for t in (q, k, v)]  # fmt: skip


def with_nested():
    return F.scaled_dot_product_attention(*nested, is_causal=True)


# %%
# Profile the block mask's construction and each call
# ---------------------------------------------------
# The schedule of the other scripts (``wait=1, warmup=1, active=3``), each call inside ``record_function``. The
# block mask's construction is profiled too: it is work of its own, paid once per mask and shape.
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
calls = {"block_mask": lambda: create_block_mask(documents, batch, None, seq, seq, device=device),
         "dense_mask": with_dense_mask}  # fmt: skip
if device == "cuda":  # the CPU compiles for tens of seconds, and refuses causal nested tensors: see the tables below
    calls |= {"flex": with_flex, "nested": with_nested}
with torch.no_grad(), profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
    for _ in range(5):
        for name, call in calls.items():
            try:
                with record_function(name):
                    call()
            except RuntimeError as exc:  # a path this machine refuses: PyTorch says why
                calls[name] = lambda: None
                print(name, str(exc).splitlines()[0])
        if device == "cuda":
            torch.cuda.synchronize()
        prof.step()
trace_file = settings.results_dir() / "masks_documents_trace.json"
trace_file.parent.mkdir(parents=True, exist_ok=True)
prof.export_chrome_trace(str(trace_file))
sort_by = "cuda_time_total" if device == "cuda" else "cpu_time_total"
table = prof.key_averages().table(sort_by=sort_by, row_limit=12, max_name_column_width=60)
print(reuse.once("masks_table", table))  # the docs build prints one run's table in every language

# %%
# Every mask, every way
# ---------------------
# attnprof runs each mask (sliding windows, packed documents, prefix-LM) through FlexAttention, SDPA with the dense
# mask (each backend forced, and SDPA's own choice), nested tensors (packed documents) and the naive code, forward and
# training, checks each output against float64, times each call, and builds each block mask apart from its kernel.
# A case that cannot run says why, in PyTorch's words.
found = maskrun.measure(plan, settings.results_dir())
# sphinx_gallery_attnprof_writes = ["masks__*.json"]
print(report.report(found, lang))
