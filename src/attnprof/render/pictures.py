"""What every picture the package draws shares: the language its words can be written in, its size and type on the
page, matplotlib settings, and deterministic PNG bytes.

Size on the page: a picture drawn ``w`` inches wide is shown ``w`` × :data:`SHOWN_PX_PER_IN` CSS pixels wide (one
CSS inch per inch), so text of :data:`TEXT_PT` points is :data:`TEXT_PT` × 96 / 72 = 12 CSS pixels on screen. The
PNG has :data:`DPI` = twice as many pixels, sharp on hi-dpi screens; the page gives the image its CSS width
(:func:`shown_width_px`), and a picture wider than a phone's screen scrolls inside its figure instead of shrinking
below legibility. Pictures are at most :data:`MAX_WIDTH_IN` inches wide, the width of the page's text column.

Japanese needs a font with Japanese glyphs: an installed one (IPAexGothic, Noto Sans CJK JP, ...), or the one the
optional package ``matplotlib-fontja`` ships, registered without changing matplotlib's defaults. Without any, the
picture's words fall back to English rather than showing empty boxes.

matplotlib is imported inside the functions only, so importing this module costs nothing.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from attnprof import words

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: CSS pixels per inch of a picture as the page shows it (CSS's own inch).
SHOWN_PX_PER_IN = 96
#: Dots per inch of the PNG files: two device pixels per CSS pixel, for hi-dpi screens.
DPI = 2 * SHOWN_PX_PER_IN
#: The smallest text in any picture, in points: 12 CSS pixels on screen.
TEXT_PT = 9.0
#: Titles, in points.
TITLE_PT = 10.0
#: The widest picture, in inches: 720 CSS pixels, which fit furo's text column at 1280 px.
MAX_WIDTH_IN = 7.5

#: Font families known to carry Japanese glyphs, tried in this order.
CJK_FONTS = ("IPAexGothic", "Noto Sans CJK JP", "Noto Sans JP", "Source Han Sans JP", "IPAGothic", "TakaoGothic",
             "VL Gothic", "Hiragino Sans", "Yu Gothic", "Meiryo", "MS Gothic", "WenQuanYi Zen Hei")  # fmt: skip


@cache
def cjk_font() -> str | None:
    """The family of a font with Japanese glyphs that matplotlib can use, registering ``matplotlib-fontja``'s."""
    from matplotlib import font_manager

    spec = importlib.util.find_spec("matplotlib_fontja")
    if spec is not None and spec.origin:
        ttf = Path(spec.origin).parent / "fonts" / "ipaexg.ttf"
        if ttf.exists():
            font_manager.fontManager.addfont(str(ttf))
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


def picture_language(lang: str | None) -> str:
    """The language the picture's words can be written in here: ``lang``, or English without the glyphs."""
    lang = words.language(lang)
    if lang == "ja" and cjk_font() is None:
        return words.LANGUAGES[0]
    return lang


def picture_rc(lang: str) -> dict[str, object]:
    """matplotlib settings for a picture in ``lang``: a Japanese font after DejaVu Sans when one is there."""
    family: list[str] = ["DejaVu Sans"]
    if lang == "ja" and cjk_font():
        family.append(cjk_font())  # type: ignore[arg-type]
    sizes = {f"{axis}tick.labelsize": TEXT_PT for axis in "xy"}
    return {"font.family": family, "font.size": TEXT_PT, "axes.labelsize": TEXT_PT, "axes.titlesize": TITLE_PT,
            "legend.fontsize": TEXT_PT, **sizes, "svg.hashsalt": "attnprof"}  # fmt: skip


def shown_width_px(png: bytes | Path) -> int:
    """The CSS width (pixels) a PNG drawn here is shown at: its pixel width over :data:`DPI`, in CSS inches.

    Raises:
        ValueError: if ``png`` is not a PNG file.
    """
    head = Path(png).read_bytes()[:24] if isinstance(png, Path) else png[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"not a PNG file: {png if isinstance(png, Path) else 'bytes'}")
    return round(int.from_bytes(head[16:20], "big") * SHOWN_PX_PER_IN / DPI)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours given as ``#rrggbb``: 1 (none) to 21 (black on white); text wants at
    least 4.5."""

    def luminance(hex_color: str) -> float:
        channels = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lighter, darker = sorted((luminance(a), luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def ink(background: str) -> str:
    """The text colour for ``background`` (``#rrggbb``): black or white, whichever contrasts more. Every picture
    and the trace viewer write their labels on coloured bars with it."""
    return max(("#000000", "#ffffff"), key=lambda colour: contrast(colour, background))


def code_mtime_ns(*files: str | Path) -> int:
    """The newest modification time of the code that decides a picture's bytes: ``files`` (the drawing module),
    this module and the word table."""
    code = [Path(f) for f in files] + [Path(__file__), *Path(words.__file__).parent.glob("*.py")]
    return max(f.stat().st_mtime_ns for f in code)


def png_bytes(draw: Callable[[Figure], None], figsize: tuple[float, float], lang: str) -> bytes:
    """A picture as PNG bytes: ``draw`` fills a new figure (Agg, :data:`DPI`, words in ``lang``); no timestamps,
    so the same inputs give the same bytes."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(picture_rc(lang)):
        fig = Figure(figsize=figsize, dpi=DPI)
        FigureCanvasAgg(fig)
        draw(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def pyplot_figure(draw: Callable[[Figure], None], figsize: tuple[float, float], lang: str, dpi: int = DPI) -> Figure:
    """A picture as a pyplot figure (so that sphinx-gallery's scraper and notebooks show it)."""
    import matplotlib
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(picture_rc(lang)):
        fig = plt.figure(figsize=figsize, dpi=dpi)
        draw(fig)
    return fig
