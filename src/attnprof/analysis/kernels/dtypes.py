"""Element types as kernel names spell them, and the short names PyTorch users know (the ``dtype`` pipe's table)."""

from __future__ import annotations

#: C++ and library spellings of element types -> short names.
DTYPES = {
    "c10::BFloat16": "bf16",
    "cutlass::bfloat16_t": "bf16",
    "__nv_bfloat16": "bf16",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "c10::Half": "fp16",
    "cutlass::half_t": "fp16",
    "__half": "fp16",
    "half": "fp16",
    "fp16": "fp16",
    "f16": "fp16",
    "float": "fp32",
    "fp32": "fp32",
    "f32": "fp32",
    "tf32": "tf32",
    "double": "fp64",
    "f64": "fp64",
    "bool": "bool",
    "long": "int64",
    "int64_t": "int64",
    "int": "int32",
    "unsigned int": "uint32",
    "signed char": "int8",
    "char": "int8",
    "unsigned char": "uint8",
    "c10::Float8_e4m3fn": "fp8e4m3",
    "c10::Float8_e5m2": "fp8e5m2",
    "e4m3": "fp8e4m3",
    "e5m2": "fp8e5m2",
    "s8": "int8",
    "i8": "int8",
    "int8": "int8",
}

#: A C++ type in a template's arguments (``c10::BFloat16``, ``float const``).
TYPE = r"[\w:]+(?: const)?"

TABLES = {"dtypes": DTYPES}
