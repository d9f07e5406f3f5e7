"""Section 1 of the image page: the image to read, a shipped sample, an upload or a drawing on a canvas, loaded
and checked."""
from pathlib import Path

import numpy as np
import streamlit as st

from app_pages import _runs, _url
from i18n import N_, _
from model import checkpoints
from model.data.images import ImageError

UPLOAD_TYPES = ["png", "jpg", "jpeg", "gif", "webp", "bmp"]
SOURCES = {"Sample": N_("Sample"), "Upload": N_("Upload"), "Draw": N_("Draw")}     # source -> its shown label
BOXES = {"Upload": N_("upload"), "Draw": N_("drawing")}                           # the box a link reopens
COLOURS = {"red": "#DB1F1F", "green": "#26A040", "blue": "#2E52E0", "black": "#1F1F1F"}
COLOUR_NAMES = {"red": N_("red"), "green": N_("green"), "blue": N_("blue"), "black": N_("black")}
TOOLS = {"rect": N_("rectangle"), "circle": N_("circle"), "polygon": N_("polygon"), "freedraw": N_("freehand")}
BIND, KEEP = _url.BIND, _url.KEEP        # every pick is in the URL and survives a visit to another page


def samples_folder() -> Path:
    """assets/samples, read from checkpoints.ASSETS at call time (tests point it elsewhere)."""
    return Path(checkpoints.ASSETS) / "samples"


def _drawing(digits: bool) -> bytes | None:
    """PNG bytes of what was drawn on the canvas (streamlit-drawable-canvas), or None while it is blank."""
    import io

    from PIL import Image
    try:
        from streamlit_drawable_canvas import st_canvas
    except ImportError:
        st.warning(_("Drawing needs the streamlit-drawable-canvas package (see requirements.txt); "
                     "samples and uploads work without it."))
        return None
    if digits:
        colour, mode, width = "#000000", "freedraw", 22
    else:
        a, b = st.columns(2)
        _url.as_option("img_draw_colour", COLOUR_NAMES, [_(c) for c in COLOUR_NAMES.values()])
        _url.as_option("img_draw_tool", TOOLS, [_(t) for t in TOOLS.values()])
        colour = COLOURS[a.radio(_("Colour"), list(COLOURS), format_func=lambda c: _(COLOUR_NAMES[c]),
                                 horizontal=True, key="img_draw_colour", bind=BIND, persist_state=KEEP)]
        mode = b.radio(_("Tool"), list(TOOLS), format_func=lambda t: _(TOOLS[t]), horizontal=True,
                       key="img_draw_tool", bind=BIND, persist_state=KEEP,
                       help=_("polygon: click the corners, double-click to close (a triangle)."))
        width = 3
    result = st_canvas(fill_color=colour, stroke_color=colour, stroke_width=width, drawing_mode=mode,
                       background_color="#FFFFFF" if digits else "#EDEDE6", width=288, height=288,
                       return_image_data=True, key=f"img_canvas_{digits}")
    img = result.image_data
    if img is None or np.ptp(img[..., :3]) < 30:
        return None
    buf = io.BytesIO()
    Image.fromarray(img[..., :3].astype(np.uint8), "RGB").save(buf, "PNG")      # the canvas is opaque
    return buf.getvalue()


def image_section(is_digits: bool):
    """Section 1: a sample, an upload or a drawing, loaded; stops the page until there is an image. Returns
    (source, loaded image, the sample's true answer or None, how the slides' caption names the picture)."""
    st.header(_("1 · Pick, upload or draw an image"))
    sources = [_(s) for s in SOURCES.values()]
    _url.stale_link("img_source", sources, _("the image source"), sources[0])
    _url.as_option("img_source", SOURCES, sources)
    source = st.radio(_("Image source"), list(SOURCES), format_func=lambda s: _(SOURCES[s]), horizontal=True,
                      key="img_source", bind=BIND, persist_state=KEEP)
    kind = "digit" if is_digits else "scene"
    truth = None
    picture = {"Upload": _("uploaded image"), "Draw": _("drawn image")}.get(source)   # the slides' caption names it
    if source != "Sample":
        st.caption(_("An uploaded or drawn image stays in this browser: a copied link opens this page on the {box} "
                     "box, not on the image.").format(box=_(BOXES[source])))
    if source == "Sample":
        files = sorted(samples_folder().glob(f"{kind}_*.png"))
        if not files:
            st.error(_("No sample images in {folder}. Recreate them with `python -m model.training.recipes._images`."
                       ).format(folder=samples_folder()))
            st.stop()
        # one picker per kind of model (their samples differ); the address names the file (?img_digit=digit_3_0)
        _url.stale_link(f"img_{kind}", [p.stem for p in files], _("the sample"), files[0].stem)
        pick = st.selectbox(_("Sample"), files, format_func=lambda p: p.stem, key=f"img_{kind}", bind=BIND,
                            persist_state=KEEP)
        data = pick.read_bytes()
        truth = pick.stem.split("_")[1]
        picture = _("sample {name}").format(name=pick.stem)
    elif source == "Draw":
        data = _drawing(is_digits)
        if data is None:
            st.info(_("Draw a digit: one thick stroke, as large as the box.") if is_digits else
                    _("Draw a few shapes, exactly one of them red: a circle, a square or a triangle."))
            st.stop()
    else:
        most = st.get_option("server.maxUploadSize")           # the one bound: the uploader's, the balancer's
        up = st.file_uploader(_("Upload an image (PNG, JPEG, GIF, WebP or BMP, up to {mb} MB)").format(mb=most),
                              type=UPLOAD_TYPES, key="img_upload")
        if up is None:
            st.info(_("Upload an image: a digit, dark on light or light on dark.") if is_digits else
                    _("Upload an image: a scene with one red circle, square or triangle."))
            st.stop()
        data = up.getvalue()
    try:
        loaded = _runs.load_image_bytes(data)
    except ImageError as e:
        st.error(_("This image cannot be used. {why}").format(why=e.shown(_)))
        st.stop()
    for note in loaded.notes:
        st.info(note.shown(_))                   # a cached run's Note, read in the session's language
    return source, loaded, truth, picture
