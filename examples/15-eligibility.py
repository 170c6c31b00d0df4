"""
Run it: which backend takes which inputs
========================================

``scaled_dot_product_attention`` runs one of several backends, and each backend has a check that decides whether it
can take the inputs. When a check refuses, SDPA moves on down its list without a word, and the reader only sees a
slower call. This script asks the checks directly, in PyTorch's own words, for one condition and then for a whole
grid of them, confirms every answer with a real call, and times each backend that ran.

What the map shows: :doc:`../guide/eligibility`.
"""
# sphinx_gallery_attnprof_budget_s = 5

# %%
# Inputs with one condition a backend refuses
# -------------------------------------------
# On a GPU, a boolean mask; on the CPU, dropout (the CPU's flash kernel takes a boolean mask). Everything else is the
# guide's usual condition: bfloat16, head_dim 64, contiguous inputs.
import warnings

import torch
import torch.nn.functional as F
from torch.backends.cuda import SDPAParams, can_use_flash_attention
from torch.nn.attention import SDPBackend, sdpa_kernel

from attnprof import settings, words
from attnprof.measure import backends, eligibility
from attnprof.render import eligibility as report

lang = settings.language()  # the language of the printed output
device = "cuda" if torch.cuda.is_available() else "cpu"
q, k, v = (torch.randn(2, 8, 256, 64, device=device, dtype=torch.bfloat16) for _ in range(3))
mask = torch.ones(256, 256, dtype=torch.bool, device=device).tril() if device == "cuda" else None
dropout_p = 0.0 if device == "cuda" else 0.1

# %%
# Ask the check
# -------------
# ``SDPAParams`` holds what the checks look at: the three tensors, the mask, the dropout probability, ``is_causal``
# and ``enable_gqa``. ``can_use_flash_attention(params)`` answers True or False. With ``debug=True`` it also says
# why, as a C++ warning written straight to the process's standard error, which a notebook or a page never shows;
# attnprof reads it from there (``attnprof.measure.backends.check_cuda``). On the CPU the CUDA check refuses every
# input: the CPU's flash kernel has a check of its own, which only SDPA's selector asks.
params = SDPAParams(q, k, v, mask, dropout_p, False, False)
accepted = can_use_flash_attention(params)
heard = backends.check_cuda("FLASH_ATTENTION", backends.Inputs(q, k, v, mask, dropout_p))
print(report.check_line(accepted, heard.reason, lang))

# %%
# Force the backend
# -----------------
# ``sdpa_kernel`` enables one backend only. When its check refuses, SDPA explains why in Python warnings, then raises
# "No available kernel".
error = None
with warnings.catch_warnings(record=True) as caught, sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    warnings.simplefilter("always")
    try:
        F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
    except RuntimeError as exc:
        error = exc
print(report.forced_lines(error, [(w.category.__name__, str(w.message)) for w in caught], lang))

# %%
# Every backend at once, and what SDPA picks
# ------------------------------------------
# The same question for each backend, each answer confirmed by one real call with that backend forced, SDPA's own
# pick, and the backend the unforced call really ran (read from the operators it dispatched).
answer = backends.ask_tensors(backends.Inputs(q, k, v, mask, dropout_p), call=True)
print(report.why_report(answer, words.text("elig.script.case", lang), lang))
del q, k, v, mask

# %%
# The map
# -------
# One condition changed at a time from a base case: the dtype, the head dimension, the mask, grouped-query
# attention, dropout, training (the backward run too), the memory layout of the inputs, the batch. Each backend is
# asked, a real call confirms the answer, and each backend that ran is timed over five calls. The grid is saved for
# the guide's page.
grid = eligibility.measure_grid(save_to=settings.results_dir())
# sphinx_gallery_attnprof_writes = ["eligibility__*.json"]
print(report.grid_report(grid, lang))
