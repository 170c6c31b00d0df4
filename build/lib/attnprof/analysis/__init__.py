"""Analysis: what a recorded measurement says, computed once per file and read by every page and command.

:mod:`.summary` turns a result into kernel rows, main kernel, SDPA's backend and CPU cost; :mod:`.kernels` decodes
kernel names; :mod:`.occupancy` is the occupancy calculator and :mod:`.zero_occupancy` tests explanations of a
reported 0 %; :mod:`.workload_rows` turns a build's training and decoding results into rows and the decision
table; :mod:`.rank_traces` reads the traces of a multi-GPU run, one per rank; :mod:`.parallelmodel` models more
GPUs from what such a run measured; :mod:`.claims` checks the article's claims and the site's own. No torch, and
no file is opened here: the records' readers hand the data in.
"""
