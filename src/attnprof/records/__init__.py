"""Records: the files a measurement leaves behind, and their readers.

Every file attnprof writes or reads goes through here. Each kind of file a build writes is declared once, in the
module of its record, in the register of record kinds (:mod:`.kinds`), which saves, loads (always through the
schema check, :mod:`.schema`), finds and bundles it: result and CPU-cost files (:mod:`.results`), fixed costs
(:mod:`.fixedcosts`), the sweep (:mod:`.sweep`), the context-parallel run (:mod:`.parallel`), the eligibility map
(:mod:`.eligibility`), the training-scale grid (:mod:`.trainscale`), the mask run (:mod:`.masks`) and a build's
times (:mod:`.buildtimes`). Besides them: Chrome traces (:mod:`.trace`), a rank's trace of a context-parallel run
(:mod:`.rank_trace`), traces recorded by anyone's code (:mod:`.foreign`), results bundles that carry a build's files
to another machine's site (:mod:`.bundle`), the figures a publication reported (:mod:`.published`), and the one safe
way to check, write and read a file (:mod:`.files`). Readers know nothing of measuring; they import no torch.
"""
