"""First look at the GPU builder: raw profiler traces of every variant, plus environment facts.

Plain torch only (no attnprof), so the traces can be used as test fixtures for the trace parser while the
package is being written. Writes into the folder given as the first argument.
"""

import gzip
import json
import math
import os
import sys
import time
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile, record_function, schedule

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
dev = "cuda"
B, H, S, D = (int(x) for x in os.environ.get("SHAPE", "8,16,1024,64").split(","))
dtype = torch.bfloat16
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device=dev, dtype=dtype) for _ in range(3))
mask = torch.ones(S, S, device=dev, dtype=torch.bool).triu(1)
scale = 1.0 / math.sqrt(D)


def naive(q, k, v):
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    s = s.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def naive_inplace(q, k, v):
    s = torch.matmul(q, k.transpose(-2, -1))
    s.mul_(scale)
    s.masked_fill_(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def forced(backend):
    def f(q, k, v):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    return f


def auto(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


from torch.nn.attention.flex_attention import create_block_mask, flex_attention  # noqa: E402

flex_c = torch.compile(flex_attention)
bm = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, S, S, device=dev)


def flex(q, k, v):
    return flex_c(q, k, v, block_mask=bm)


compiled_naive = torch.compile(naive_inplace)

variants = {
    "naive": naive,
    "naive_inplace": naive_inplace,
    "sdpa_math": forced(SDPBackend.MATH),
    "sdpa_efficient": forced(SDPBackend.EFFICIENT_ATTENTION),
    "sdpa_flash": forced(SDPBackend.FLASH_ATTENTION),
    "sdpa_cudnn": forced(SDPBackend.CUDNN_ATTENTION),
    "sdpa_auto": auto,
    "flex": flex,
    "compiled_naive": compiled_naive,
}
facts = {
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "cudnn": torch.backends.cudnn.version(),
    "gpu": torch.cuda.get_device_name(),
    "props": str(torch.cuda.get_device_properties(0)),
    "timings": {},
}
ref = None
with torch.no_grad():
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    for name, fn in variants.items():
        t0 = time.perf_counter()
        for _ in range(3):
            out = fn(q, k, v)
        torch.cuda.synchronize()
        t_warm = time.perf_counter() - t0
        err = ((out.double() - ref).norm() / ref.norm()).item()
        t0 = time.perf_counter()
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
            record_shapes=True,
        ) as prof:
            for _ in range(5):
                with record_function(f"{name}_fwd"):
                    fn(q, k, v)
                torch.cuda.synchronize()
                prof.step()
        t_prof = time.perf_counter() - t0
        path = os.path.join(out_dir, f"{name}.json")
        prof.export_chrome_trace(path)
        with open(path, "rb") as f_in, gzip.open(path + ".gz", "wb") as f_out:
            f_out.write(f_in.read())
        os.remove(path)
        # CUDA-event timing
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(30):
            st.record()
            fn(q, k, v)
            en.record()
            en.synchronize()
            times.append(st.elapsed_time(en))
        times.sort()
        facts["timings"][name] = {
            "warm_s": t_warm,
            "profile_s": t_prof,
            "median_ms": times[len(times) // 2],
            "err": err,
        }
        print(name, facts["timings"][name], flush=True)

# Reasons PyTorch gives when a backend cannot run.
reasons = {}
for dt, hd in [(torch.float32, 64), (torch.bfloat16, 512), (torch.float16, 64)]:
    qq = torch.randn(1, 2, 128, hd, device=dev, dtype=dt)
    for bname in ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                with sdpa_kernel(getattr(SDPBackend, bname)):
                    F.scaled_dot_product_attention(qq, qq, qq, is_causal=True)
                res = "ok"
            except Exception as e:
                res = f"{type(e).__name__}: {e}"
        reasons[f"{dt}-{hd}-{bname}"] = {"result": res, "warnings": [str(x.message) for x in w]}
facts["reasons"] = reasons
with open(os.path.join(out_dir, "facts.json"), "w") as f:
    json.dump(facts, f, indent=1)
