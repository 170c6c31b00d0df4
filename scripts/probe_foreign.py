"""Record profiler traces of attention code nobody here wrote, as fixtures for ``attnprof explain``.

Each model is built from a config or from torch.nn (random weights, nothing downloaded), kept tiny, and profiled
the way the site teaches: a schedule with wait/warmup/active steps, ``record_shapes=True``, ``prof.step()`` after
every step, ``export_chrome_trace``. No attnprof here and no annotation of ours: the traces are what a user of
these libraries would record. Each trace is written gzipped (``<case>.json.gz``) into the folder given, with
``facts.json`` (versions, device, what each case ran: layers, active steps, and each case's time).

    python scripts/probe_foreign.py OUT [--device cuda|cpu] [--only hf_sdpa_train,flex_train]

Needs ``transformers`` (for the ``hf_*`` cases); a case that cannot run is recorded in facts.json with its error.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
import traceback

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

LAYERS = 2
WAIT, WARMUP, ACTIVE = 1, 1, 2
SEQ, BATCH = 32, 2


def tiny_llama(device: str, attn: str) -> nn.Module:
    """A two-layer Llama with grouped-query attention (4 query heads, 2 KV heads, head_dim 64 on CUDA)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    hd = 64 if device == "cuda" else 16
    cfg = LlamaConfig(vocab_size=128, hidden_size=4 * hd, intermediate_size=8 * hd, num_hidden_layers=LAYERS,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      attn_implementation=attn)  # fmt: skip
    torch.manual_seed(0)
    return LlamaForCausalLM(cfg).to(device, torch.bfloat16)


def hf_train(device: str, attn: str):
    model = tiny_llama(device, attn).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 128, (BATCH, SEQ), device=device)

    def step() -> None:
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def hf_generate(device: str):
    model = tiny_llama(device, "sdpa").eval()
    ids = torch.randint(0, 128, (1, 8), device=device)

    def step() -> None:  # 4 forward passes: the prompt, then 3 tokens against the KV cache
        model.generate(ids, max_new_tokens=4, min_new_tokens=4, do_sample=False, pad_token_id=0)

    return step


def encoder_infer(device: str):
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=LAYERS, enable_nested_tensor=False).to(device).eval()
    x = torch.randn(BATCH, SEQ, 64, device=device)

    def step() -> None:
        with torch.no_grad():  # eval + no grad + batch_first: the fast path (_transformer_encoder_layer_fwd)
            model(x)

    return step


class MhaStack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.MultiheadAttention(64, 4, batch_first=True) for _ in range(LAYERS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for mha in self.layers:
            x = x + mha(x, x, x)[0]  # need_weights defaults to True: bmm, softmax, bmm
        return x


def mha_train(device: str):
    model = MhaStack().to(device).train()
    x = torch.randn(BATCH, SEQ, 64, device=device)

    def step() -> None:
        model(x).sum().backward()

    return step


class FlexStack(nn.Module):
    """Self-attention layers calling flex_attention with a sliding-window causal block mask."""

    def __init__(self, device: str, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        self.heads = heads
        self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim) for _ in range(LAYERS))
        # compiled, as FlexAttention is meant to run; on the CPU eagerly, since a compiled CPU graph names its kernel
        # graph_0_kernel, which says nothing of flex_attention (the eager call records FlexAttentionAutogradOp)
        self.flex = torch.compile(flex_attention) if device == "cuda" else flex_attention
        self.mask = create_block_mask(lambda b, h, q, k: (q >= k) & (q - k < 16), None, None, SEQ * 4, SEQ * 4,
                                      device=device)  # fmt: skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        for qkv in self.qkv:
            q, k, v = qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            x = x + self.flex(q, k, v, block_mask=self.mask).transpose(1, 2).reshape(b, s, d)
        return x


def flex(device: str):
    model = FlexStack(device).to(device)
    x = torch.randn(BATCH, SEQ * 4, 64, device=device)

    def step() -> None:
        if device == "cuda":
            model(x).sum().backward()
        else:  # "FlexAttention does not support backward on CPU" (torch 2.13): the forward alone
            with torch.no_grad():
                model(x)

    return step


class Block(nn.Module):
    """A pre-norm block with attention written out by hand (matmul, softmax, matmul), for torch.compile."""

    def __init__(self, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads, self.norm = heads, nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5
        causal = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        attn = scores.masked_fill(causal, float("-inf")).softmax(-1) @ v
        return x + self.out(attn.transpose(1, 2).reshape(b, s, d))


def compiled_train(device: str):
    model = torch.compile(nn.Sequential(*(Block() for _ in range(LAYERS))).to(device))
    x = torch.randn(BATCH, SEQ, 64, device=device)

    def step() -> None:
        model(x).sum().backward()

    return step


CASES = {
    "hf_sdpa_train": lambda d: hf_train(d, "sdpa"),
    "hf_eager_train": lambda d: hf_train(d, "eager"),
    "hf_generate": hf_generate,
    "encoder_infer": encoder_infer,
    "mha_train": mha_train,
    "flex": flex,
    "compiled_train": compiled_train,
}


def record(name: str, device: str, out: str) -> dict:
    return record_step(CASES[name](device), name, device, out)


def record_step(step, name: str, device: str, out: str | os.PathLike) -> dict:
    """Profile ``step`` the way the site teaches (warmed up outside the profiler; ``schedule(wait=1, warmup=1,
    active=2)``, ``record_shapes=True``, ``prof.step()`` after each step) into ``OUT/<name>.json.gz`` (the exported
    trace re-dumped without indentation, gzipped); returns the recording's time and size. Also used by
    probe_advice.py."""
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(2):  # compile and warm up outside the profiler
        step()
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    t0 = time.perf_counter()
    with profile(activities=activities, schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                 record_shapes=True) as prof:  # fmt: skip
        for _ in range(WAIT + WARMUP + ACTIVE):
            step()
            sync()
            prof.step()
    raw = os.path.join(out, f"{name}.json")
    prof.export_chrome_trace(raw)
    with open(raw, encoding="utf-8") as f:
        trace = json.load(f)
    os.remove(raw)
    data = json.dumps(trace, separators=(",", ":")).encode()  # the same trace, without the indentation
    with open(raw + ".gz", "wb") as f:
        f.write(gzip.compress(data, 9, mtime=0))
    return {"seconds": round(time.perf_counter() - t0, 2), "bytes_gz": os.path.getsize(raw + ".gz")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--only", default=",".join(CASES))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.device == "cpu":  # inductor's C++ kernels are profiled only when asked (Triton's always are)
        import torch._inductor.config as inductor

        inductor.cpp.enable_kernel_profile = True
    path = os.path.join(args.out, "facts.json")
    old = json.load(open(path, encoding="utf-8")) if os.path.exists(path) else {}
    facts = {"torch": torch.__version__, "device": args.device, "layers": LAYERS, "active_steps": ACTIVE,
             "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None, "cuda": torch.version.cuda,
             "cudnn": torch.backends.cudnn.version() if args.device == "cuda" else None, "cases": {}}  # fmt: skip
    try:
        import transformers

        facts["transformers"] = transformers.__version__
    except ImportError:
        facts["transformers"] = None
    if old.get("device") == args.device:  # --only: keep the other cases' facts
        facts["cases"] = old.get("cases", {})
    t0 = time.perf_counter()
    for name in args.only.split(","):
        try:
            facts["cases"][name] = record(name, args.device, args.out)
        except Exception as exc:  # one case that cannot run does not stop the others
            facts["cases"][name] = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
            traceback.print_exc()
        print(name, facts["cases"][name], flush=True)
    facts["seconds"] = round(time.perf_counter() - t0, 1)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(facts, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
