"""Words of the text tables of the other workloads and of context parallelism (:mod:`attnprof.workloadreport`),
as the gallery scripts 12 to 14 and the command line print them."""

from __future__ import annotations

WORKLOAD_REPORT: dict[str, dict[str, str]] = {}
