"""A lecturer's cut of the playlist as one short text for the address bar (`?lecture_cut=…`), so a reload, a
bookmark or a copied link keeps it. Plain Python (no Streamlit), tested on its own.

The text names the prepared plan's views by number, in the cut's order, with runs as ranges ("1-12.15.14.20-43");
an own view is "x", and the own views' texts follow after "~" as zlib-compressed JSON in URL-safe base64, so the
whole cut stays within TEXT_MAX characters for any sensible cut: 43 reordered views take ~120 characters, an
own view ~100 more. A cut read back goes through the same checks as an imported file (_playlist.make_view)."""
import base64
import binascii
import json
import re
import zlib

from app_pages import _playlist
from i18n import _

OWN = "x"
ITEM = re.compile(r"(\d{1,4})(?:-(\d{1,4}))?|x")
OWN_JSON_MAX = _playlist.FILE_MAX          # bytes of the own views' JSON once inflated: a file's bound
TEXT_MAX = _playlist.URL_MAX               # characters of a cut's text: what a link carries of one text box
PlaylistError = _playlist.PlaylistError


def _runs(numbers: list[int]) -> list[str]:
    """[1, 2, 3, 7, 6] -> ["1-3", "7", "6"]: ascending runs of consecutive numbers as ranges."""
    out: list[list[int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return [f"{a}-{b}" if b > a else str(a) for a, b in out]


def dumps(views, plan) -> str | None:
    """The cut's text; None when `views` is the prepared plan itself (the address needs no cut)."""
    if list(views) == list(plan):
        return None
    index = {v: k for k, v in reversed(list(enumerate(plan, 1)))}
    items, own, numbers = [], [], []
    for v in views:
        if v in index:
            numbers.append(index[v])
            continue
        items += _runs(numbers)
        numbers = []
        items.append(OWN)
        own.append([v.section, v.title, v.page, v.url().partition("?")[2], v.note])
    items += _runs(numbers)
    text = ".".join(items)
    if own:
        packed = zlib.compress(json.dumps(own, ensure_ascii=False, separators=(",", ":")).encode(), 9)
        text += "~" + base64.urlsafe_b64encode(packed).decode().rstrip("=")
    return text


def _own_views(blob: str) -> list:
    try:
        packed = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        inflate = zlib.decompressobj()
        data = inflate.decompress(packed, OWN_JSON_MAX)
        if inflate.unconsumed_tail:                      # more than a playlist file may hold
            raise ValueError
        own = json.loads(data)
    except (binascii.Error, ValueError, zlib.error, RecursionError):
        raise PlaylistError(_("its own views cannot be read")) from None
    if not isinstance(own, list) or not all(isinstance(o, list) and len(o) == 5 for o in own):
        raise PlaylistError(_("its own views cannot be read"))
    return own


def loads(text: str, plan, pages) -> list[_playlist.View]:
    """The views a cut's text names; PlaylistError says, in a few words, what is wrong with one that cannot be read
    (a view number beyond the plan, a garbled part, an own view that fails the file's checks)."""
    if len(text) > TEXT_MAX:
        raise PlaylistError(_("it has {n:,} characters; at most {most:,}").format(n=len(text), most=TEXT_MAX))
    order, _tilde, blob = text.partition("~")
    own = _own_views(blob) if blob else []
    views = []
    for item in order.split(".") if order else []:
        m = ITEM.fullmatch(item)
        if m is None:
            raise PlaylistError(_("“{item}” names no view").format(item=item[:20]))
        if item == OWN:
            if not own:
                raise PlaylistError(_("it names more own views than it holds"))
            section, title, page, query, note = own.pop(0)
            link = f"{page}?{query}" if query else str(page)
            page, params = _playlist.parse_link(link, pages)
            views.append(_playlist.make_view(section, title, page, params, note, pages, _("An own view")))
            continue
        a, b = int(m[1]), int(m[2] or m[1])
        if a > b:
            raise PlaylistError(_("“{item}” names no view").format(item=item))
        if not 1 <= a or b > len(plan):
            raise PlaylistError(_("view {n} is not in the prepared plan of {most}").format(
                n=b if b > len(plan) else a, most=len(plan)))
        views += plan[a - 1:b]
    if not views or len(views) > _playlist.VIEWS_MAX:
        raise PlaylistError(_("it holds {n} views; a playlist holds 1 to {most}").format(
            n=len(views), most=_playlist.VIEWS_MAX))
    return views

