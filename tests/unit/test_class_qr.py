"""The class's QR code is its join link (app_pages/_class.py). segno cannot decode, so the PNG the lecture page
shows is read back module by module (Pillow) and compared with a second, independent encoding of the expected link
(segno's own matrix); a link one character off gives another matrix, so the comparison can fail."""
import io

import segno
from PIL import Image

from app_pages import _class


def modules(png: bytes, scale: int = 8, border: int = 3) -> list[list[int]]:
    """The PNG's dark (1) and light (0) modules, read at each module's centre."""
    img = Image.open(io.BytesIO(png)).convert("L")
    n = img.width // scale - 2 * border
    assert img.width == img.height == (n + 2 * border) * scale
    return [[int(img.getpixel(((border + x) * scale + scale // 2, (border + y) * scale + scale // 2)) < 128)
             for x in range(n)] for y in range(n)]


def test_the_qr_code_shown_is_the_join_link(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_PUBLIC_URL", "http://192.168.1.20:8500/")
    link = _class.join_link("K7QF2M", lang="en")
    assert link == "http://192.168.1.20:8500/classroom?class_code=K7QF2M"
    assert _class.join_link("K7QF2M", lang="zh") == "http://192.168.1.20:8500/classroom?class_code=K7QF2M&lang=zh"
    shown = modules(_class.qr_png(link))
    expected = segno.make(link, error="m", micro=False)
    assert shown == [list(row) for row in expected.matrix]
    assert expected.error == "M" and expected.mode == "byte"
    other = segno.make(link.replace("K7QF2M", "K7QF2N"), error="m", micro=False)
    assert shown != [list(row) for row in other.matrix]
