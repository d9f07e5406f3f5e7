"""Slide-ready exports of every chart, and every download, one way on every page.

chart() draws a Plotly figure as st.plotly_chart does and adds, in a small popover under it, a slide PNG at 2x and
an SVG: the figure with its title, axis titles, colour bar and a caption line (model, layer/head, text), made on
click by viz.slide + viz.render. The chart's own camera button saves the page figure under the same file name.
download() is a download button made on click. gif() turns a step-through (one figure per step) into an animated
GIF, built when asked, with a progress bar, holding one of the server's heavy-job slots (runtime/heavy_jobs.py).

File names say what a file shows, and end in a short hash of the text it was made from (the caption's .text), so
two texts never share a name. A click that races a rerun, a file over the download limit, a session's files held
by the server: runtime/downloads.py, the server side of these buttons."""
import hashlib
from collections.abc import Callable

import streamlit as st

from app_pages import _present
from i18n import _, ngettext
from runtime import downloads, heavy_jobs
from viz import gif as gif_viz
from viz import render, slide

GIF_SCALE = 0.8             # GIF frames: the slide drawn at 1280 × 720 for 16:9
PNG_SCALE = 2
HASH_CHARS = 6              # hex characters of the text's hash in a file name
GIF_KEPT = "_export_gif"    # session state: (key, signature, GIF bytes) of the one GIF a session keeps


def text_hash(text: str) -> str:
    """A short, stable hash of a text: the same text gives the same one in every session and run."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()[:HASH_CHARS]


def stem(name, text: str | None = None) -> str:
    """A file name without extension: a string kept as file_stem cleans it, or parts joined by file_stem; with
    `text`, "_" and its hash appended ("coref_encoder_L3H1_attention_4f2a9c")."""
    base = slide.file_stem(*(name if isinstance(name, (tuple, list)) else (name,)))
    return f"{base}_{text_hash(text)}" if text else base


def download(label: str, make: Callable[[], bytes | str], name, ext: str, mime: str, *, key: str, where=None,
             text: str | None = None, icon: str | None = None):
    """A download button whose file is made on click by make() (no rerun), named stem(name, text) + "." + ext.
    What a click gets when it races a rerun, or when the file is too large: runtime/downloads.py."""
    where = where if where is not None else st
    return where.download_button(label, make, f"{stem(name, text)}.{ext}", mime, key=key, on_click="ignore",
                                 icon=icon)


def slide_png(fig, caption: str, title: str | None = None) -> bytes:
    """The slide version of fig as a PNG at PNG_SCALE × its layout pixels."""
    s = slide.slide_figure(fig, caption=caption, title=title)
    return render.render(s, format="png", width=s.layout.width, height=s.layout.height, scale=PNG_SCALE)


def slide_svg(fig, caption: str, title: str | None = None) -> bytes:
    """The slide version of fig as an SVG (text kept as text)."""
    s = slide.slide_figure(fig, caption=caption, title=title)
    return render.render(s, format="svg", width=s.layout.width, height=s.layout.height)


def chart(fig, *, name, caption: str, key: str | None = None, title: str | None = None, where=None,
          main: bool = False, share: float = 1.0, **kwargs):
    """st.plotly_chart(fig, key=key, **kwargs) in `where` (a column, a tab; default the page), then the slide
    downloads. name: the file name without extension, or its parts ("coref_encoder", "L3H1", "attention");
    caption: slide.caption_line(model, head, text=...); title: the slide title when the figure has none.
    main: the page's main figure: while presenting, drawn first at full width (_present.main()); share: the part of
    the page's width it is drawn in (1/3 in one of three columns), which presenting sizes its type to.
    Returns what st.plotly_chart returns."""
    top = _present.main() if main else None
    where = top if top is not None else where if where is not None else st
    fig = _present.figure(fig, main=main, share=share)
    if _present.mode() is not None and fig.layout.width:      # a square map, as wide as its cells need
        kwargs["width"] = int(fig.layout.width)
    file = stem(name, getattr(caption, "text", None))
    width, height = slide.slide_size(fig)
    config = {"displaylogo": False, **kwargs.pop("config", {}),
              "toImageButtonOptions": {"format": "png", "filename": file, "scale": PNG_SCALE, "width": width,
                                       "height": height}}
    out = where.plotly_chart(fig, key=key, config=config, **kwargs)
    if _present.mode() is not None:           # presenting: the figure alone (the camera button still saves it)
        return out
    box = where.popover(_("Slide export"), icon=":material/download:", type="tertiary",
                        help=_("This chart for a slide ({width} × {height}, title, axes, colour bar and a caption "
                               "line), made when you click.").format(width=width, height=height))
    with box:
        if render.browser_path() is None:
            st.caption(_(render.NO_BROWSER))
            return out
        ident = key or file
        slide_file = _("The slide")                  # drawn by the browser: made holding a heavy-job slot
        st.download_button(_("Slide PNG (2x)"), heavy_jobs.queued(lambda: slide_png(fig, caption, title), slide_file),
                           f"{file}.png", "image/png", key=f"{ident}_slide_png", on_click="ignore",
                           icon=":material/image:")
        st.download_button(_("SVG"), heavy_jobs.queued(lambda: slide_svg(fig, caption, title), slide_file),
                           f"{file}.svg", "image/svg+xml", key=f"{ident}_slide_svg", on_click="ignore",
                           icon=":material/draw:")
    return out


def gif_frames(frame: Callable[[int], object], n: int, *, caption: str, progress=None, job=None) -> list[bytes] | None:
    """PNG bytes of frame(0) … frame(n − 1) as slides, all at the first frame's size (GIF_SCALE); None if `job`
    (its heavy-job slot) was cancelled meanwhile."""
    pngs, size = [], None
    for i in range(n):
        if job is not None and job.finished:
            return None
        s = slide.slide_figure(frame(i), caption=caption)
        size = size or (s.layout.width, s.layout.height)
        s.update_layout(width=size[0], height=size[1])
        pngs.append(render.render(s, format="png", width=size[0], height=size[1], scale=GIF_SCALE))
        if progress is not None:
            progress.progress((i + 1) / n, text=_("Drawing frame {i} of {n}…").format(i=i + 1, n=n))
    return pngs


def gif(frame: Callable[[int], object], n: int, *, name, caption: str, key: str, signature, what: str):
    """A "Make GIF" button; clicked, it waits for one of the server's heavy-job slots (its place in line shown),
    draws frame(i) for i < n (a figure each) with a progress bar and offers the animated GIF. A session keeps one
    GIF (the last made, while `signature`, the inputs it shows, stays the same); a GIF over the download limit is
    refused. what: what one frame is ("generated token", "stage"). At most gif.MAX_FRAMES frames."""
    file = stem(name, getattr(caption, "text", None))
    kept = st.session_state.get(GIF_KEPT)
    if kept is not None and kept[0] == key and kept[1] != signature:
        del st.session_state[GIF_KEPT]                   # this chart's GIF shows another view
    if kept is not None and kept[:2] != (key, signature):
        kept = None                                      # none, or another chart's (kept until a new one is made)
    c1, c2 = st.columns([1, 2], vertical_alignment="center")
    if n > gif_viz.MAX_FRAMES:
        c1.caption(_("A GIF holds at most {most} frames, one per {what}; this one would need {n}.").format(
            most=gif_viz.MAX_FRAMES, what=what, n=n))
        return
    if render.browser_path() is None:
        c1.caption(_(render.NO_BROWSER))
        return
    if c1.button(ngettext("Make GIF ({n} frame)", "Make GIF ({n} frames)", n).format(n=n), key=f"{key}_gif_make",
                 icon=":material/animation:",
                 help=_("One frame per {what}, drawn as a slide (title, axes, caption); takes about a second "
                        "a frame.").format(what=what)):
        data = make_gif(frame, n, caption=caption, where=c2)
        if data is None:
            return
        st.session_state[GIF_KEPT] = kept = (key, signature, data)
    if kept is not None:
        c2.download_button(_("GIF ({mb:.1f} MB)").format(mb=len(kept[2]) / 1e6), kept[2], f"{file}.gif", "image/gif",
                           key=f"{key}_gif_file", on_click="ignore", icon=":material/download:")


def make_gif(frame: Callable[[int], object], n: int, *, caption: str, where) -> bytes | None:
    """The GIF's bytes, drawn holding a heavy-job slot; None (with the reason in `where`) when it was not made."""
    with heavy_jobs.slot(_("The GIF"), where=where) as job:
        if job is None:
            return None
        bar = where.progress(0.0, text=_("Starting the renderer…"))
        try:
            frames = gif_frames(frame, n, caption=caption, progress=bar, job=job)
            data = None if frames is None else gif_viz.animate(frames)
        except render.RenderError as e:
            bar.empty()
            where.error(str(e))
            return None
        bar.empty()
    if data is not None and len(data) > downloads.DOWNLOAD_MB << 20:
        where.error(_(downloads.TOO_LARGE).format(mb=len(data) / 2**20, most=downloads.DOWNLOAD_MB))
        return None
    return data
