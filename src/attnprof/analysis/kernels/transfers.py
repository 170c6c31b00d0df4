"""Rules for data that moves: the profiler's memcpy and memset activities, and NCCL's collectives."""

from __future__ import annotations

from attnprof.analysis.kernels.engine import Rule, Show

#: The profiler's own names: ``Memcpy HtoD (Pinned -> Device)``, ``Memset (Device)``. The places are words
#: (``kernel.place.<place>``); a place the table has no word for is shown as recorded.
MEMORY = (
    Rule(
        "memcpy",
        r"^Memcpy (?P<direction>\w+) \((?P<src>[^)]*?) -> (?P<dst>[^)]*)\)$",
        (
            ("direction", "{direction}"),
            ("source", "{src}"),
            ("destination", "{dst}"),
            Show(
                "memcpy",
                values={"direction": "{direction}"},
                words={"src": ("kernel.place.{src}", "{src}"), "dst": ("kernel.place.{dst}", "{dst}")},
            ),
        ),
    ),
    Rule(
        "memset",
        r"^Memset \((?P<target>[^)]*)\)$",
        (("target", "{target}"), Show("memset", words={"target": ("kernel.place.{target}", "{target}")})),
    ),
)

# NCCL's device kernels: ncclDevKernel_<Collective>[_<RedOp>_<type>]_<ALGORITHM>_<PROTOCOL> (NCCL 2.19 and later;
# older releases say ncclKernel_); point-to-point transfers (send/recv, all-to-all) are ncclDevKernel_SendRecv.
# The algorithm (RING, TREE, NVLS, ...) and protocol (LL, LL128, SIMPLE) are NCCL's documented names.
COLLECTIVES = (
    Rule(
        "nccl",
        r"^(?:void )?nccl(?:Dev)?Kernel_(?P<coll>[A-Za-z]+?)(?:_(?P<op>Sum|Prod|Max|Min|PreMulSum|SumPostDiv)"
        r"_(?P<dtype>[a-z]+\d*))?(?:_(?P<algo>RING|TREE|COLLNET_DIRECT|COLLNET_CHAIN|NVLS_TREE|NVLS|PAT)"
        r"_(?P<proto>LL128|LL|SIMPLE))?(?:\(|$)",
        (
            ("collective", "{coll}"),
            ("reduction", "{op}"),
            ("dtype", "{dtype|dtype}"),
            ("algorithm", "{algo}"),
            ("protocol", "{proto}"),
            Show(
                "nccl",
                values={
                    "coll": "{coll}",
                    "how": (" ({algorithm|lower}, {protocol})", " ({algorithm|lower})", " ({protocol})", ""),
                },
            ),
        ),
    ),
    Rule(
        "nccl",
        r"^(?:void )?nccl(?:Dev)?Kernel_(?P<coll>[A-Za-z]+)",
        (("collective", "{coll}"), Show("nccl", values={"coll": "{coll}", "how": ""})),
    ),
)

TABLES: dict = {}
