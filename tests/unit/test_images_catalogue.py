"""The bad-image catalogue: files a user might upload, each refused with a clear message or converted
with a note. `CATALOGUE` is shared with the page test (tests/app/test_images.py)."""
import io
import pickle
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

import i18n
from model.data.images import MAX_BYTES, ImageError, load_image, preprocess


def _png(img: Image.Image, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", **kw)
    return buf.getvalue()


def _save(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def _digit(mode="L") -> Image.Image:
    """A dark '1' on white, 32 × 32."""
    a = np.full((32, 32), 255, np.uint8)
    a[4:28, 14:18] = 0
    return Image.fromarray(a).convert(mode)


def _claim_size(png: bytes, width: int, height: int) -> bytes:
    """Rewrite a PNG's IHDR to claim another size (a header-only decompression bomb)."""
    ihdr = bytearray(png[8:33])                      # length(4) 'IHDR'(4) data(13) crc(4)
    ihdr[8:16] = struct.pack(">II", width, height)
    ihdr[21:25] = struct.pack(">I", zlib.crc32(bytes(ihdr[4:21])))
    return png[:8] + bytes(ihdr) + png[33:]


def _bomb() -> bytes:
    """6,000 × 6,000 one-bit black pixels: 36 megapixels in a few kilobytes."""
    return _png(Image.new("1", (6000, 6000)))


def _animated() -> bytes:
    frames = [_digit("P"), Image.new("P", (32, 32), 3)]
    return _save(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)


def _exif_rotated() -> bytes:
    """A 40 × 20 JPEG whose EXIF says 'rotate 90°' (orientation 6): upright it is 20 × 40."""
    img = Image.new("RGB", (40, 20), "white")
    exif = Image.Exif()
    exif[0x0112] = 6
    return _save(img, "JPEG", exif=exif.tobytes())


def _sixteen_bit() -> bytes:
    a = (np.asarray(_digit(), dtype=np.uint16) * 257).astype(np.uint16)       # 0..65535
    return _png(Image.fromarray(a))                                          # mode I;16


def _rgba() -> bytes:
    img = Image.new("RGBA", (32, 32), (0, 0, 0, 0))                            # fully transparent
    img.paste((0, 0, 0, 255), (14, 4, 18, 28))
    return _png(img)


def _palette_transparent() -> bytes:
    img = _digit("P")
    return _png(img, transparency=255)


# name -> (bytes factory, "error" | "ok", a phrase the message or a note must contain)
CATALOGUE = {
    "zero bytes": (lambda: b"", "error", "empty (0 bytes)"),
    "not an image": (lambda: b"hello, I am a text file\n" * 20, "error", "not an image"),
    "corrupt bytes": (lambda: _png(_digit())[:60], "error", "corrupt"),
    "random bytes after a PNG signature": (lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "error", ""),
    "1 x 1": (lambda: _png(Image.new("RGB", (1, 1))), "error", "at least 8 pixels"),
    "huge dimensions in the header": (lambda: _claim_size(_png(_digit()), 100_000, 100_000), "error",
                                      "megapixels"),
    "decompression bomb": (_bomb, "error", "decompression bombs"),
    "too many bytes": (lambda: b"\x89PNG" + bytes(MAX_BYTES + 10), "error", "are accepted"),
    "TIFF": (lambda: _save(_digit(), "TIFF"), "error", "TIFF images are not accepted"),
    "CMYK JPEG": (lambda: _save(_digit("CMYK"), "JPEG"), "ok", "CMYK"),
    "RGBA": (_rgba, "ok", "Transparency"),
    "palette with transparency": (_palette_transparent, "ok", "Transparency"),
    "palette": (lambda: _png(_digit("P")), "ok", "palette"),
    "BMP": (lambda: _save(_digit("RGB"), "BMP"), "ok", ""),
    "16-bit": (_sixteen_bit, "ok", "16-bit"),
    "animated GIF": (_animated, "ok", "first frame"),
    "EXIF-rotated JPEG": (_exif_rotated, "ok", "EXIF orientation"),
    "WebP": (lambda: _save(_digit("RGB"), "WEBP"), "ok", ""),
}


@pytest.mark.parametrize("case", sorted(CATALOGUE))
def test_every_catalogue_case_is_refused_clearly_or_converted_with_a_note(case):
    make, outcome, phrase = CATALOGUE[case]
    data = make()
    if outcome == "error":
        with pytest.raises(ImageError) as e:
            load_image(data)
        assert isinstance(e.value, ValueError) and phrase in str(e.value)
        return
    loaded = load_image(data)
    assert loaded.image.mode == "RGB"
    assert not phrase or any(phrase in str(n) for n in loaded.notes), loaded.notes


def test_a_conversion_note_is_read_in_the_language_of_whoever_shows_it():
    """The app caches a LoadedImage for every session, so a note keeps its message and values: the same cached
    (pickled) note reads in English for one reader and in Chinese for another."""
    notes = pickle.loads(pickle.dumps(load_image(_png(_digit("P"))).notes))
    english = ["A palette image: its colours were looked up."]
    assert [n.shown(i18n._) for n in notes] == [str(n) for n in notes] == english
    i18n.set_language("zh")
    try:
        assert [n.shown(i18n._) for n in notes] == ["一张调色板图像：已按调色板查出颜色。"]
    finally:
        i18n.set_language("en")


def test_transparent_pixels_become_white_and_ink_stays_dark():
    a = np.asarray(load_image(_rgba()).image)
    assert (a[0, 0] == 255).all() and (a[10, 15] == 0).all()


def test_sixteen_bit_keeps_its_contrast():
    a = np.asarray(load_image(_sixteen_bit()).image)
    assert a.min() == 0 and a.max() == 255


def test_animation_gives_its_first_frame():
    a = np.asarray(load_image(_animated()).image.convert("L"))
    assert a[10, 15] < 50 and a[10, 2] > 200              # the '1' of frame 0, not the flat frame 1


def test_exif_orientation_turns_the_image_upright():
    assert load_image(_exif_rotated()).image.size == (20, 40)


def test_a_dark_digit_on_white_is_inverted_cropped_and_normalised():
    loaded = load_image(_png(_digit()))
    out = preprocess(loaded.image, size=8, grayscale=True, mean=[0.5], std=[0.25], ink_light=True, fit_ink=True)
    assert out.x.shape == (1, 8, 8)
    resized = {str(t): a for t, a in out.stages}["resized to 8 × 8"]
    assert resized.max() == pytest.approx(1.0) and resized[0, 0] == 0.0       # light ink, dark ground
    np.testing.assert_allclose(out.x[0], (resized - 0.5) / 0.25, atol=1e-6)
    assert [str(t) for t, _ in out.stages][:3] == ["original", "grayscale", "inverted"]


def test_colour_images_are_centre_cropped_to_a_square():
    img = Image.new("RGB", (60, 30), (255, 0, 0))
    img.paste((0, 0, 255), (0, 0, 15, 30))                     # a blue band cropped away
    out = preprocess(img, size=6, grayscale=False, mean=[0, 0, 0], std=[1, 1, 1])
    assert out.x.shape == (3, 6, 6)
    np.testing.assert_allclose(out.x[:, 0, 0], [1.0, 0.0, 0.0])
    assert any("Centre-cropped" in str(n) for n in out.notes)
