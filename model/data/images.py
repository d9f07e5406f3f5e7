"""Safe image loading and preprocessing for the patch models. Every bad file becomes an ImageError
(a ValueError) with a message a user can act on: empty, too many bytes, not an image, corrupt or
truncated, too small, too many pixels (decompression bombs are refused from the header, before
decoding). CMYK, RGBA/LA, palette, 16-bit and float images are converted; animations give their first
frame; EXIF orientation is applied. Preprocessing keeps every stage so a page can show it. Messages are English
message ids with their values (model.engine.messages), translated by the page that shows them: the app caches a
LoadedImage for every session, whatever its language."""
import io
import warnings
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from model.engine.errors import InputError
from model.engine.messages import N_, Note

FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP")
MAX_BYTES = 8 * 1024 * 1024
MAX_PIXELS = 25_000_000          # 5,000 × 5,000; a phone photo (12 MP) passes
MIN_SIDE = 8


class ImageError(InputError):
    """An image that cannot be used; the message says why and what is accepted."""


@dataclass
class LoadedImage:
    """image: 8-bit RGB PIL image; notes: what was converted on the way (shown to the user: note.shown(_))."""
    image: Image.Image
    format: str
    original_mode: str
    original_size: tuple[int, int]
    notes: list[Note] = field(default_factory=list)


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"


def _open(data: bytes, max_pixels: int) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(N_("The image declares more pixels than can be decoded safely; at most {most} megapixels "
                            "are accepted, and decompression bombs (huge images that compress to a few bytes) are "
                            "refused before decoding."), most=f"{max_pixels / 1e6:.0f}") from None
    except UnidentifiedImageError:
        raise ImageError(N_("This file is not an image that can be read. Use PNG, JPEG, GIF, WebP or BMP.")) from None
    except (OSError, SyntaxError, ValueError) as e:
        raise ImageError(N_("The image header is corrupt ({why})."), why=e) from None


def _to_8bit(img: Image.Image, notes: list[Note]) -> Image.Image:
    """16-bit / 32-bit integer and float greyscale -> 8-bit L, scaled by the range it uses."""
    a = np.asarray(img, dtype=np.float64)
    if img.mode.startswith("I;16") or (img.mode == "I" and a.max(initial=0) > 255):
        top = 65535.0 if a.max(initial=0) <= 65535 else a.max()
        notes.append(Note.of(N_("A {mode} (16-bit) image: scaled from 0–{top} to 0–255."), mode=img.mode,
                             top=f"{top:,.0f}"))
        a = a / top * 255
    elif img.mode == "F":
        lo, hi = a.min(initial=0), a.max(initial=0)
        notes.append(Note.of(N_("A floating-point image: stretched from {lo}–{hi} to 0–255."), lo=f"{lo:.3g}",
                             hi=f"{hi:.3g}"))
        a = (a - lo) / (hi - lo or 1) * 255
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")


def _to_rgb(img: Image.Image, notes: list[Note]) -> Image.Image:
    mode = img.mode
    if mode in ("I", "F") or mode.startswith("I;16"):
        img = _to_8bit(img, notes)
    if mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    elif mode == "P":
        notes.append(Note(N_("A palette image: its colours were looked up.")))
    if img.mode in ("RGBA", "LA", "PA"):
        notes.append(Note.of(N_("Transparency ({mode}) was flattened onto a white background."), mode=mode))
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    if mode == "CMYK":
        notes.append(Note(N_("A CMYK image (print colours): converted to RGB.")))
    return img.convert("RGB")


def load_image(data: bytes, *, max_bytes: int = MAX_BYTES, max_pixels: int = MAX_PIXELS) -> LoadedImage:
    """Bytes of an uploaded file -> LoadedImage (8-bit RGB). Raises ImageError with a clear message."""
    if not data:
        raise ImageError(N_("The file is empty (0 bytes)."))
    if len(data) > max_bytes:
        raise ImageError(N_("The file is {size}; images up to {most} are accepted."), size=_mb(len(data)),
                         most=_mb(max_bytes))
    img = _open(data, max_pixels)
    fmt = img.format or "?"
    if fmt not in FORMATS:
        raise ImageError(N_("{format} images are not accepted. Use PNG, JPEG, GIF, WebP or BMP."), format=fmt)
    w, h = img.size
    if w * h > max_pixels:
        raise ImageError(N_("The image is {w:,} × {h:,} pixels ({mp} megapixels); at most {most} megapixels are "
                            "accepted. Large images that compress to a few bytes (decompression bombs) are refused "
                            "before decoding."), w=w, h=h, mp=f"{w * h / 1e6:.0f}", most=f"{max_pixels / 1e6:.0f}")
    if min(w, h) < MIN_SIDE:
        raise ImageError(N_("The image is {w} × {h} pixels; each side needs at least {least} pixels."), w=w, h=h,
                         least=MIN_SIDE)
    notes, mode = [], img.mode
    n_frames = getattr(img, "n_frames", 1)
    try:
        if n_frames > 1:
            img.seek(0)
            notes.append(Note.of(N_("An animated image with {n} frames: the first frame is used."), n=n_frames))
        img.load()
        orientation = img.getexif().get(0x0112, 1)
        if orientation not in (1, None):
            img = ImageOps.exif_transpose(img)
            notes.append(Note.of(N_("The camera's EXIF orientation ({orientation}) was applied: the image was "
                                    "turned upright."), orientation=orientation))
        rgb = _to_rgb(img, notes)
    except ImageError:
        raise
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise ImageError(N_("The image data is corrupt or truncated ({why})."), why=e) from None
    return LoadedImage(rgb, fmt, mode, (w, h), notes)


@dataclass
class Preprocessed:
    """x: (C, S, S) float32, normalised, what the model reads; stages: (title, (h, w) or (h, w, 3) array
    in [0, 1]) in the order applied, the last the normalised array; notes: decisions taken (inverted, cropped).
    Titles and notes are Notes: the page shows them translated, title.shown(_)."""
    x: np.ndarray
    stages: list[tuple[Note, np.ndarray]]
    notes: list[Note] = field(default_factory=list)


def _square(img: Image.Image, fill) -> Image.Image:
    w, h = img.size
    side = max(w, h)
    canvas = Image.new(img.mode, (side, side), fill)
    canvas.paste(img, ((side - w) // 2, (side - h) // 2))
    return canvas


def _display(img: Image.Image, side: int = 256) -> np.ndarray:
    small = img.copy()
    small.thumbnail((side, side))
    return np.asarray(small, dtype=np.float32) / 255.0


def preprocess(img: Image.Image, *, size: int, grayscale: bool, mean, std, ink_light: bool = False,
               fit_ink: bool = False) -> Preprocessed:
    """RGB image -> model input. grayscale=True: L channel; ink_light: the model wants bright ink on a
    dark ground (digits), so an image with a bright border is inverted; fit_ink: crop to the ink's box
    (digits fill their frame). Then pad to a square, area-resize to size × size, scale to [0, 1]
    (digits: stretched so the brightest pixel is 1) and normalise per channel: (x - mean) / std."""
    stages, notes = [(Note(N_("original")), _display(img))], []
    if grayscale:
        img = img.convert("L")
        stages.append((Note(N_("grayscale")), _display(img)))
        a = np.asarray(img, dtype=np.float32) / 255.0
        if ink_light:
            border = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
            if border.mean() > 0.5:
                a = 1.0 - a
                notes.append(Note(N_("The background is light, so the image was inverted: this model reads light "
                                     "ink on dark.")))
                stages.append((Note(N_("inverted")), a))
        if fit_ink:
            rows, cols = np.nonzero(a > 0.2 * a.max(initial=0) if a.max(initial=0) > 0 else a > 1)
            if len(rows):
                a = a[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
                notes.append(Note(N_("Cropped to the ink so the digit fills the frame, as in the training data.")))
        img = _square(Image.fromarray((a * 255).round().astype(np.uint8), "L"), 0)
        if fit_ink and len(rows):
            stages.append((Note(N_("cropped to the ink")), np.asarray(img, dtype=np.float32) / 255.0))
    else:
        w, h = img.size
        side = min(w, h)
        img = img.crop(((w - side) // 2, (h - side) // 2, (w - side) // 2 + side, (h - side) // 2 + side))
        if w != h:
            notes.append(Note.of(N_("Centre-cropped from {w} × {h} to a square."), w=w, h=h))
    small = img.resize((size, size), Image.Resampling.BOX)
    a = np.asarray(small, dtype=np.float32) / 255.0                  # (S, S) or (S, S, 3)
    if grayscale and ink_light and a.max(initial=0) > 0:
        a = a / a.max()
    stages.append((Note.of(N_("resized to {size} × {size}"), size=size), a))
    chw = a[None] if a.ndim == 2 else a.transpose(2, 0, 1)           # (C, S, S)
    m = np.asarray(mean, dtype=np.float32)[:, None, None]
    s = np.asarray(std, dtype=np.float32)[:, None, None]
    x = ((chw - m) / s).astype(np.float32)
    stages.append((Note(N_("normalised")), x[0] if len(x) == 1 else x.transpose(1, 2, 0)))
    return Preprocessed(x, stages, notes)
