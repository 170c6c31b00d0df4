"""English sentences in the visible text of a Japanese page: what counts as one, and what may stay English.

A Japanese page keeps code, identifiers, kernel names, product names and units as they are (the glossary's rule),
so its text is full of Latin letters that are not English. What is English is prose: a run of Latin text (no
Japanese character inside) with two or more plain words (lower-case or capitalised letters, not an identifier,
not in :data:`ALLOWED_WORDS`), or one English function word (``more``, ``of``, ``the`` ...: "+4 more" is English),
or one word of the glossary that has a Japanese term (:data:`GLOSSARY_WORDS`: "CUDA cores" is English).
An English term in parentheses beside its Japanese term is a gloss, not prose.
Phrases in :data:`ALLOWED_PHRASES` (the article's English title, trace field names, NVIDIA's and PyTorch's names
for things) are removed first.

No Playwright here: the CPU test suite tests the rule itself.
"""

from __future__ import annotations

import re

#: Names of things, written the same in Japanese text: products, libraries, backends, kernel families and
#: identifiers-as-words, units, the site's variant and claim vocabulary that the glossary keeps in Latin letters.
ALLOWED_WORDS = frozenset(
    """
    attnprof pytorch torch cuda cudnn cublas cublaslt cutlass triton inductor flash flashattention flexattention
    xformers nvidia ampere hopper blackwell perfetto chrome tracing hugging face github sphinx furo python numpy
    matplotlib jupyter pip nox uv naive math efficient memory-efficient mem-efficient softmax gemm gemv memcpy memset
    dtod htod dtoh nvjet xmma wmma wgmma hmma sdpa aten kineto cupti nccl gqa alibi cpu gpu sm simt ffma fma api
    ms us µs mib gib kib tflop tflops flop flops byte bytes gb mb kb seq dtype bool float int half double long
    perfetto ui zip ipynb py json gz whl torchrun allgather alltoall all-gather all-to-all
    exp mul add sub div neg amax amin sum mean max min prod where tril triu ones zeros fill copy clone cat view
    bmm mm matmul baddbmm transpose contiguous isneginf softplus sigmoid tanh relu gelu silu sqrt rsqrt pow abs log
    """.split()
)
#: Words that make one Latin word English prose by themselves ("+4 more", "out in registers").
FUNCTION_WORDS = frozenset(
    """
    the a an of in on to for with by more out is are was were not no from at per than this that it as be
    has have into onto its their there here only also
    """.split()
)
# ("and", "or": ATen reduction ops too, as in "リダクション: and (bool)"; they count as plain words.)
#: Words of the glossary that have a Japanese term: alone, they are English on a Japanese page ("CUDA cores").
GLOSSARY_WORDS = frozenset(
    """
    core cores kernel kernels register registers thread threads warp warps block blocks grid occupancy trace lane
    lanes launch launches time times memory device host step steps tile tiles backend backends variant variants
    claim claims verdict published measured forward backward fwd bwd reduce elementwise pointwise template
    """.split()
)
#: Phrases that stay English on a Japanese page: titles of the English sources, field names a trace prints.
ALLOWED_PHRASES = (
    "Profiling in PyTorch (Part 3): Attention is all you profile",
    "A Beginner's Guide to torch.profiler",
    "A Beginner’s Guide to torch.profiler",
    "From nn.Linear to a Fused MLP",
    "est. achieved occupancy %",
    "Hugging Face",
    # NVIDIA's and PyTorch's names for things, given beside their Japanese term
    "correlation id",
    "occupancy calculator",
    "compute capability",
    "Tensor Memory Accelerator",
    "General Matrix Multiply",
    "No available kernel",
    "CUDA driver API",
    # the profiler's own table (``prof.key_averages().table()``), printed by the gallery scripts as PyTorch writes
    # it: its column names are PyTorch's, like a recorded message
    "Self CPU time total",
    "Self CUDA time total",
    "CPU time avg",
    "CUDA time avg",
    "Self CPU %",
    "Self CUDA %",
    "CPU total %",
    "CUDA total %",
    "CPU total",
    "CUDA total",
    "Self CPU",
    "Self CUDA",
    "# of Calls",
    # events PyTorch records under torch.compile, as the profiler's table names them
    "TorchDynamo Cache Lookup",
    "Pregraph bytecode",
    "AOTDispatcher Runtime Wrapper Prologue",
    # reasons attnprof records beside PyTorch's own, kept as recorded on every page (like PyTorch's messages)
    "CUDA graphs need a CUDA device",
    # the command that starts one process per GPU, as printed for the reader to copy
    "torchrun --standalone --nproc-per-node=2",
)
#: A message as a program recorded it (PyTorch's refusal, attnprof's recorded reason), kept as written on every page:
#: an exception's name and message up to the end of its line or of its sentence in parentheses, and the reason
#: attnprof records when torch has no CUDA.
_RECORDED = re.compile(
    r"\b[A-Za-z_.]*(?:Error|Exception|Warning): [^\n（(]*(?:\([^\n（()]*\)[^\n（(]*)*"
    r"|torch\.cuda\.is_available\(\) is False[^\n]*"
    # PyTorch's words as the pages mark them (render.eligibility: "PyTorch: ...", the script's "PyTorch の警告: ...")
    r"|PyTorch(?:'s warning| の警告| が拒否| refuses)?: [^\n]*"
    # a message quoted as PyTorch wrote it (“For dense input, ...”)
    r"|“[^”\n]*”?"
    # a tensor's shape as the reader writes it (q 8×16×1024×64, k ...)
    r"|\b[qkv] \d[\d×…]*"
    # the reason attnprof records on a machine with one GPU, as it records the one without CUDA
    r"|context parallelism needs at least 2 (?:CUDA )?GPUs[^\n]*"
)
#: A row of the profiler's own table (``key_averages().table()``) as a script prints it: a name PyTorch wrote, cut
#: where the table cuts it, then the table's percentages and times.
_PROFILER_ROW = re.compile(r"^[^\n]*?\s\d+\.\d\d%\s+[\d.]+(?:us|ms|s)\s[^\n]*$", re.MULTILINE)

# A Japanese term with its English term in parentheses right after it ("因果アテンション (causal attention)"), or
# inside the same parentheses ("(カーネルの起動、kernel launch)"): a gloss, on purpose.
_JA = "\u3000-\u30ff\u3400-\u9fff\uff00-\uffef"
_GLOSS = re.compile(
    rf"(?<=[{_JA}]) ?[(（][A-Za-z][A-Za-z \-'’]*[)）]"
    rf"|[(（][A-Za-z][A-Za-z \-'’]*[,、] ?[{_JA}][^()（）]*[)）]"
    rf"|[(（][^()（）]*[{_JA}][,、] ?[A-Za-z][A-Za-z \-'’]*[)）]"
)
_RUN = re.compile(r"[A-Za-z0-9_.:+/'’%µ\-]+(?:[ \t\u00a0,;()\[\]\"“”<>=→×]+[A-Za-z0-9_.:+/'’%µ\-]+)*")
_TOKEN = re.compile(r"[A-Za-z0-9_.:+/'’%µ\-]+")
_WORD = re.compile(r"[A-Za-z][a-z]+(?:[-'’][a-z]+)*|[a-z]")


def _plain_word(token: str) -> str | None:
    """The token as a plain English-looking word (lower case), or ``None`` for an identifier, number or name."""
    token = token.strip(".:,;'’-")
    if not _WORD.fullmatch(token):
        return None  # digits, underscores, "::", camelCase, ALL CAPS, dotted names: not prose
    return token.lower()


def english_runs(text: str) -> list[str]:
    """The runs of English prose in ``text`` (see the module docstring)."""
    for phrase in ALLOWED_PHRASES:  # a phrase may be wrapped over two lines of printed output
        text = re.sub(r"\s+".join(map(re.escape, phrase.split())), " ", text)
    text = _PROFILER_ROW.sub(" ", text)
    text = _RECORDED.sub(" ", text)
    text = _GLOSS.sub(" ", text)
    found = []
    for run in _RUN.finditer(text):
        words = [w for t in _TOKEN.findall(run.group()) if (w := _plain_word(t)) is not None]
        function = [w for w in words if w in FUNCTION_WORDS]
        plain = [w for w in words if w not in ALLOWED_WORDS and w not in FUNCTION_WORDS]
        if function or len(plain) >= 2 or any(w in GLOSSARY_WORDS for w in plain):
            found.append(run.group().strip())
    return found
