"""Sphinx extension: live numbers, tables and pictures from result files, in every language of the site.

Pages never type a number: they name a variant and the extension reads its result file (written by the gallery
scripts through :func:`attnprof.records.results.save`) from ``attnprof_results_dir``. It never imports torch. Data
flows one way: result files -> :mod:`.lookup` (one cache; each result analysed once by
:mod:`attnprof.analysis.summary`) -> words and numbers (:mod:`attnprof.words`, :mod:`attnprof.words.fmt`) -> the
directives -> the page.

One module per family of directives, each with its own ``setup_*`` (:mod:`.nodes`, the shared building blocks,
registers the nodes they share):

==============================  ================================================================================
:mod:`.tables`                  ``kernel-table``, ``compare-table``, ``cpu-cost-table``
:mod:`.metrics`                 the ``metric`` role (one live value inside prose)
:mod:`.ranks`                   the ``fastest`` role (a measured order, from the data)
:mod:`.claims`                  ``claims``, ``claims-table``
:mod:`.occupancy`               ``occupancy-table``, ``occupancy-hypotheses``
:mod:`.scaling`                 ``scaling-table``, ``roofline-table``, ``sdpa-choice-table``
:mod:`.figures`                 ``timeline``, ``scaling-plot``, and the pictures' alt text
:mod:`.viewer`                  the interactive trace viewer after each timeline, and its script and stylesheet
:mod:`.parallel`                ``parallel-status``, ``parallel-table``, ``parallel-ranks``, ``parallel-kernels``,
                                ``parallel-memory``, ``parallel-timeline``, ``parallel-model``,
                                ``parallel-claims``, ``parallel-closing`` (context parallelism)
:mod:`.banner`                  ``env-banner``, and the banner every page gets
:mod:`.gallery`                 (no directive) re-running a gallery script whose result files are missing or
                                changed
:mod:`.depends`                 (no directive) what a page depends on: the list of result files, the code
:mod:`.buildtimes`              (no directive) where the build's time went, per script and phase
:mod:`.scripts`                 (no directive) the gallery pages' install line, the scripts' language and reuse
:mod:`.workloads`               ``train-table``, ``decode-table``, ``decode-kernel-table``, ``graph-table``
:mod:`.verdicts`                ``decision``, ``decision-summary`` (what a step costs, GPU and CPU; the advice)
:mod:`.eligibility`             ``eligibility-table``, ``eligibility-summary`` (which backend takes which inputs)
:mod:`.dropin`                  ``explain-report`` (``attnprof explain`` on a trace, read by the build),
                                ``dropin-reader`` (the same reading of a dropped trace, in the browser)
:mod:`.bundles`                 ``cross-gpu``, ``measured-elsewhere`` (figures from other machines, labelled)
:mod:`.trainscale`              ``train-scale-plot``, ``train-scale-table``, ``published-peaks`` (training at scale)
:mod:`.masks`                   ``mask-table``, ``mask-builds``, ``mask-verdicts``, ``mask-summary``, ``mask-claims``
                                (masks beyond causal)
==============================  ================================================================================

Example (MyST)::

    ```{kernel-table} sdpa_flash
    :caption: The kernels of one forward call
    ```

    The flash kernel took {metric}`sdpa_flash:gpu_ms`.

A variant that could not run shows its status and PyTorch's reason as a note. A missing or unreadable (stale)
result file is a Sphinx warning with the source location, and a visible warning box or inline marker on the page.
Words the extension writes itself come from :mod:`attnprof.words` in the build's ``language``; words written in
the directives' content (captions, "what the trace reveals" items) stay in the page and are translated with gettext
like the rest of it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from attnprof import __version__
from attnprof.settings import RESULTS_ENV
from attnprof.sphinxext.banner import setup_banner
from attnprof.sphinxext.buildtimes import setup_buildtimes
from attnprof.sphinxext.bundles import setup_bundles
from attnprof.sphinxext.claims import setup_claims
from attnprof.sphinxext.depends import code_version, setup_depends
from attnprof.sphinxext.dropin import setup_dropin
from attnprof.sphinxext.eligibility import setup_eligibility
from attnprof.sphinxext.fastest import setup_ranks
from attnprof.sphinxext.figures import setup_figures
from attnprof.sphinxext.gallery import setup_gallery
from attnprof.sphinxext.masks import setup_masks
from attnprof.sphinxext.metrics import setup_metrics
from attnprof.sphinxext.nodes import setup_nodes
from attnprof.sphinxext.occupancy import setup_occupancy
from attnprof.sphinxext.parallel import setup_parallel
from attnprof.sphinxext.scaling import setup_scaling
from attnprof.sphinxext.scripts import setup_scripts
from attnprof.sphinxext.tables import setup_tables
from attnprof.sphinxext.trainscale import setup_trainscale
from attnprof.sphinxext.verdicts import setup_verdicts
from attnprof.sphinxext.viewer import setup_viewer
from attnprof.sphinxext.workloads import setup_workloads

_PACKAGE_DIR = Path(__file__).parent.parent
#: The site's icon, in the package's ``_static``.
FAVICON = "attnprof-favicon.svg"


def _on_config_inited(app: Sphinx, config: Config) -> None:
    """Resolve the results folder; make the package's template, stylesheet and icon available to the HTML builders.

    ``attnprof_results_dir`` is taken from the folder of conf.py when relative (``attnprof-results`` when unset).
    The gallery scripts, which sphinx-gallery runs inside this process, find the same folder through
    :func:`attnprof.settings.results_dir`: the extension exports it as ``$ATTNPROF_RESULTS_DIR`` for them, so the
    configuration value is the one place that names it.
    """
    configured = config.attnprof_results_dir or "attnprof-results"
    config.attnprof_results_dir = str((Path(app.confdir) / configured).resolve())
    os.environ[RESULTS_ENV] = config.attnprof_results_dir
    config.templates_path = [*config.templates_path, str(_PACKAGE_DIR / "_templates")]
    config.html_static_path = [*config.html_static_path, str(_PACKAGE_DIR / "_static")]
    if not getattr(config, "html_favicon", None):  # the site's icon, unless conf.py names one (browsers ask for one)
        config.html_favicon = str(_PACKAGE_DIR / "_static" / FAVICON)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register every family of directives, the role, the transforms and the configuration values."""
    app.add_config_value("attnprof_results_dir", "", "env", types=frozenset({str}))
    app.connect("config-inited", _on_config_inited)
    app.add_css_file("attnprof.css")
    for setup_family in (setup_nodes, setup_tables, setup_metrics, setup_ranks, setup_claims, setup_occupancy,
                         setup_scaling, setup_figures, setup_viewer, setup_banner, setup_gallery, setup_scripts,
                         setup_workloads, setup_parallel, setup_buildtimes, setup_depends,
                         setup_eligibility, setup_dropin,
                         setup_bundles, setup_trainscale, setup_masks, setup_verdicts):  # fmt: skip
        setup_family(app)
    # env_version: a change to the code that renders the pages re-reads them all (attnprof.sphinxext.depends)
    return {"version": __version__, "env_version": code_version(), "parallel_read_safe": True,
            "parallel_write_safe": True}  # fmt: skip
