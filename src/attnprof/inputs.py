"""What a variant runs on: the shape, dtype and device of a run, its random inputs, and the float64 yardstick.

>>> make_setup("8,16,1024,64", "bf16", "cuda").describe()
'[8, 16, 1024, 64] bfloat16 on cuda'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from attnprof.settings import measuring
from attnprof.words.fmt import quoted

if TYPE_CHECKING:
    import torch

#: The article's shape: [batch, heads, seq, head_dim].
REFERENCE_SHAPE: tuple[int, int, int, int] = (8, 16, 1024, 64)
#: The shape used when no GPU is there: small enough for a laptop CPU, same head_dim.
CPU_SHAPE: tuple[int, int, int, int] = (1, 4, 256, 64)

#: Accepted dtype spellings and their canonical names.
DTYPE_ALIASES: dict[str, str] = {
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp16": "float16",
    "half": "float16",
    "float16": "float16",
    "fp32": "float32",
    "float": "float32",
    "float32": "float32",
    "fp64": "float64",
    "float64": "float64",
}
DEVICES = ("cuda", "cpu")

#: A number as every command and option takes it: ASCII digits, a decimal point, an exponent; nothing Python's
#: ``int``/``float`` also take (``2_56``, ``+8``, ``٣``, ``nan``, ``inf``).
_PLAIN_INT = re.compile(r"[0-9]+")
_PLAIN_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Setup:
    """What to run: shape ``[batch, heads, seq, head_dim]`` of the queries, dtype name and device.

    For decoding (:mod:`attnprof.workloads`), ``seq`` is the one new token and the keys and values are a cache of
    ``kv_len`` positions with ``kv_heads`` heads (``heads`` a multiple of it: grouped-query attention); both are
    ``None`` otherwise, when keys and values have the queries' shape.
    """

    shape: tuple[int, int, int, int]
    dtype: str
    device: str
    kv_heads: int | None = None
    kv_len: int | None = None

    @property
    def kv_shape(self) -> tuple[int, int, int, int]:
        """Shape of ``k`` and ``v``: the queries' shape, or ``[batch, kv_heads, kv_len, head_dim]`` for a cache."""
        b, h, s, d = self.shape
        return (b, self.kv_heads or h, self.kv_len or s, d)

    def describe(self) -> str:
        """``[8, 16, 1024, 64] bfloat16 on cuda``; a cache adds ``, KV cache [8, 8, 4096, 128]``."""
        text = f"{list(self.shape)} {self.dtype} on {self.device}"
        if self.kv_heads is not None or self.kv_len is not None:
            text += f", KV cache {list(self.kv_shape)}"
        return text


def plain_int(value: object) -> int | None:
    """``value`` as an integer when it is one, or a string of ASCII digits (spaces around allowed); else ``None``.

    >>> plain_int("256"), plain_int(" 8 "), plain_int("2_56"), plain_int("+8"), plain_int("٣"), plain_int(True)
    (256, 8, None, None, None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _PLAIN_INT.fullmatch(value.strip()):
        return int(value.strip())
    return None


def plain_number(value: object) -> float | None:
    """``value`` as a float when it is a number written plainly (``45``, ``0.1``, ``.5``, ``1e3``); ``None`` for
    anything else (``1_0``, ``nan``, ``inf``, ``-5``, ``٣``).

    >>> plain_number("0.1"), plain_number("1e3"), plain_number("1_0"), plain_number("nan"), plain_number(2)
    (0.1, 1000.0, None, None, 2.0)
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and _PLAIN_NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def canonical_device(name: str) -> str:
    """``"CPU"`` -> ``"cpu"``: a device name in any case.

    Raises:
        ValueError: for an unknown name, listing the accepted ones.
    """
    if not isinstance(name, str) or name.lower() not in DEVICES:
        raise ValueError(f"unknown device {quoted(name)}; choose one of: {', '.join(DEVICES)}")
    return name.lower()


def canonical_dtype(name: str) -> str:
    """``"bf16"`` -> ``"bfloat16"``.

    Raises:
        ValueError: for an unknown spelling, listing the accepted ones.
    """
    try:
        return DTYPE_ALIASES[str(name).lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {quoted(name)}; choose one of: {', '.join(DTYPE_ALIASES)}") from None


def parse_shape(text: str | Iterable[int]) -> tuple[int, int, int, int]:
    """``"8,16,1024,64"`` (or four ints) -> ``(8, 16, 1024, 64)``.

    Raises:
        ValueError: unless there are exactly four positive integers.
    """
    parts = text.lower().replace("x", ",").split(",") if isinstance(text, str) else list(text)
    found = [plain_int(p) for p in parts]
    dims = tuple(d for d in found if d is not None)
    if len(dims) != 4 or len(found) != 4 or any(d <= 0 for d in dims):
        raise ValueError(f"bad shape {quoted(text)}; expected four positive integers B,H,S,D such as 8,16,1024,64")
    return dims  # type: ignore[return-value]


def positive_int(name: str, value: object, example: str) -> int:
    """``value`` as a positive integer (``"8"`` and ``8`` alike).

    Raises:
        ValueError: naming ``name``, the bad value and an example of a good one.
    """
    n = plain_int(value)
    if n is None or n <= 0:
        raise ValueError(f"bad {name} {quoted(value)}; expected a positive integer such as {example}")
    return n


def make_setup(
    shape: str | Iterable[int],
    dtype: str = "bfloat16",
    device: str = "cuda",
    *,
    kv_heads: int | str | None = None,
    kv_len: int | str | None = None,
) -> Setup:
    """Validate and build a :class:`Setup`.

    Args:
        shape: ``B,H,S,D`` of the queries.
        dtype: Any spelling :func:`canonical_dtype` accepts.
        device: ``"cuda"`` or ``"cpu"``.
        kv_heads: Heads of a KV cache (decoding); ``H`` must be a multiple of it.
        kv_len: Positions of a KV cache (decoding).

    Raises:
        ValueError: for a malformed shape, an unknown dtype or device name, a cache size that is not a positive
            integer, or query heads that are not a multiple of the KV heads.
    """
    device = canonical_device(device)
    dims = parse_shape(shape)
    heads = None if kv_heads is None else positive_int("kv_heads", kv_heads, "8")
    length = None if kv_len is None else positive_int("kv_len", kv_len, "4096")
    if heads is not None and dims[1] % heads:
        divisors = [str(n) for n in range(1, dims[1] + 1) if dims[1] % n == 0]
        raise ValueError(
            f"bad kv_heads {heads}: the {dims[1]} query heads must share the KV heads in equal groups; choose one "
            f"of: {', '.join(divisors)}"
        )
    return Setup(dims, canonical_dtype(dtype), device, heads, length)


def default_setup(device: str | None = None) -> Setup:
    """The article's shape in bf16 on CUDA when a GPU is there, else :data:`CPU_SHAPE` in bf16 on the CPU."""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    shape = REFERENCE_SHAPE if device == "cuda" else CPU_SHAPE
    return make_setup(shape, "bfloat16", device)


def causal_flops(shape: Iterable[int]) -> float:
    """Floating-point operations of one causal attention forward, as FlashAttention's benchmarks count them.

    Two matrix products of ``2 * seq * seq * head_dim`` operations per (batch, head), halved because the
    causal mask leaves half of the score matrix: ``2 * B * H * S * S * D``. Softmax and scaling are not counted.
    """
    b, h, s, d = shape
    return 2.0 * b * h * s * s * d


_ELEMENT_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def element_bytes(dtype: str) -> int:
    """Bytes per element of a dtype, any spelling :func:`canonical_dtype` accepts (``"bf16"`` -> 2).

    Raises:
        ValueError: for a name :func:`canonical_dtype` does not know.
    """
    return _ELEMENT_BYTES[canonical_dtype(dtype)]


def make_inputs(setup: Setup, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random ``q, k, v`` (standard normal; never zeros, which can run faster than real data), drawn on the device
    itself by a generator of that device seeded with ``seed``: the same inputs every time on one device (drawn on
    the CPU and copied, the inputs of a long sequence took longer to make than to measure)."""
    import torch

    return tuple(  # type: ignore[return-value]
        random_tensor(shape, setup.device, setup.dtype, gen)
        for gen in [torch.Generator(device=setup.device).manual_seed(seed)]
        for shape in (setup.shape, setup.kv_shape, setup.kv_shape)
    )


def random_tensor(shape: Iterable[int], device: str, dtype: str, gen: torch.Generator | int) -> torch.Tensor:
    """A standard-normal tensor drawn in float32 on ``device`` (by ``gen``, or a generator of that device seeded with
    it) and cast to ``dtype``."""
    import torch

    if isinstance(gen, int):
        gen = torch.Generator(device=device).manual_seed(gen)
    out = torch.randn(tuple(shape), generator=gen, device=device, dtype=torch.float32)
    return out.to(getattr(torch, canonical_dtype(dtype)))


@measuring
def reference_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention in float64, written out, as the yardstick for every variant's error."""
    import torch

    q64, k64, v64 = (t.double() for t in (q, k, v))
    s = q64.size(-2)
    scores = q64 @ k64.transpose(-2, -1) / q64.size(-1) ** 0.5
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ v64


@measuring
def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """``||out - ref|| / ||ref||`` in float64; NaN anywhere gives NaN."""
    diff = out.double() - ref
    return float(diff.norm() / ref.norm())
