"""attnprof.analysis.kernels: every kernel name of the fixture traces, checked against what the trace says
independently of the name (the ATen op that launched it, its input types and shapes, the launch configuration, the
device), plus the other naming schemes the decoder claims to read."""

from __future__ import annotations

import dataclasses
import doctest
import functools
import gzip
import json
import re
from pathlib import Path

import pytest

from attnprof import words
from attnprof.analysis import kernels
from attnprof.analysis.kernels import FAMILIES, SHORT_MAX, KernelInfo, decode

TRACES = Path(__file__).parent / "data" / "traces"
VARIANTS = sorted(p.name.removesuffix(".json.gz") for p in TRACES.glob("*.json.gz"))

# ATen scalar types as the profiler writes them ("Input type") -> the decoder's dtype names
ATEN_TYPES = {"c10::BFloat16": "bf16", "float": "fp32", "bool": "bool", "c10::Half": "fp16"}


@functools.cache
def _raw(variant: str) -> dict:
    with gzip.open(TRACES / f"{variant}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


@dataclasses.dataclass
class Launch:
    """One GPU activity of a fixture with the evidence around it."""

    variant: str
    event: dict  # the GPU event
    api: str  # the runtime/driver call that launched it
    op: dict | None  # the innermost cpu_op around that call (None if there is none)
    props: dict


@functools.cache
def _launches() -> tuple[Launch, ...]:
    out = []
    for v in VARIANTS:
        raw = _raw(v)
        xs = [e for e in raw["traceEvents"] if e.get("ph") == "X"]
        calls = {e["args"]["correlation"]: e for e in xs if e["cat"] in ("cuda_runtime", "cuda_driver")}
        cpu = [e for e in xs if e["cat"] == "cpu_op"]
        for e in xs:
            if e["cat"] not in ("kernel", "gpu_memcpy", "gpu_memset"):
                continue
            call = calls[e["args"]["correlation"]]
            around = [
                o
                for o in cpu
                if (o["pid"], o["tid"]) == (call["pid"], call["tid"])
                and o["ts"] <= call["ts"]
                and call["ts"] + call["dur"] <= o["ts"] + o["dur"]
            ]
            op = min(around, key=lambda o: o["dur"]) if around else None
            out.append(Launch(v, e, call["name"], op, raw["deviceProperties"][0]))
    return tuple(out)


def _distinct(launches):
    seen, out = set(), []
    for la in launches:
        if la.event["name"] not in seen:
            seen.add(la.event["name"])
            out.append(la)
    return out


ALL = _distinct(_launches())


def _id(la: Launch) -> str:
    return f"{la.variant}:{kernels.shorten(la.event['name'], 40)}"


def _input_types(op: dict) -> list[str]:
    return [ATEN_TYPES.get(t, t) for t in op["args"]["Input type"] if t and t != "Scalar" and "List" not in t]


# --- every fixture name ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("la", ALL, ids=_id)
def test_every_fixture_name_is_decoded(la):
    info = decode(la.event["name"])
    assert info.name == la.event["name"]
    assert info.family in FAMILIES and info.family != "other"
    assert 0 < len(info.short) <= SHORT_MAX
    assert "void " not in info.short and "(" not in info.short.split(" (")[0]
    assert info.fields, "a decoded name has at least one field"
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in info.fields.items())


# What an ATen op launches, by family: knowledge of PyTorch, not of kernel names.
FAMILY_OF_OP = {
    "aten::bmm": "gemm",
    "aten::_flash_attention_forward": "flash",
    "aten::_efficient_attention_forward": "mem_efficient",
    "aten::_cudnn_attention_forward": "cudnn",
    "aten::_softmax": "softmax",
    "aten::all": "reduce",
    "aten::fill_": "fill",
    "aten::copy_": "copy",
    "aten::mul": "elementwise",
    "aten::mul_": "elementwise",
    "aten::add_": "elementwise",
    "aten::masked_fill_": "elementwise",
    "aten::where": "elementwise",
    "aten::tril": "elementwise",
    "aten::isneginf": "elementwise",
}


@pytest.mark.parametrize("la", _launches(), ids=_id)
def test_family_agrees_with_the_launching_op(la):
    info = decode(la.event["name"])
    kind = {"gpu_memcpy": "memcpy", "gpu_memset": "memset"}.get(la.event["cat"])
    if kind:
        assert info.family == kind
        assert la.api == {"memcpy": "cudaMemcpyAsync", "memset": "cudaMemsetAsync"}[kind]
    elif la.op["name"].startswith("triton_"):
        assert info.family == "triton"
        assert la.op["name"] == la.event["name"]  # Inductor's launcher op carries the kernel's name
    else:
        assert info.family == FAMILY_OF_OP[la.op["name"]]


ATEN_FAMILIES = ("elementwise", "copy", "fill", "reduce", "softmax")
ATEN_KERNELS = [
    la
    for la in ALL
    if la.event["cat"] == "kernel" and la.op is not None and FAMILY_OF_OP.get(la.op["name"]) in ATEN_FAMILIES
]


def test_there_are_aten_kernels_to_check():
    # sdpa_math: 11 distinct (its 20 kernels less 2 gemms, with repeats); naive adds bf16 mul, masked_fill, softmax
    assert len(ATEN_KERNELS) == 14


@pytest.mark.parametrize("la", ATEN_KERNELS, ids=_id)
def test_aten_op_and_dtypes_agree_with_the_launching_op(la):
    info = decode(la.event["name"])
    aten = la.op["name"].removeprefix("aten::")
    expected_op = {"all": "and", "_softmax": "softmax", "copy_": "copy"}.get(aten, aten.rstrip("_"))
    assert info.fields["op"] == expected_op
    inputs = set(_input_types(la.op))
    decoded = info.fields.get("dtype") or info.fields["input"]
    assert set(decoded.split(", ")) <= inputs


def test_short_labels_of_the_fixture_kernels():
    labels = {decode(la.event["name"]).short for la in ALL}
    assert {
        "nvjet gemm 256x128 (bf16 tensor core)",
        "nvjet gemm 64x512 (bf16 tensor core)",
        "flash_fwd hd64 128x128 (bf16 causal)",
        "elementwise: mul (bf16)",
        "elementwise: mul (fp32)",
        "fill (bool)",
        "copy: fp32 -> bf16",
        "memcpy DtoD (Device -> Device)",
        "memset (Device)",
        "reduce: and (bool)",
        "triton template: flex_attention",
    } <= labels


# --- one family at a time, against the trace ----------------------------------------------------------------------


def _one(prefix: str) -> Launch:
    return next(la for la in ALL if la.event["name"].lstrip("void ").startswith(prefix) or prefix in la.event["name"])


def test_flash_fields_match_launch_and_inputs():
    la = _one("pytorch_flash::flash_fwd_kernel")
    f = decode(la.event["name"]).fields
    args = la.event["args"]
    assert (f["head_dim"], f["block_m"], f["block_n"], f["warps"], f["dtype"]) == ("64", "128", "128", "4", "bf16")
    assert int(f["warps"]) * 32 == args["block"][0] * args["block"][1] * args["block"][2]
    # Q, K and V tiles of bf16 in shared memory: (block_m + 2 block_n) x head_dim x 2 bytes
    hd, bm, bn = int(f["head_dim"]), int(f["block_m"]), int(f["block_n"])
    assert (bm + 2 * bn) * hd * 2 == args["shared memory"]
    assert la.op["name"] == "aten::_flash_attention_forward"
    assert int(f["head_dim"]) == la.op["args"]["Input Dims"][0][-1]
    assert _input_types(la.op)[0] == f["dtype"]
    # the grid is (seq / block_m, batch, heads)
    b, s, h, _ = la.op["args"]["Input Dims"][0]
    assert args["grid"] == [s // bm, b, h]
    # the sdpa call was causal (Concrete Inputs: q, k, v, mask, dropout_p, is_causal, ...) and without dropout
    assert f["causal"] == "true" and f["dropout"] == "false"
    sdpa = next(e for e in _raw("sdpa_flash")["traceEvents"] if e.get("name") == "aten::scaled_dot_product_attention")
    assert sdpa["args"]["Concrete Inputs"][5] == "True"


def test_mem_efficient_fields_match_template_and_inputs():
    la = _one("fmha_cutlassF")
    f = decode(la.event["name"]).fields
    assert (f["direction"], f["dtype"], f["aligned"], f["block_q"], f["block_k"], f["arch"]) == (
        "fwd",
        "bf16",
        "true",
        "64",
        "64",
        "sm80",
    )
    head_dim = la.op["args"]["Input Dims"][0][-1]
    # "rf": the whole head dimension fits one key block, so the output stays in registers
    assert f["output"] == "registers" and int(f["max_k"]) >= head_dim and int(f["max_k"]) <= int(f["block_k"])
    assert _input_types(la.op)[0] == f["dtype"]
    assert int(f["arch"][2:]) <= 10 * la.props["computeMajor"] + la.props["computeMinor"]


def test_cudnn_fields_match_the_device():
    la = _one("cudnn_generated")
    f = decode(la.event["name"]).fields
    assert f["arch"] == f"sm{la.props['computeMajor']}{la.props['computeMinor']}"
    assert (f["op"], f["algo"], f["mma"], f["knob"], f["tile"], f["cluster"]) == (
        "sdpa",
        "flash_fprop",
        "wgmma",
        "7",
        "64x128x64",
        "1x1x1",
    )
    assert la.api == "cuLaunchKernelEx"


def test_nvjet_tiles_account_for_the_shared_memory():
    nvjets = [la for la in ALL if la.event["name"].startswith("nvjet_")]
    assert len(nvjets) == 2
    for la in nvjets:
        f = decode(la.event["name"]).fields
        assert f["arch"] == f"sm{la.props['computeMajor']}{la.props['computeMinor']}"
        assert _input_types(la.op)[0] == f["dtype"] == "bf16"
        m, n = map(int, f["tile"].split("x"))
        staged = (m + n) * int(f["k_tile"]) * 2 * int(f["stages"])  # A and B tiles, bf16, per pipeline stage
        smem = la.event["args"]["shared memory"]
        assert staged <= smem < staged + 20 * 1024
        assert f["math"] == "tensor core"
        assert f["cluster"] == "1x2" and f["layout"] in ("TNT", "NNT")
        # raw tokens of undocumented meaning are kept, not interpreted
        assert f["undocumented"] == "h,bz"


def test_xmma_fp32_gemms_run_ffma_on_cuda_cores():
    xmmas = [la for la in ALL if "_xmma_gemm_" in la.event["name"]]
    assert len(xmmas) == 2
    for la in xmmas:
        f = decode(la.event["name"]).fields
        assert f["arch"] == "sm80" and f["dtype"] == "fp32" == _input_types(la.op)[0]
        assert "CUDA cores" in f["math"] and "FFMA" in f["math"]
        wm, wn, wk = map(int, f["warps"].split("x"))
        args = la.event["args"]
        assert wm * wn * wk * 32 == args["block"][0]
        tm, tn, tk = map(int, f["tile"].split("x"))
        staged = (tm + tn) * tk * 4 * int(f["stages"])  # fp32 A and B tiles per stage
        assert staged <= args["shared memory"]
        assert la.api == "cudaLaunchKernelExC"


def test_triton_names_round_trip_through_the_fused_ops():
    for la in ALL:
        name = la.event["name"]
        if not name.startswith("triton_"):
            continue
        f = decode(name).fields
        kind = next(k for k, v in kernels.generated.INDUCTOR_KINDS.items() if v == f["kind"])
        assert f"triton_{kind}_fused_{'_'.join(f['ops'].split(','))}_{f['index']}" == name
    per = decode("triton_per_fused__softmax_exp_masked_fill_mul_prepare_softmax_online_sub_view_0").fields
    assert per["kind"] == "persistent reduction"
    assert per["ops"].split(",") == ["_softmax", "exp", "masked_fill", "mul", "prepare_softmax_online", "sub", "view"]
    assert decode("triton_tem_fused_flex_attention_0").fields["ops"] == "flex_attention"


def test_softmax_row_length_is_the_sequence_length():
    for la in ALL:
        info = decode(la.event["name"])
        if info.fields.get("kernel") != "softmax_warp_forward":
            continue
        assert int(info.fields["elements"]) == la.op["args"]["Input Dims"][0][-1] == 1024
        assert info.fields["accumulate"] == "fp32"
        assert info.fields["input"] == info.fields["output"] == _input_types(la.op)[0]


def test_copy_kernels():
    to_bf16 = decode(_one("bfloat16_copy_kernel_cuda").event["name"])
    assert (to_bf16.family, to_bf16.fields["copy"], to_bf16.fields["dtype"]) == ("copy", "bfloat16", "fp32")
    direct = decode(_one("direct_copy_kernel_cuda").event["name"])
    assert (direct.family, direct.fields["copy"], direct.fields["launcher"]) == (
        "copy",
        "direct",
        "unrolled_elementwise_kernel",
    )


# --- naming schemes the fixtures do not contain -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "family", "fields"),
    [
        (
            "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn",
            "gemm",
            {"dtype": "bf16", "tile": "128x128", "k_tile": "32", "stages": "5", "layout": "tn", "math": "tensor core",
             "accumulate": "fp32", "instruction": "16816"},
        ),
        (
            "volta_h884gemm_128x128_ldg8_nn",
            "gemm",
            {"dtype": "fp16", "accumulate": "fp16", "math": "tensor core", "layout": "nn"},
        ),
        ("ampere_sgemm_128x64_tn", "gemm", {"dtype": "fp32", "math": "CUDA cores (FMA)"}),
        (
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
            "kernel__5x_cublas",
            "gemm",
            {"arch": "sm90", "dtype": "bf16", "compute": "fp32", "tile": "128x256x64", "warpgroups": "2x1x1",
             "math": "tensor core"},
        ),
        (
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_tn_align8>("
            "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_tn_align8::Params)",
            "gemm",
            {"arch": "sm80", "math": "tensor core", "dtype": "bf16", "epilogue": "relu", "tile": "128x128",
             "k_tile": "32", "stages": "4", "layout": "tn", "alignment": "8"},
        ),
        ("cutlass_80_simt_sgemm_128x128_8x4_nn_align1", "gemm", {"math": "CUDA cores (SIMT)", "dtype": "fp32"}),
        (
            "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized_"
            "cooperative_epi_tma",
            "gemm",
            {"arch": "sm90", "dtype": "bf16", "accumulate": "fp32", "tile": "128x256x64", "cluster": "1x2x1"},
        ),
        (
            "nvjet_hsh_96x128_64x7_2x1_v_bz_TNN",
            "gemm",
            {"dtype": "fp16", "tile": "96x128", "k_tile": "64", "stages": "7", "cluster": "2x1", "layout": "TNN"},
        ),
        (
            "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0",
            "cudnn",
            {"arch": "sm80", "mma": "wmma", "knob": "6", "tile": "128x64x64", "shape": "4x1x1", "cluster": "1x1x1"},
        ),
        (
            "fmha_cutlassF_f32_aligned_32x128_gmem_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
            "cutlass::arch::Sm80, true, 32, 128, 65536, true, true>::Params)",
            "mem_efficient",
            {"dtype": "fp32", "output": "global memory", "max_k": "65536", "block_q": "32"},
        ),
        (
            "void (anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
            "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
            "softmax",
            {"input": "fp32", "accumulate": "fp32", "op": "softmax"},
        ),
        (
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
            "float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, "
            "float, float, float>, unsigned int, float, 4, 4>)",
            "reduce",
            {"op": "mean", "dtype": "fp32"},
        ),
        (
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
            "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>, std::array<char*, 2ul>)",
            "elementwise",
            {"op": "add", "dtype": "fp32", "vector": "4"},
        ),
        (
            "void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda("
            "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
            "{lambda(float)#1}, "
            "std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
            "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
            "elementwise",
            {"op": "sigmoid", "dtype": "fp32"},
        ),
        (
            "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
            "CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>>, 128, cutlass::bfloat16_t> > > >(Params)",
            "flash",
            {"version": "3", "arch": "sm90"},
        ),
        (
            "void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<64, 64, 256, 4, false, false, "
            "cutlass::half_t, Flash_kernel_traits<64, 64, 256, 4, cutlass::half_t> >, false, false, false, false, "
            "true, true, false>(pytorch_flash::Flash_fwd_params)",
            "flash",
            {"kernel": "flash_fwd_splitkv_kernel", "head_dim": "64", "block_n": "256", "dtype": "fp16"},
        ),
        ("triton_poi_fused_mul_0", "triton", {"kind": "pointwise", "ops": "mul", "index": "0"}),
        ("triton_red_fused__to_copy_sum_3", "triton", {"kind": "reduction", "ops": "_to_copy,sum"}),
        ("Memcpy HtoD (Pinned -> Device)", "memcpy", {"direction": "HtoD", "source": "Pinned"}),
        ("Memset (Device)", "memset", {"target": "Device"}),
        (
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "nccl",
            {"collective": "AllGather", "algorithm": "RING", "protocol": "LL"},
        ),
        ("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "nccl", {"collective": "SendRecv"}),
        (
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL128(ncclDevKernelArgsStorage<4096ul>)",
            "nccl",
            {"collective": "AllReduce", "reduction": "Sum", "dtype": "fp32", "protocol": "LL128"},
        ),
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "nccl", {"collective": "AllReduce"}),
    ],
)  # fmt: skip
def test_other_naming_schemes(name, family, fields):
    info = decode(name)
    assert info.family == family
    assert {k: info.fields.get(k) for k in fields} == fields
    assert len(info.short) <= SHORT_MAX


def test_unknown_names_pass_through():
    info = decode("my_custom_kernel")
    assert info == KernelInfo("my_custom_kernel", "other", "my_custom_kernel", {})
    long = "void some::deep::ns::really_long_kernel_name<int, float, other::thing<double> >(int, float, double*)"
    info = decode(long)
    assert (info.family, info.fields) == ("other", {})
    assert len(info.short) <= SHORT_MAX and not info.short.startswith("void") and "(" not in info.short
    assert "really_long_kernel_name" in info.short


def test_shorten():
    assert kernels.shorten("void at::native::foo_kernel<float, 4>(float*, int)") == "at::native::foo_kernel<float, 4>"
    assert kernels.shorten("plain") == "plain"
    s = kernels.shorten("a" * 200)
    assert len(s) == SHORT_MAX and s.endswith("…")


def test_families_and_rules():
    assert FAMILIES == (
        "gemm",
        "flash",
        "mem_efficient",
        "cudnn",
        "triton",
        "softmax",
        "reduce",
        "elementwise",
        "copy",
        "fill",
        "memcpy",
        "memset",
        "nccl",
        "other",
    )
    assert {r.family for r in kernels.RULES} <= set(FAMILIES)
    assert all(isinstance(r.pattern, re.Pattern) for r in kernels.RULES)


def test_kernel_info_is_frozen_and_hashable():
    info = decode("triton_tem_fused_flex_attention_0")
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.family = "gemm"  # type: ignore[misc]
    assert hash(info) == hash(decode("triton_tem_fused_flex_attention_0"))
    assert len({info, decode("triton_tem_fused_flex_attention_0")}) == 1


def test_decode_is_torch_free():
    import subprocess
    import sys

    code = (
        "import sys, attnprof.analysis.kernels, attnprof.analysis.occupancy, attnprof.records.trace; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_doctests():
    assert doctest.testmod(kernels).failed == 0


# --- labels in the page's language -------------------------------------------------------------------------------


def test_labels_put_into_words_keep_english_identical_and_have_every_language():
    for la in ALL:
        info = decode(la.event["name"])
        assert info.text("en") == info.text(None) == info.short
        for language in ("ja",):
            label = info.text(language)
            assert "{" not in label and 0 < len(label) <= SHORT_MAX


@pytest.mark.parametrize(
    ("name", "ja"),
    [
        ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", "nvjet gemm 256x128 (bf16、Tensor コア)"),
        (
            "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
            "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
            "mem-efficient フォワード 64x64 (bf16、出力はレジスタ)",
        ),
        ("Memcpy DtoD (Device -> Device)", "memcpy DtoD (デバイス → デバイス)"),
        ("cutlass_80_simt_sgemm_128x128_8x2_nn_align1", "CUTLASS gemm 128x128 (fp32、SIMT)"),
        ("ampere_sgemm_128x64_tn", "cuBLAS sgemm 128x64 (fp32、CUDA コア)"),
    ],
)
def test_japanese_labels(name: str, ja: str):
    assert decode(name).text("ja") == ja


def test_a_long_op_list_ends_with_how_many_more_in_the_pages_language():
    info = decode("triton_red_fused__softmax_add_amax_exp_masked_fill_mul_sub_sum_where_div_neg_0")
    assert info.short.endswith(" more") and info.short.startswith("triton reduce: softmax, add")
    assert info.text("ja").startswith("triton リダクション: softmax, add") and "ほか" in info.text("ja")
    assert "more" not in info.text("ja")


@pytest.mark.parametrize(
    "name",
    [
        "triton_per_fused__softmax_exp_masked_fill_mul_prepare_softmax_online_sub_view_0",  # compiled_naive's
        "triton_red_fused__softmax_add_amax_exp_masked_fill_mul_sub_sum_where_div_neg_0",
        "triton_poi_fused__to_copy_flex_attention_ones_slice_sort_sum_transpose_zeros_3",
    ],
)
def test_every_language_lists_the_same_ops_before_how_many_more(name: str):
    """A label cut at an item cuts at the same item in every language, and says how many it left out."""
    info = decode(name)
    label = info.label
    n = label.items_shown()
    assert 0 < n < len(label.items), n
    for lang in words.LANGUAGES:
        text = info.text(lang)
        more = words.text("kernel.more", lang, n=len(label.items) - n)
        assert text.endswith(more) and len(text) <= kernels.SHORT_MAX, (lang, text)
        listed = text.removesuffix(more).split(": ", 1)[1].split(words.text("kernel.item_sep", lang))
        assert listed == list(label.items[:n]), (lang, text)


def test_family_names_in_the_pages_language():
    assert kernels.family_text("elementwise", "en") == "elementwise"
    assert kernels.family_text("elementwise", "ja") == "要素ごと"
    assert decode("Memset (Device)").family_text("ja") == "Memset"
    assert kernels.family_text("unheard_of", "ja") == "unheard_of"  # a family the table has no words for
    assert all(kernels.family_text(f, "ja") for f in kernels.FAMILIES)


# --- the backward and decoding kernels of the 2xH200 workload recordings ----------------------------------------


def _workload_kernel_names() -> set[str]:
    import gzip
    import json

    from helpers import WORKLOADS

    names = set()
    for path in (*WORKLOADS.glob("train/*.json.gz"), *WORKLOADS.glob("decode/*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            names |= {e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"}
    return names


@pytest.mark.parametrize(
    ("start", "family", "short", "fields"),
    [
        ("void pytorch_flash::flash_bwd_dot_do_o_kernel", "flash", "flash bwd dot(dO, O) hd64 (bf16)",
         {"direction": "bwd", "step": "dot(dO, O)", "head_dim": "64"}),
        ("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel", "flash",
         "flash bwd dQ dK dV hd64 128x128 (bf16)", {"block_m": "128", "warps": "8", "dtype": "bf16"}),
        ("void pytorch_flash::flash_bwd_convert_dq", "flash", "flash bwd convert dQ hd64 (bf16)",
         {"step": "convert dQ"}),
        ("void pytorch_flash::flash_fwd_splitkv_kernel", "flash", "flash split-KV fwd hd128 (bf16)",
         {"head_dim": "128", "step": "split-KV fwd"}),
        ("void pytorch_flash::flash_fwd_splitkv_combine", "flash", "flash split-KV combine hd128 (bf16)",
         {"step": "split-KV combine"}),
        ("void cudnn::fusion::compute_dot_do_o_specialized", "cudnn", "cuDNN bwd dot(dO, O) (hd64)",
         {"direction": "bwd", "head_dim": "64"}),
        ("void cudnn::fusion::convert_dq_to_16bits", "cudnn", "cuDNN bwd convert dQ to 16 bit", {"direction": "bwd"}),
        ("void cudnn::fusion::lean_reduction_kernel", "cudnn", "cuDNN split-KV reduction (lean attention)", {}),
        ("cudnn_generated_fort_native_sdpa_sm90_flash_bprop", "cudnn", "cuDNN sdpa flash bprop sm90 wgmma 64x64x64",
         {"algo": "flash_bprop", "knob": "26"}),
        ("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35", "cudnn",
         "cuDNN sdpa flash fprop sm80 wmma 16x128x128", {"arch": "sm80", "mma": "wmma"}),
        ("fmha_cutlassB_bf16_aligned_64x64_k64_seqaligned_sm80", "mem_efficient", "mem-efficient bwd 64x64 (bf16)",
         {"direction": "bwd", "max_k": "64"}),
        ("triton_tem_fused_flex_attention_backward_1", "triton", "triton template: flex_attention_backward", {}),
        ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, "
         "true, false", "gemm", "cuBLAS gemv (fp32)", {"op": "gemv"}),
        ("void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<c10::BFloat16", "softmax",
         "softmax block forward, in registers (bf16, fp32 acc)", {"accumulate": "fp32"}),
    ],
)  # fmt: skip
def test_backward_and_decoding_kernels_decode(start, family, short, fields):
    (name,) = [n for n in _workload_kernel_names() if n.startswith(start)][:1]
    info = decode(name)
    assert (info.family, info.short) == (family, short)
    assert fields.items() <= info.fields.items()


def test_every_workload_kernel_is_decoded_into_a_family():
    others = [n for n in _workload_kernel_names() if decode(n).family == "other"]
    assert others == []
