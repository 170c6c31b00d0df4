"""Measure: everything that runs attention and times it. The only floor that imports torch (inside functions).

:mod:`.timing` is the one timed-call loop, the CPU-side timers, peak memory and trace capture; :mod:`.steps` builds
one step of a workload for a variant; :mod:`.profiling` profiles a variant into a result (or makes one from a trace
a script recorded); :mod:`.cpucosts` and :mod:`.sweeprun` measure the side-by-side CPU costs and the sweep;
:mod:`.reuse` decides when a saved measurement can stand for a new one; :mod:`.cost` estimates what a run will need;
:mod:`.interrupts` keeps Ctrl-C an interrupt; :mod:`.parallelrun` and :mod:`.parallelrank` run context parallelism
on every GPU of the machine.
"""
