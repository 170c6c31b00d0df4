"""Record traces of attention code nobody here wrote, then measure what each attention call would cost if changed.

Part one records, the way the site teaches (``schedule(wait=1, warmup=1, active=2)``, ``record_shapes=True``,
``prof.step()`` after every step, ``export_chrome_trace``), with no attnprof and no annotation of ours: a
transformers Llama built from a config (random weights, nothing downloaded) with grouped-query attention, in fp32
and bf16 with ``attn_implementation="sdpa"``, in fp32 with ``"eager"`` (the fp32/bf16 and sdpa/eager pairs for
``attnprof diff``), a padded batch (an attention mask), ``generate`` with a KV cache, and ``nn.MultiheadAttention``
with dropout. Part two runs ``attnprof explain TRACE --measure`` on each (text and ``--json``), in this process so
that torch and the GPU start once. Everything lands in ``OUT/advice-<device>.tar.gz``: ``<case>.json.gz`` (the
trace, gzipped), ``<case>.measure.txt``, ``advice__<case>.json`` (the measured record, named by its kind) and
``probe-facts.json`` (versions, device, each case's
time and size, what each measure run printed to standard error).

    PYTHONPATH=src python scripts/probe_advice.py OUT [--device cuda|cpu] [--only hf_fp32_gqa_train,...]
        [--budget-s 30] [--no-measure]

On an H200 the whole probe takes well under 90 s: the measure runs share what is left of 80 s (each at most
``--budget-s``; a run estimated past its share is refused, and its plan kept as ``<case>.plan.txt``). A case that
cannot run is recorded in probe-facts.json with its error, and the others go on.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tarfile
import time
import traceback
from pathlib import Path

import torch
from probe_foreign import ACTIVE, LAYERS, record_step  # one way of recording, shared with the foreign traces
from torch import nn

#: Sizes per device: batch, sequence, hidden size, query heads, KV heads (CPU: small, so the probe runs in seconds).
SIZES = {"cuda": dict(batch=4, seq=1024, hidden=512, heads=8, kv_heads=2, prompt=128),
         "cpu": dict(batch=2, seq=32, hidden=64, heads=4, kv_heads=2, prompt=8)}  # fmt: skip
VOCAB = 256
#: The whole probe should end by then (seconds from its start): the measure runs share what is left.
DEADLINE_S = 80.0


def llama(device: str, attn: str, dtype: torch.dtype) -> nn.Module:
    """A two-layer Llama (or Qwen2, on a transformers without Llama) with grouped-query attention, random weights."""
    import transformers

    z = SIZES[device]
    kwargs = dict(vocab_size=VOCAB, hidden_size=z["hidden"], intermediate_size=2 * z["hidden"],
                  num_hidden_layers=LAYERS, num_attention_heads=z["heads"], num_key_value_heads=z["kv_heads"],
                  max_position_embeddings=4 * z["seq"])  # fmt: skip
    for config_name, model_name in (("LlamaConfig", "LlamaForCausalLM"), ("Qwen2Config", "Qwen2ForCausalLM")):
        if hasattr(transformers, config_name) and hasattr(transformers, model_name):
            break
    else:
        raise RuntimeError(f"transformers {transformers.__version__} has neither LlamaConfig nor Qwen2Config")
    try:
        cfg = getattr(transformers, config_name)(**kwargs, attn_implementation=attn)
    except TypeError:  # a config that does not take it in its constructor
        cfg = getattr(transformers, config_name)(**kwargs)
    try:
        cfg._attn_implementation = attn  # the attribute models read, whatever the constructor took
    except (AttributeError, ValueError):
        pass
    torch.manual_seed(0)
    model = getattr(transformers, model_name)(cfg).to(device=device, dtype=dtype)
    used = getattr(model.config, "_attn_implementation", None)
    if used != attn:
        raise RuntimeError(f"asked for attn_implementation={attn!r}, the model uses {used!r}")
    return model


def hf_train(device: str, attn: str, dtype: torch.dtype):
    z = SIZES[device]
    model = llama(device, attn, dtype).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    ids = torch.randint(0, VOCAB, (z["batch"], z["seq"]), device=device)

    def step() -> None:
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def hf_padded(device: str):
    """Batch inference of rows of different lengths, right-padded: the attention mask makes SDPA take a dense mask."""
    z = SIZES[device]
    model = llama(device, "sdpa", torch.bfloat16).eval()
    ids = torch.randint(1, VOCAB, (z["batch"], z["seq"]), device=device)
    mask = torch.ones_like(ids)
    for row in range(1, z["batch"]):
        mask[row, z["seq"] - row * z["seq"] // (2 * z["batch"]) :] = 0  # shorter rows, padded at the end
    ids = ids * mask

    def step() -> None:
        with torch.no_grad():
            model(input_ids=ids, attention_mask=mask)

    return step


def hf_generate(device: str):
    z = SIZES[device]
    model = llama(device, "sdpa", torch.bfloat16).eval()
    ids = torch.randint(1, VOCAB, (1, z["prompt"]), device=device)
    mask = torch.ones_like(ids)

    def step() -> None:  # 4 forward passes: the prompt, then 3 tokens against the growing KV cache
        model.generate(ids, attention_mask=mask, max_new_tokens=4, min_new_tokens=4, do_sample=False,
                       pad_token_id=0)  # fmt: skip

    return step


class MhaStack(nn.Module):
    """Self-attention layers of ``nn.MultiheadAttention`` with dropout, ``need_weights`` left at its default."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.MultiheadAttention(dim, heads, dropout=0.1, batch_first=True)
                                    for _ in range(LAYERS))  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for mha in self.layers:
            x = x + mha(x, x, x)[0]
        return x


def mha_dropout_train(device: str):
    z = SIZES[device]
    model = MhaStack(z["hidden"], z["heads"]).to(device).train()
    x = torch.randn(z["batch"], z["seq"], z["hidden"], device=device)

    def step() -> None:
        model(x).sum().backward()

    return step


CASES = {
    "hf_fp32_gqa_train": lambda d: hf_train(d, "sdpa", torch.float32),
    "hf_bf16_gqa_train": lambda d: hf_train(d, "sdpa", torch.bfloat16),
    "hf_eager_fp32_train": lambda d: hf_train(d, "eager", torch.float32),
    "hf_padded_infer": hf_padded,
    "hf_generate": hf_generate,
    "mha_dropout_train": mha_dropout_train,
}


def record(name: str, device: str, out: Path) -> dict:
    return record_step(CASES[name](device), name, device, out)


def measure(name: str, out: Path, budget_s: float) -> dict:
    """``attnprof explain OUT/<name>.json.gz --measure --json OUT/advice__<name>.json``, its text kept."""
    from attnprof.cli import main

    text, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    argv = ["explain", str(out / f"{name}.json.gz"), "--measure", "--budget-s", str(budget_s),
            "--json", str(out / f"advice__{name}.json")]  # fmt: skip
    code = main(argv, out=text, err=err)
    (out / f"{name}.measure.txt").write_text(text.getvalue(), encoding="utf-8")
    found = {"argv": argv, "status": code, "seconds": round(time.perf_counter() - t0, 2),
             "stderr": err.getvalue()[-4000:]}  # fmt: skip
    if code != 0:  # refused (the budget, say): keep the plan and why
        plan = io.StringIO()
        main([*argv[:-2], "--dry-run"], out=plan, err=io.StringIO())
        (out / f"{name}.plan.txt").write_text(plan.getvalue(), encoding="utf-8")
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cuda", "cpu"))
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--budget-s", type=float, default=30.0, help="the most one measure run may take (default: 30)")
    ap.add_argument("--no-measure", action="store_true", help="record the traces only")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case {unknown[0]!r}; choose from: {', '.join(CASES)}")
    root = Path(args.out)
    work = root / f"advice-{args.device}"
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    facts: dict = {"torch": torch.__version__, "device": args.device, "layers": LAYERS, "active_steps": ACTIVE,
                   "sizes": SIZES[args.device], "cuda": torch.version.cuda,
                   "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
                   "cudnn": torch.backends.cudnn.version() if args.device == "cuda" else None,
                   "cases": {}, "measured": {}}  # fmt: skip
    try:
        import transformers

        facts["transformers"] = transformers.__version__
    except ImportError as exc:
        facts["transformers"] = f"not importable: {exc}"
    for name in names:
        try:
            facts["cases"][name] = record(name, args.device, work)
        except Exception as exc:  # one case that cannot run does not stop the others
            facts["cases"][name] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
            traceback.print_exc()
        print(name, facts["cases"][name], flush=True)
    facts["record_seconds"] = round(time.perf_counter() - t0, 1)
    if not args.no_measure:
        todo = [n for n in names if "error" not in facts["cases"][n]]
        for k, name in enumerate(todo):
            # each run gets its share of what is left before the deadline, at most --budget-s, at least 8 s
            left = DEADLINE_S - (time.perf_counter() - t0)
            budget = round(min(args.budget_s, max(8.0, left / (len(todo) - k))), 1)
            try:
                facts["measured"][name] = measure(name, work, budget)
            except Exception as exc:
                facts["measured"][name] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
                traceback.print_exc()
            print(name, "measured", {k: v for k, v in facts["measured"][name].items() if k != "stderr"}, flush=True)
    facts["seconds"] = round(time.perf_counter() - t0, 1)
    (work / "probe-facts.json").write_text(json.dumps(facts, indent=1), encoding="utf-8")
    bundle = root / f"advice-{args.device}.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        tar.add(work, arcname=work.name)
    print(f"wrote {bundle} ({bundle.stat().st_size} bytes) in {facts['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
