"""
Run it: from a trace to a change
================================

Two layers of ``nn.MultiheadAttention``, code nobody here wrote, trained for a few steps under the profiler. attnprof
reads the trace, rebuilds the attention call it finds and times it on this machine with every backend that takes it
and with the changes the reading points to. The script then makes one change, records the same steps again, and
compares the two traces: what the measurement promised beside what the change did.

What each stage shows: :doc:`../guide/trace-to-change`.
"""
# sphinx_gallery_attnprof_budget_s = 6

# %%
# The model
# ---------
# ``nn.MultiheadAttention`` returns the attention weights unless told not to (``need_weights=True`` by default).
# To return them it computes attention the long way, matrix product, softmax, matrix product, with the score matrix
# in memory; asked for no weights, it makes one ``scaled_dot_product_attention`` call instead. The model below keeps
# the default, as most code does.
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

from attnprof import settings
from attnprof.analysis import advice, attention, diff, explain
from attnprof.measure import advice as measuring
from attnprof.measure import reuse
from attnprof.records import advice as records
from attnprof.records import foreign
from attnprof.render import advice as measured_words
from attnprof.render import diff as diff_words
from attnprof.render import explain as report

lang = settings.language()  # the language of the printed output
device = "cuda" if torch.cuda.is_available() else "cpu"
dim, heads, seq, batch = (512, 8, 1024, 4) if device == "cuda" else (64, 4, 64, 2)


class Layers(nn.Module):
    """Self-attention layers of ``nn.MultiheadAttention``, with or without the weights."""

    def __init__(self, need_weights: bool) -> None:
        super().__init__()
        self.need_weights = need_weights
        self.layers = nn.ModuleList(nn.MultiheadAttention(dim, heads, batch_first=True) for _ in range(2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for mha in self.layers:
            x = x + mha(x, x, x, need_weights=self.need_weights)[0]
        return x


# %%
# Profile a few training steps
# ----------------------------
# The way the guide teaches: a schedule, ``record_shapes=True`` (the shapes are what lets attnprof rebuild each
# call), ``prof.step()`` after every step, ``export_chrome_trace``.
def record(model: nn.Module, path) -> None:
    torch.manual_seed(0)
    model = model.to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, seq, dim, device=device)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=2), record_shapes=True) as prof:
        for _ in range(4):
            model(x).sum().backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if device == "cuda":
                torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(str(path))  # a name ending in .gz is written gzipped


folder = settings.results_dir()
folder.mkdir(parents=True, exist_ok=True)
before = folder / "trace_to_change_before.json.gz"
if not settings.replaying():  # the docs build's other languages read the trace the first one recorded
    record(Layers(need_weights=True), before)

# %%
# Read it
# -------
# What ``attnprof explain trace_to_change_before.json.gz`` prints: the steps, the attention calls (a hand-written
# one: the two matrix products and the softmax of ``need_weights=True``), their kernels and what to look at.
reading = explain.explain(foreign.load(before, inputs_of=attention.wants_inputs))
print(report.text(reading, lang=lang))

# %%
# Measure each call here
# ----------------------
# What ``attnprof explain trace_to_change_before.json.gz --measure`` adds: the call rebuilt from its recorded shapes
# and timed as recorded, as one SDPA call with each backend this device has, with SDPA's own choice, and in bf16;
# then which option is fastest and what it would save per step, by the same noise rules as every page.
plan = advice.plan(reading, device)
found = records.Advice.from_dict(reuse.once("trace_to_change_advice", lambda: measuring.run(plan).to_dict()))
if not settings.replaying():
    records.save(found, folder)
# sphinx_gallery_attnprof_writes = ["trace_to_change_*.json.gz", "advice__trace_to_change_before.json"]
print("\n\n".join(report.section_text(s, lang) for s in measured_words.sections(found, lang)))

# %%
# Make the change
# ---------------
# "SDPA's own choice" is what ``need_weights=False`` makes of this call: the same inputs, one SDPA call, the backend
# left to SDPA. It is the one change made here, whichever option the table above found fastest, so that the
# comparison below shows what that change does and nothing else; bf16 would be a second change, and one that changes
# the numerics.
after = folder / "trace_to_change_after.json.gz"
if not settings.replaying():
    record(Layers(need_weights=False), after)

# %%
# Compare the two traces
# ----------------------
# What ``attnprof diff trace_to_change_before.json.gz trace_to_change_after.json.gz`` prints: the steps and the
# attention calls matched across the traces, what changed in time, kernels and backends, by the noise rules.
changed = explain.explain(foreign.load(after, inputs_of=attention.wants_inputs))
print(diff_words.text(diff.diff(diff.side(reading), diff.side(changed)), lang))
