"""The hostile-input catalogue: text, image bytes and weight-file damage that every page must turn
into a clear message (or a normal result), never an exception."""
import io

import numpy as np
from PIL import Image

XSS_IMG = '<img src=x onerror="window.__xss=1">'
XSS_SCRIPT = "<script>window.__xss=1</script>"

TEXTS = {
    "empty": "",
    "whitespace": "   \n\t  \n",
    "100k_chars": "the restaurant was busy . " * 4000,
    "one_long_word": "a" * 50_000,
    "emoji": "The restaurant 🍔🍟 refused to serve me 😡 because it was closed 🚫",
    "emoji_zwj": "👩‍👩‍👧‍👦 ate the raccoon 🦝",
    "chinese": "餐厅拒绝给我做火腿三明治，因为它只做素食。",
    "mixed_chinese": "The restaurant 餐厅 near the station 车站",
    "right_to_left": "המסעדה סירבה להגיש לי כריך כי היא צמחונית",
    "arabic": "رفض المطعم أن يقدم لي شطيرة",
    "bidi_override": "the \u202eretsaurant\u202c refused",
    "combining_marks": "the re\u0301stau\u0300rant\u0308 Z\u0351\u0352\u0353a\u0354\u0355l\u0356g\u0357o",
    "control_chars": "the\x01restaurant\x07refused\x1b[31m to serve",
    "nul": "the restaurant\x00 refused\x00",
    "html_img": XSS_IMG,
    "html_script": XSS_SCRIPT,
    "html_in_sentence": f"The restaurant {XSS_IMG} refused because it {XSS_SCRIPT} was closed",
    "markdown_injection": "**bold** [link](javascript:alert(1)) ![img](http://example.com/x.png) # Title\n---\n| a |",
    "latex": "$\\frac{1}{0}$ $$\\begin{matrix}a\\end{matrix}$$",
    "only_unknown": "zyxxy quorbl flembic snarfed wibbly",
    "only_punctuation": "?!.,;:…—()[]{}\"'",
    "only_digits": "0 1 2 3 4 5 6 7 8 9 3.14159 1e10",
    "special_tokens": "[CLS] [SEP] [MASK] [PAD] [UNK] [BOS] [EOS]",
    "many_masks": "[MASK] " * 300,
    "surrogate_like": "the restaurant \udcff refused" .encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
    "newlines": "\n" * 5000,
    "tabs_and_crlf": "the\trestaurant\r\nrefused\rto\tserve",
    "very_long_line_of_pronouns": "it they their them " * 400,
    "sql_like": "'; DROP TABLE tokens; --",
    "format_string": "{0} {tokens} %s %d {__class__}",
}


def _png(img: Image.Image, fmt: str = "PNG", **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _bomb() -> bytes:
    """A tiny PNG that claims a huge canvas (decompression bomb)."""
    return _png(Image.new("1", (20_000, 20_000)))


def _animated() -> bytes:
    frames = [Image.new("L", (32, 32), c) for c in (0, 255, 128)]
    return _png(frames[0], "GIF", save_all=True, append_images=frames[1:])


def _exif_rotated() -> bytes:
    img = Image.new("RGB", (40, 20), "white")
    exif = Image.Exif()
    exif[0x0112] = 6                                    # orientation: rotate 90°
    return _png(img, "JPEG", exif=exif)


def _sixteen_bit() -> bytes:
    arr = (np.linspace(0, 65535, 32 * 32).reshape(32, 32)).astype(np.uint16)
    return _png(Image.fromarray(arr))


IMAGES = {
    "zero_bytes": lambda: b"",
    "not_an_image": lambda: b"this is plain text, not an image\n" * 10,
    "corrupt_png": lambda: _png(Image.new("RGB", (32, 32), "red"))[:60],
    "random_bytes": lambda: np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8).tobytes(),
    "one_pixel": lambda: _png(Image.new("RGB", (1, 1), "white")),
    "huge_dimensions": _bomb,
    "cmyk_jpeg": lambda: _png(Image.new("CMYK", (32, 32), (0, 0, 0, 255)), "JPEG"),
    "rgba": lambda: _png(Image.new("RGBA", (32, 32), (255, 0, 0, 0))),
    "palette": lambda: _png(Image.new("P", (32, 32), 3)),
    "sixteen_bit": _sixteen_bit,
    "animated_gif": _animated,
    "exif_rotated": _exif_rotated,
    "webp": lambda: _png(Image.new("RGB", (24, 24), "blue"), "WEBP"),
    "bmp": lambda: _png(Image.new("RGB", (24, 24), "green"), "BMP"),
}

WEIGHT_DAMAGE = ("missing_weights", "missing_config", "truncated_weights", "mismatched_config", "garbage_json")
