"""Browser tests of the built site (``pytest -m browser``; ``nox -s docs`` first, then ``nox -s browser``).

A package, so that its ``conftest`` does not take the place of ``tests/conftest.py`` as module ``conftest``.
"""
