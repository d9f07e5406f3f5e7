"""Slide-ready exports of every chart, one way on every page.

chart() draws a Plotly figure as st.plotly_chart does and adds, in a small popover under it, a slide PNG at 2x and
an SVG: the figure with its title, axis titles, colour bar and a caption line (model, layer/head, text), made on
click by viz.slide + viz.render. The chart's own camera button saves the page figure under the same file name.
gif() turns a step-through (one figure per step) into an animated GIF, built when asked, with a progress bar."""
from collections.abc import Callable

import streamlit as st

from app_pages import _present
from i18n import _, ngettext
from viz import gif as gif_viz
from viz import render, slide

GIF_SCALE = 0.8             # GIF frames: the slide drawn at 1280 × 720 for 16:9
PNG_SCALE = 2


def stem(name) -> str:
    """A file name without extension: a string kept as file_stem cleans it, or parts joined by file_stem."""
    return slide.file_stem(*(name if isinstance(name, (tuple, list)) else (name,)))


def slide_png(fig, caption: str, title: str | None = None) -> bytes:
    """The slide version of fig as a PNG at PNG_SCALE × its layout pixels."""
    s = slide.slide_figure(fig, caption=caption, title=title)
    return render.render(s, format="png", width=s.layout.width, height=s.layout.height, scale=PNG_SCALE)


def slide_svg(fig, caption: str, title: str | None = None) -> bytes:
    """The slide version of fig as an SVG (text kept as text)."""
    s = slide.slide_figure(fig, caption=caption, title=title)
    return render.render(s, format="svg", width=s.layout.width, height=s.layout.height)


def chart(fig, *, name, caption: str, key: str | None = None, title: str | None = None, where=None,
          main: bool = False, **kwargs):
    """st.plotly_chart(fig, key=key, **kwargs) in `where` (a column, a tab; default the page), then the slide
    downloads. name: the file name without extension, or its parts ("coref_encoder", "L3H1", "attention");
    caption: slide.caption_line(model, head, text=...); title: the slide title when the figure has none.
    main: the page's main figure: while presenting, drawn first at full width (_present.main()).
    Returns what st.plotly_chart returns."""
    top = _present.main() if main else None
    where = top if top is not None else where if where is not None else st
    fig = _present.figure(fig)
    if _present.mode() is not None and fig.layout.width:      # a square map, as wide as its cells need
        kwargs["width"] = int(fig.layout.width)
    file = stem(name)
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
        st.download_button(_("Slide PNG (2x)"), lambda: slide_png(fig, caption, title), f"{file}.png", "image/png",
                           key=f"{ident}_slide_png", on_click="ignore", icon=":material/image:")
        st.download_button(_("SVG"), lambda: slide_svg(fig, caption, title), f"{file}.svg", "image/svg+xml",
                           key=f"{ident}_slide_svg", on_click="ignore", icon=":material/draw:")
    return out


def gif_frames(frame: Callable[[int], object], n: int, *, caption: str, progress=None) -> list[bytes]:
    """PNG bytes of frame(0) … frame(n − 1) as slides, all at the first frame's size (GIF_SCALE)."""
    pngs, size = [], None
    for i in range(n):
        s = slide.slide_figure(frame(i), caption=caption)
        size = size or (s.layout.width, s.layout.height)
        s.update_layout(width=size[0], height=size[1])
        pngs.append(render.render(s, format="png", width=size[0], height=size[1], scale=GIF_SCALE))
        if progress is not None:
            progress.progress((i + 1) / n, text=_("Drawing frame {i} of {n}…").format(i=i + 1, n=n))
    return pngs


def gif(frame: Callable[[int], object], n: int, *, name, caption: str, key: str, signature, what: str):
    """A "Make GIF" button; clicked, it draws frame(i) for i < n (a figure each) with a progress bar and offers
    the animated GIF, kept for this session while `signature` (the inputs it shows) stays the same.
    what: what one frame is ("generated token", "stage"). At most gif.MAX_FRAMES frames."""
    file = stem(name)
    store = f"{key}_gif"
    kept = st.session_state.get(store)
    if kept is not None and kept[0] != signature:
        del st.session_state[store]
        kept = None
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
        bar = c2.progress(0.0, text=_("Starting the renderer…"))
        try:
            data = gif_viz.animate(gif_frames(frame, n, caption=caption, progress=bar))
        except render.RenderError as e:
            bar.empty()
            c2.error(str(e))
            return
        bar.empty()
        st.session_state[store] = kept = (signature, data)
    if kept is not None:
        c2.download_button(_("GIF ({mb:.1f} MB)").format(mb=len(kept[1]) / 1e6), kept[1], f"{file}.gif", "image/gif",
                           key=f"{key}_gif_file", on_click="ignore", icon=":material/download:")
