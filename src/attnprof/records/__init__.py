"""Records: the files a measurement leaves behind, and their readers.

Every file attnprof writes or reads goes through here: result and CPU-cost files (:mod:`.results`), the sweep file
(:mod:`.sweep`), the context-parallel run file (:mod:`.parallel`), Chrome traces (:mod:`.trace`), results bundles
that carry them to another machine's site (:mod:`.bundle`), the figures a publication reported
(:mod:`.published`), and the one safe way to check, write and read a file (:mod:`.files`). Readers know nothing of
measuring; they import no torch.
"""
