"""attnprof: profile attention variants in PyTorch and read what the profiler says.

The package never imports torch at import time: ``import attnprof`` is cheap, and the Sphinx extension
(:mod:`attnprof.sphinxext`) stays torch-free.
"""

__version__ = "0.1.0"
