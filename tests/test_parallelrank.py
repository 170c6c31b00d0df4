"""attnprof.measure.parallelrank without GPUs: what is checked before PyTorch is asked, putting SDPA back, the
configuration handed to the spawned ranks, and the lesson the gallery script shows against the code the ranks run.
(Real ranks run in test_parallelrun.py, on the CPU through gloo, and in test_parallel_gpu.py.)"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from attnprof.measure import parallelrank, parallelrun, timing

EXAMPLE = Path(__file__).parent.parent / "examples" / "14-context-parallel.py"


def test_what_the_ranks_cannot_split_is_said_before_pytorch_is_asked():
    assert parallelrank.split_problem(32768, 2, True, True) is None
    assert parallelrank.split_problem(32766, 2, False, True) is None  # 16383 each, no balancer
    lb = parallelrank.split_problem(32766, 2, True, True)
    assert lb == ("sequence length 32766 cannot be split over 2 ranks: the head-tail load balancer cuts it into "
                  "2 x world = 4 equal chunks, and 32766 is not a multiple of 4")  # fmt: skip
    assert "each rank takes 1/world = 2 equal chunks" in parallelrank.split_problem(32767, 2, False, True)
    assert "Load balancing requires `is_causal=True`." in parallelrank.split_problem(32768, 2, True, False)
    assert parallelrank.split_problem(96, 3, True, True) is None and parallelrank.split_problem(100, 3, True, True)


def test_sdpa_is_put_back_when_context_parallel_left_its_ring_version(monkeypatch):
    import torch.nn.functional as F

    real = F.scaled_dot_product_attention
    monkeypatch.setattr(parallelrank, "_ORIGINAL_SDPA", real)
    assert parallelrank.restore_sdpa() is False
    monkeypatch.setattr(F, "scaled_dot_product_attention", lambda *a, **k: "ring")
    assert parallelrank.restore_sdpa() is True
    assert F.scaled_dot_product_attention is real


def test_the_configuration_travels_to_the_ranks_as_json():
    cfg = parallelrun.make_config([64, 128], ["alltoall"], ["math"], device="cpu", world=3, reps=2)
    assert parallelrank.config_from_json(parallelrank.config_json(cfg)) == cfg


def test_the_lesson_shown_in_the_gallery_script_is_the_code_that_runs():
    """The script shows one rank's code as a code block; every call it teaches must be a call the runner makes."""
    text = EXAMPLE.read_text()
    block = text.split("# .. code-block:: python\n#\n", 1)[1].split("\n#\n# ``attnprof", 1)[0]
    code = textwrap.dedent("\n".join(line[2:] if line.startswith("# ") else "" for line in block.splitlines()))
    tree = ast.parse(code)
    shown = {n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
             for n in ast.walk(tree) if isinstance(n, ast.Call)}  # fmt: skip
    assert {"init_process_group", "init_device_mesh", "set_rotate_method", "context_parallel",
            "scaled_dot_product_attention", "profile", "schedule", "record_function", "step",
            "export_chrome_trace"} <= shown  # fmt: skip
    source = inspect.getsource(parallelrank) + inspect.getsource(timing)
    for name in shown - {"range", "device", "synchronize", "profile"}:
        assert f"{name}(" in source, name
