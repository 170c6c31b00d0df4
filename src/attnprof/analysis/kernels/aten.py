"""Rules for ATen's own CUDA kernels: softmax, reductions, and the TensorIterator kernels (elementwise ops, copies,
fills), read from PyTorch's source (``SoftMax.cu``, ``PersistentSoftmax.cuh``, ``Reduce.cuh``,
``TriangularOps.cu``, ``CUDALoops.cuh``): their fields are definite."""

from __future__ import annotations

from attnprof.analysis.kernels.dtypes import TYPE
from attnprof.analysis.kernels.engine import RAW, Rule, Search, Show, When

SOFTMAX = (
    # softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax, is_masked> (PersistentSoftmax.cuh)
    Rule(
        "softmax",
        rf"softmax_warp_(?P<direction>forward|backward)<(?P<input>{TYPE}),\s*(?P<output>{TYPE}),\s*"
        rf"(?P<acc>{TYPE}),\s*(?P<log2>\d+),\s*(?P<is_log>true|false)(?:,\s*(?P<masked>true|false))?",
        (
            ("kernel", "softmax_warp_{direction}"),
            ("input", "{input|dtype}"),
            ("output", "{output|dtype}"),
            ("accumulate", "{acc|dtype}"),
            ("elements", "{log2|pow2}"),
            ("log_softmax", "{is_log}"),
            ("masked", "{masked}"),
            ("op", "{is_log|map:softmax_ops}"),
            Show(
                "softmax_warp",
                values={"op": "{op}", "input": "{input}", "accumulate": "{accumulate}", "elements": "{elements}"},
                words={"direction": "kernel.dir.{direction}"},
            ),
        ),
    ),
    # cunn_SoftMaxForward<ILP, scalar_t, accscalar_t, outscalar_t, Epilogue> (SoftMax.cu), also the Smem variant
    Rule(
        "softmax",
        rf"cunn_(?:Log)?SoftMax(?P<direction>Forward|Backward)(?P<smem>Smem)?<(?P<ilp>\d+),\s*"
        rf"(?P<input>{TYPE}),\s*(?P<acc>{TYPE}),\s*(?P<output>{TYPE})",
        (
            ("kernel", "cunn_SoftMax{direction}{smem|default:}"),
            ("ilp", "{ilp}"),
            ("input", "{input|dtype}"),
            ("accumulate", "{acc|dtype}"),
            ("output", "{output|dtype}"),
            Search(r"(?P<_log>LogSoftMax)", "{@name}"),
            When({"_log": True}, (("op", "log_softmax"),), (("op", "softmax"),)),
            Show(
                "softmax_block",
                values={"op": "{op}", "input": "{input}", "accumulate": "{accumulate}"},
                words={"direction": "kernel.dir.{direction|lower}"},
            ),
        ),
    ),
    # cunn_SoftMaxForwardReg<scalar_t, accscalar_t, outscalar_t, Epilogue, index_t, ILP>: one row held in registers
    Rule(
        "softmax",
        rf"cunn_SoftMaxForwardReg<(?P<input>{TYPE}),\s*(?P<acc>{TYPE}),\s*(?P<output>{TYPE})",
        (
            ("kernel", "cunn_SoftMaxForwardReg"),
            ("input", "{input|dtype}"),
            ("accumulate", "{acc|dtype}"),
            ("output", "{output|dtype}"),
            ("op", "softmax"),
            Show("softmax_reg", values={"input": "{input}", "accumulate": "{accumulate}"}),
        ),
    ),
    Rule("softmax", r"[Ss]oft[Mm]ax", (("op", "softmax"), RAW)),
)

#: Reduction ops as they show up inside ATen's reduce_kernel template arguments, tried in order.
REDUCE_OPS = (
    r"::(?P<_op>\w+?)_kernel_cuda\b",  # and_kernel_cuda, or_kernel_cuda, ...
    r"::(?P<_op>\w+?)_functor\b",  # sum_functor, prod_functor
    r"::(?P<_op>\w+?)Ops<",  # MeanOps, MaxOps, MinOps, WelfordOps, NormOps, ...
)

# ATen TensorIterator kernels: the functor or the lambda's enclosing function names the op.
FUNCTOR = (
    r"(?P<_functor>(?:(?:at::native::|\(anonymous namespace\)::|binary_internal::|::)+)"
    r"(?!AUnary|BUnary|Binary)(?P<_functor_name>\w*?)Functor(?:OnSelf|OnOther)?(?:_(?P<_functor_op>\w+))?"
    r"<(?P<_functor_args>[^<>]*)>)"
)
LAMBDA_OWNER = r"(?:::|\s|<)(?P<_lambda_op>\w+?)_kernel(?:_impl|_cuda)*(?:_\w+)?\("
LAMBDA_ARGS = r"\{lambda\((?P<_lambda_args>[^()]+)\)#\d+\}"
#: ``copy_`` between dtypes or layouts: ``copy``, ``direct_copy``, ``bfloat16_copy``, ``float8_copy``, ...
COPY_OPS = r"copy|\w*_copy"

ELEMENTWISE = Rule(
    "elementwise",
    r"at::native::(?:\w+::)*(?P<launcher>vectorized_elementwise_kernel|unrolled_elementwise_kernel|"
    r"elementwise_kernel|index_elementwise_kernel|elementwise_kernel_with_index)<",
    (
        ("launcher", "{launcher}"),
        Search(r"^\s*(?P<_vector>\d+)\s*,", "{@after}"),
        When({"launcher": "vectorized_elementwise_kernel"}, (("vector", "{_vector}"),)),
        Search(FUNCTOR, "{@after}"),
        When(
            {"_functor": True},
            (
                (
                    "_op",
                    (
                        "{_functor_op|nonempty|removeprefix:CUDA|lower}",
                        "{_functor_name|nonempty|removeprefix:CUDA|lower}",
                        "?",
                    ),
                ),
                ("_dtype", "{_functor_args|split:,|item:0|dtype}"),
            ),
            (
                Search(LAMBDA_OWNER, "{@after}"),
                ("_op", "{_lambda_op}"),
                Search(LAMBDA_ARGS, "{@after}"),
                ("_dtype", "{_lambda_args|split:,|dtype|join:, }"),
            ),
        ),
        # AUnaryFunctor<in, in, out, Op>: the storage type is the wrapper's first argument
        Search(r"[AB]UnaryFunctor<(?P<_wrapped>[\w:]+),", "{@after}"),
        When({"_wrapped": True}, (("scalar_operand", "true"), ("_dtype", "{_wrapped|dtype}"))),
        ("op", ("{_op|nonempty}", "?")),
        ("dtype", "{_dtype|nonempty}"),
        When(
            {"op": COPY_OPS},
            (
                ("family", "copy"),
                ("copy", ("{op|removesuffix:_copy|nonempty}", "copy")),
                ("op", "copy"),
                When(
                    {"copy": "bfloat16"},
                    (Show("copy_to", values={"dtype": "{dtype|default:?}", "to": "bf16"}),),
                    (Show("copy", values={"dtype": "{dtype|default:?}"}),),
                ),
            ),
            (
                When(
                    {"op": "fill"},
                    (("family", "fill"), Show("fill", values={"dtype": "{dtype|default:?}"})),
                    (Show("elementwise", values={"op": "{op}", "dtype": "{dtype|default:?}"}),),
                ),
            ),
        ),
    ),
)  # fmt: skip

RULES = (
    *SOFTMAX,
    Rule(
        "reduce",
        r"reduce_kernel<(?P<threads>\d+),\s*(?P<vt>\d+),\s*at::native::ReduceOp<(?P<dtype>[\w:]+)",
        (
            ("threads", "{threads}"),
            ("output_vec", "{vt}"),
            ("dtype", "{dtype|dtype}"),
            Search(REDUCE_OPS, "{@after}"),
            ("op", ("{_op|lower|removesuffix:_impl}", "?")),
            Show("reduce", values={"op": "{op}", "dtype": "{dtype}"}),
        ),
    ),
    # triu_tril_kernel<scalar_t, IndexType, upper, elements_per_thread, inplace> (TriangularOps.cu)
    Rule(
        "elementwise",
        r"triu_tril_kernel<(?P<dtype>[\w:]+),\s*(?P<index>\w+),\s*(?P<upper>true|false),\s*(?P<ept>\d+),\s*"
        r"(?P<inplace>true|false)>",
        (
            ("op", "{upper|map:triu_tril}"),
            ("dtype", "{dtype|dtype}"),
            ("index", "{index}"),
            ("elements_per_thread", "{ept}"),
            ("inplace", "{inplace}"),
            Show("elementwise", values={"op": "{op}", "dtype": "{dtype}"}),
        ),
    ),
    ELEMENTWISE,
    Rule("copy", r"CatArrayBatchedCopy", (("op", "cat"), RAW)),
)

TABLES = {"softmax_ops": {"true": "log_softmax", "false": "softmax"}, "triu_tril": {"true": "triu", "false": "tril"}}
