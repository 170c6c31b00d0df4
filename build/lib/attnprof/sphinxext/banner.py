"""The provenance banner: where and when the numbers of the site were measured, and what a CPU-only build lacks.

``env-banner`` places it; every page that does not place one itself gets it under its title
(``attnprof_env_banner = False`` turns that off). On a CPU-only build it says what is missing and how to get the GPU
guide: ``nox -s docs`` on a CUDA machine, with a link to the gallery's page (:data:`RUN_IT_YOURSELF`) when the
site has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective

from attnprof import words
from attnprof.analysis.summary import Analysis
from attnprof.records.results import Result
from attnprof.sphinxext import lookup
from attnprof.sphinxext.nodes import para, reason_node, status_words, words_para

#: The page that says how to run the scripts and build the site yourself (the gallery's index).
RUN_IT_YOURSELF = "auto_examples/index"
#: The command that builds the GPU guide on a CUDA machine.
BUILD_COMMAND = "nox -s docs"


class EnvBannerPlaceholder(nodes.General, nodes.Element):
    """Where the provenance banner goes; :class:`EnvBannerTransform` replaces it."""


class EnvBanner(SphinxDirective):
    """``env-banner``: where the numbers of the site come from (placed here instead of at the top of the page)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        node = EnvBannerPlaceholder()
        self.set_source_info(node)
        return [node]


def cudnn_version(version: str | None) -> str | None:
    """``"91900"`` -> ``"9.19.0"`` (cuDNN's integer encoding); other spellings unchanged."""
    if version and version.isdigit():
        n = int(version)
        if n >= 90000:
            return f"{n // 10000}.{(n % 10000) // 100}.{n % 100}"
        if n >= 1000:
            return f"{n // 1000}.{(n % 1000) // 100}.{n % 100}"
    return version


def _lines(found: Sequence[Result], lang: str | None) -> list[str]:
    groups: dict[tuple[Any, ...], list[Result]] = {}
    for r in found:
        e = r.environment
        key = (e.device_name, e.driver_version, e.cuda_version, cudnn_version(e.cudnn_version), e.torch_version)
        groups.setdefault(key, []).append(r)
    lines = []
    for (device, driver, cuda, cudnn, torch_version), rs in groups.items():
        parts = [words.text("banner.measured_on", lang, device=words.device(device, lang))]
        for key, value in (("driver", driver), ("cuda", cuda), ("cudnn", cudnn), ("torch", torch_version)):
            if value:
                parts.append(words.text(f"banner.{key}", lang, value=value))
        dates = sorted({r.environment.date[:10] for r in rs if r.environment.date})
        if dates:
            parts.append(words.text("banner.date", lang, value=" – ".join(dict.fromkeys([dates[0], dates[-1]]))))
        if len(groups) > 1:
            parts.append(words.text("banner.variants", lang, value=", ".join(r.variant for r in rs)))
        lines.append(" · ".join(parts))
    return lines


def _get_gpu(lang: str | None, docnames: Sequence[str], refdoc: str) -> nodes.paragraph:
    """How to get the GPU guide: the build command, and the gallery's page when the site has one."""
    link: nodes.Node | str = RUN_IT_YOURSELF
    if RUN_IT_YOURSELF in docnames:
        # the page's own title, in the page's language, as the link text
        link = addnodes.pending_xref(
            "", nodes.inline("", RUN_IT_YOURSELF), refdomain="std", reftype="doc", reftarget="/" + RUN_IT_YOURSELF,
            refexplicit=False, refwarn=True, refdoc=refdoc,
        )  # fmt: skip
    command = nodes.literal("", BUILD_COMMAND)
    return words_para("banner.get_gpu", lang, ["attnprof-get-gpu"], command=command, link=link)


def banner_nodes(
    analyses: Sequence[Analysis], lang: str | None, docnames: Sequence[str] = (), refdoc: str = ""
) -> list[nodes.Node]:
    """The provenance banner for these results: where and when, and, on a CPU-only build, what is missing and how
    to get the GPU guide (``docnames``: the site's pages, to link the gallery's from the page ``refdoc``)."""
    found = [a.result for a in analyses]
    if not found:
        return [nodes.note("", para(words.text("banner.no_results", lang)), classes=["attnprof-env-banner"])]
    lines = _lines(found, lang)
    cpu_only = not any(r.device == "cuda" and r.ok for r in found)
    if not cpu_only:
        box = nodes.container("", classes=["attnprof-env-banner"])
        box += para(nodes.strong("", words.text("banner.title", lang)), classes=["attnprof-env-banner-title"])
        for line in lines:
            box += para(line)
        return [box]

    title = nodes.title("", words.text("banner.cpu_only_title", lang))
    title["translatable"] = False
    box = nodes.admonition("", title, classes=["attnprof-env-banner", "attnprof-cpu-only", "warning"])
    box += para(words.text("banner.cpu_only", lang))
    box += _get_gpu(lang, docnames, refdoc)
    reasons: dict[tuple[str, str], list[str]] = {}
    for r in found:
        if not r.ok:
            reasons.setdefault((r.reason or "", r.status), []).append(r.variant)
    if reasons:
        items = nodes.bullet_list()
        for (reason, status), variants in reasons.items():
            shown = reason_node(reason, lang) if reason else status_words(status, lang)
            text = words_para("banner.reason_item", lang, variants=", ".join(variants), reason=shown)
            items += nodes.list_item("", text)
        box += items
    for line in lines:
        box += para(line, classes=["attnprof-env-line"])
    return [box]


class EnvBannerTransform(SphinxTransform):
    """Fill ``env-banner`` placeholders; put a banner under the title of every page that has none."""

    default_priority = 500  # after the translation of the page (Locale is 20)

    def apply(self, **kwargs: Any) -> None:
        placeholders = list(self.document.findall(EnvBannerPlaceholder))
        if not placeholders and not self.config.attnprof_env_banner:
            return
        banner = banner_nodes(
            lookup.all_results(self.env), self.config.language, sorted(self.env.found_docs), self.env.docname
        )
        if placeholders:
            for node in placeholders:
                node.replace_self([n.deepcopy() for n in banner])
            return
        section = next(iter(self.document.findall(nodes.section)), None)
        if section is None:
            self.document[0:0] = banner
            return
        index = 1 if section.children and isinstance(section[0], nodes.title) else 0
        section[index:index] = banner


def setup_banner(app: Sphinx) -> None:
    """Register the banner directive, its placeholder node and the transform that fills it."""
    app.add_config_value("attnprof_env_banner", True, "env", types=frozenset({bool}))
    app.add_directive("env-banner", EnvBanner)
    app.add_node(EnvBannerPlaceholder)
    app.add_transform(EnvBannerTransform)
