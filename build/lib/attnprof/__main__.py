"""``python -m attnprof``: the same as the ``attnprof`` command (:mod:`attnprof.cli`)."""

import sys

from attnprof.cli import main

if __name__ == "__main__":
    sys.exit(main())
