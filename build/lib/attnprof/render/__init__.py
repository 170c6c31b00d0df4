"""Render: analysed results as text for a terminal (:mod:`.report`, :mod:`.workloadreport`), as pictures
(:mod:`.timeline`, :mod:`.ranktimeline`, :mod:`.scalingplot`, sharing :mod:`.pictures`) and as the interactive trace
view (:mod:`.viewer`); :mod:`.columns` writes a kernel row as the kernel table's cells. matplotlib is imported inside
the functions that draw.
"""
