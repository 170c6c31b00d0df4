"""Rules for generated kernels: Triton's, as TorchInductor names them (``triton_<kind>_fused_<ops>_<n>``), and others.

Inductor's naming is read from its source (``torch/_inductor/codegen``): the kind of kernel, the origin ops it
fused joined by ``_``, and a counter.
"""

from __future__ import annotations

from attnprof.analysis.kernels.engine import RAW, Rule, Show, When

#: Inductor's kernel kinds (``triton_<kind>_...``) -> what they are (labels: ``kernel.triton.<kind>``).
INDUCTOR_KINDS = {
    "poi": "pointwise",
    "per": "persistent reduction",
    "red": "reduction",
    "tem": "template",
    "for": "foreach",
    "spl": "split scan",
    "sca": "scan",
}

#: Op names contain underscores themselves, so the joined list is split greedily against these multi-word names
#: (the ``names`` pipe), the longest first; single-word ops need no entry. A leading underscore survives as a
#: doubled separator (``fused__softmax``).
MULTIWORD_OPS = tuple(
    sorted(
        """
        masked_fill prepare_softmax_online flex_attention flex_attention_backward to_copy unsafe_view
        log_softmax safe_softmax native_layer_norm native_layer_norm_backward layer_norm group_norm
        native_group_norm batch_norm native_batch_norm scaled_dot_product_attention
        scaled_dot_product_flash_attention scaled_dot_product_efficient_attention
        scaled_dot_product_cudnn_attention index_put index_select index_add scatter_add scatter_reduce
        constant_pad_nd native_dropout rand_like randn_like full_like zeros_like ones_like empty_like
        new_zeros new_ones new_empty slice_scatter select_scatter split_with_sizes max_pool2d_with_indices
        avg_pool2d adaptive_avg_pool2d upsample_nearest2d upsample_bilinear2d nll_loss_forward cross_entropy
        gelu_backward silu_backward threshold_backward softmax_backward_data where_self bitwise_and
        bitwise_or bitwise_not logical_and logical_or logical_not clamp_min clamp_max sort_stable as_strided
        """.split(),
        key=lambda op: -op.count("_"),
    )
)

_KIND = {"kind": ("kernel.triton.{kind}", "{kind}")}

RULES = (
    Rule(
        "triton",
        r"^triton_(?P<kind>[a-z]+)_(?:fused_(?P<ops>\w+?)_)?(?P<index>\d+)$",
        (
            ("generator", "inductor"),
            ("kind", "{kind|lookup:inductor_kinds}"),
            ("index", "{index}"),
            ("_ops", "{ops|names:multiword_ops}"),
            ("ops", "{_ops|join:,|nonempty}"),
            When(
                {"_ops": True},
                # the label shows the ops without their leading underscore, as many as fit
                (Show("triton_ops", words=_KIND, items="{_ops|removeprefix:_}"),),
                (Show("triton_index", values={"index": "{index}"}, words=_KIND),),
            ),
        ),
    ),
    Rule("triton", r"^triton_", (("generator", "triton"), RAW)),
)

TABLES = {"inductor_kinds": INDUCTOR_KINDS, "multiword_ops": MULTIWORD_OPS}
