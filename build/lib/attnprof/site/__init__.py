"""Site: the bilingual build. :mod:`.builder` builds every language in one process (``python -m
attnprof.site.builder``, what ``nox -s docs`` runs); :mod:`.localize` writes the gallery scripts in another language
through the catalogs.
"""
