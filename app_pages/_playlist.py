"""A lecture playlist: views of the app (a page and its query parameters) with a course section, a title and a
note of what to point out; read from a pasted link or a JSON file, both checked, and written back as JSON. Plain
Python (no Streamlit), so the checks are tested on their own. The prepared plan is assets/lecture_plan.json, in
the same format as an exported playlist; its sections, titles and notes are extracted for translation
(babel.cfg's playlist extractor, i18n/extractors.py) and translated where the lecture page shows them."""
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from i18n import N_, _

PLAN = Path(__file__).resolve().parents[1] / "assets" / "lecture_plan.json"
FORMAT = "attention-lab-lecture"   # the "format" field of a playlist file
URL_MAX = 2_000                    # characters of a view's link (the limit _url keeps texts in links to)
TITLE_MAX = 120
NOTE_MAX = 600
SECTION_MAX = 40
VIEWS_MAX = 200
FILE_MAX = 64_000                  # bytes of an imported file
OWN = N_("Own view")               # the section of a view a lecturer added
KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,59}")      # a widget key, which names its query parameter
BARE_HOST = re.compile(r"[A-Za-z0-9.-]+:\d+(/|$)")
IGNORED = {"embed", "embed_options"}                  # Streamlit's own display parameters, not part of a view


class PlaylistError(ValueError):
    """A link or a file that cannot be a view or a playlist; the message says why, in words."""


@dataclass(frozen=True)
class View:
    section: str                      # "教材 12.2", "Tutorial part 3", "Lecture step 4", or OWN
    title: str
    page: str                         # a page's url path: "explorer"
    params: tuple[tuple[str, str], ...]   # query parameters in order; a key repeats for a multiselect's picks
    note: str                         # one sentence: what to point out

    def query(self) -> dict[str, str | list[str]]:
        """The parameters as st.page_link(query_params=...) takes them: a repeated key as a list."""
        out: dict[str, str | list[str]] = {}
        for k, v in self.params:
            if k not in out:
                out[k] = v
            elif isinstance(out[k], list):
                out[k].append(v)
            else:
                out[k] = [out[k], v]
        return out

    def url(self) -> str:
        """The view's address relative to the app's root: "explorer?explorer_token=it" (a relative link, so it
        also works for an app served under a base path)."""
        query = urlencode(self.params)
        return self.page + (f"?{query}" if query else "")

    def as_json(self) -> dict:
        return {"section": self.section, "title": self.title, "page": self.page, "params": self.query(),
                "note": self.note}


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "…"


def parse_link(link: str, pages, host: str | None = None) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(page, params) of a link to this app: a full http(s) address on `host` (any host when None) or a path
    ("/explorer?…"). A link elsewhere, another scheme (javascript:, data:, file:), an unknown page, a parameter
    no widget could own, or more than URL_MAX characters raise PlaylistError."""
    link = link.strip()
    if not link:
        raise PlaylistError(_("Paste a link first: open the view, press Copy link in the sidebar, paste it here."))
    if len(link) > URL_MAX:
        raise PlaylistError(_("The link has {n:,} characters; a view's link has at most {most:,}.").format(
            n=len(link), most=URL_MAX))
    if BARE_HOST.match(link):                       # "localhost:8501/explorer", copied without its http://
        link = "http://" + link
    parts = urlsplit(link)
    scheme = parts.scheme.lower()
    if scheme not in ("", "http", "https"):
        raise PlaylistError(_("Only links to this app (http or https) can be added, not “{scheme}:”.").format(
            scheme=_short(scheme)))
    if scheme and not parts.netloc:
        raise PlaylistError(_("The link has no address; paste it as Copy link gives it."))
    if parts.netloc and host and parts.netloc.lower() != host.lower():
        raise PlaylistError(_("The link points to another site (“{site}”); paste a link of this app (“{host}”).")
                            .format(site=_short(parts.netloc), host=_short(host)))
    page = parts.path.rstrip("/").rsplit("/", 1)[-1]    # the last segment: the app may be served under a base path
    if not page:
        raise PlaylistError(_("The link opens the home page, which has no inputs to show; open a page, set it up, "
                              "then copy its link."))
    if page not in pages:
        raise PlaylistError(_("“{page}” is not a page of this app; its pages are: {pages}.").format(
            page=_short(page), pages=", ".join(pages)))
    params = []
    for k, v in parse_qsl(parts.query, keep_blank_values=True):
        if k in IGNORED:
            continue
        if not KEY.fullmatch(k):
            raise PlaylistError(_("The link's parameter “{name}” is not one this app's pages use.").format(
                name=_short(k)))
        params.append((k, v))
    return page, tuple(params)


def _text(raw: dict, field: str, limit: int, where: str, required: bool = True) -> str:
    value = raw.get(field, "")
    if not isinstance(value, str):
        raise PlaylistError(_("{where}: “{field}” must be text.").format(where=where, field=field))
    value = value.strip()
    if required and not value:
        raise PlaylistError(_("{where}: “{field}” is empty.").format(where=where, field=field))
    if len(value) > limit:
        raise PlaylistError(_("{where}: “{field}” has {n:,} characters; at most {most:,}.").format(
            where=where, field=field, n=len(value), most=limit))
    return value


def make_view(section: str, title: str, page: str, params, note: str, pages, where: str | None = None) -> View:
    """A View from its parts, each checked: texts within their limits, a known page, widget-key parameters whose
    values are text, and a link no longer than URL_MAX. where: what a message calls the view ("The view")."""
    where = _("The view") if where is None else where
    raw = {"section": section, "title": title, "note": note}
    fields = {f: _text(raw, f, n, where, required=f != "note")
              for f, n in (("section", SECTION_MAX), ("title", TITLE_MAX), ("note", NOTE_MAX))}
    if not isinstance(page, str) or page not in pages:
        raise PlaylistError(_("{where}: “page” must be one of this app's pages: {pages}.").format(
            where=where, pages=", ".join(pages)))
    if isinstance(params, dict):
        pairs = []
        for k, v in params.items():
            for one in v if isinstance(v, list) else [v]:
                pairs.append((k, one))
    else:
        pairs = list(params)
    for k, v in pairs:
        if not isinstance(k, str) or not KEY.fullmatch(k):
            raise PlaylistError(_("{where}: the parameter “{name}” is not one this app's pages use.").format(
                where=where, name=_short(str(k))))
        if not isinstance(v, str):
            raise PlaylistError(_("{where}: the parameter “{name}” must be text or a list of texts.").format(
                where=where, name=k))
    view = View(page=page, params=tuple(pairs), **fields)
    if len(view.url()) > URL_MAX:
        raise PlaylistError(_("{where}: its link has {n:,} characters; at most {most:,}.").format(
            where=where, n=len(view.url()), most=URL_MAX))
    return view


def dumps(views) -> str:
    """A playlist file: its format name and the views, in order."""
    return json.dumps({"format": FORMAT, "version": 1, "views": [v.as_json() for v in views]},
                      ensure_ascii=False, indent=1)


def loads(data: bytes | str, pages) -> list[View]:
    """The views of a playlist file; PlaylistError says what is wrong with a file that is not one."""
    if len(data) > FILE_MAX:
        raise PlaylistError(_("The file has {n:,} bytes; a playlist file has at most {most:,}.").format(
            n=len(data), most=FILE_MAX))
    try:
        doc = json.loads(data.decode("utf-8-sig") if isinstance(data, bytes) else data)
    except UnicodeDecodeError:
        raise PlaylistError(_("The file is not text (UTF-8); export a playlist from this page and import that."))
    except json.JSONDecodeError as e:
        raise PlaylistError(_("The file is not valid JSON (line {line}, column {column}: {why}).").format(
            line=e.lineno, column=e.colno, why=e.msg))
    except RecursionError:                             # brackets nested thousands deep: no playlist is
        raise PlaylistError(_("The file nests brackets too deeply to be a playlist; export a playlist from this "
                              "page and import that.")) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("views"), list):
        raise PlaylistError(_("The file is JSON but not a playlist: it needs “format”: “{format}” and a list "
                              "“views”, as an exported playlist has.").format(format=FORMAT))
    raw_views = doc["views"]
    if not raw_views:
        raise PlaylistError(_("The playlist in the file is empty."))
    if len(raw_views) > VIEWS_MAX:
        raise PlaylistError(_("The file has {n:,} views; a playlist holds at most {most}.").format(
            n=len(raw_views), most=VIEWS_MAX))
    views = []
    for i, raw in enumerate(raw_views, 1):
        where = _("View {i}").format(i=i)
        if not isinstance(raw, dict):
            raise PlaylistError(_("{where} is not an object with section, title, page, params and note.").format(
                where=where))
        params = raw.get("params", {})
        if not isinstance(params, dict):
            raise PlaylistError(_("{where}: “params” must be an object of parameter names and texts.").format(
                where=where))
        views.append(make_view(raw.get("section", ""), raw.get("title", ""), raw.get("page"), params,
                               raw.get("note", ""), pages, where))
    return views


def prepared(pages) -> list[View]:
    """The prepared plan: the course texts' sections in order, each with a view."""
    return loads(PLAN.read_bytes(), pages)
