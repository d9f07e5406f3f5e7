"""The interface language: one gettext message catalogue per language (locales/<lang>/LC_MESSAGES/messages.po,
compiled to the messages.mo beside it, which is what the app reads; `python -m i18n.catalogues` keeps both in step
with the source through Babel's pybabel), and the language of the running session. Pure Python (the standard
library's gettext reads the compiled file): model/, viz/ and app_pages/ all import it.

    from i18n import _, N_
    _("Layer")            # the current language's translation of "Layer" (English when none)
    TABS = [N_("Beam search"), ...]; _(TABS[0])   # N_ marks a string for extraction; _ translates it at use

The app tells this module where the session's language lives (`use`); elsewhere (the command line, tests) it
is a context variable set with `set_language`."""
import contextvars
import functools
import gettext
from collections.abc import Callable
from pathlib import Path

LANGUAGES = {"en": "English", "zh": "中文"}      # code -> its own name, as the switch shows it
DEFAULT = "en"                                    # the language the source strings are written in
LOCALES = Path(__file__).resolve().parents[1] / "locales"
DOMAIN = "messages"                               # the one gettext domain: locales/<lang>/LC_MESSAGES/messages.*

_language = contextvars.ContextVar("language", default=DEFAULT)
_source: list[Callable[[], str]] = [_language.get]


def use(source: Callable[[], str]):
    """Read the current language from `source()` from now on (app.py passes the session's state)."""
    _source[0] = source


def set_language(code: str):
    """Set the language of this thread or task's context (command line and tests), and read it from there from now
    on (a test process may have run the app, which told this module to read its sessions' state instead)."""
    _language.set(code if code in LANGUAGES else DEFAULT)
    _source[0] = _language.get


def language() -> str:
    """The current language code, one of LANGUAGES."""
    code = _source[0]()
    return code if code in LANGUAGES else DEFAULT


@functools.cache
def catalogue(code: str) -> gettext.NullTranslations:
    """A language's compiled messages (locales/<code>/LC_MESSAGES/messages.mo); English, the source language,
    translates nothing. The compiled file leaves out fuzzy entries (a translation not yet checked), as msgfmt does."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    with (LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as f:
        return gettext.GNUTranslations(f)


@functools.cache
def _labels() -> dict[str, tuple[str, ...]]:
    """Every message and every translation of it -> the messages (source texts) it renders, for relabel: one
    translation can render several messages (束搜索: "Beam search" and "beam search")."""
    out: dict[str, list[str]] = {}
    for code in LANGUAGES:
        for key, text in getattr(catalogue(code), "_catalog", {}).items():
            if isinstance(key, str) and key and text:
                for label in (text, key):
                    sources = out.setdefault(label, [])
                    if key not in sources:
                        sources.append(key)
    return {label: tuple(sources) for label, sources in out.items()}


def relabel(value: str, among=None) -> str:
    """A label shown in any language, in the current one ("Dark" or "深色" -> "深色" in Chinese, "Dark" in English);
    any other value unchanged. A bound widget writes its shown label into a link, so a link made in one language
    names its picks in that language. among: the labels the widget shows; where the value renders several
    messages, the one among them (else the first)."""
    shown = [_(source) for source in _labels().get(value, ())]
    if not shown:
        return value
    return next((s for s in shown if s in among), shown[0]) if among is not None else shown[0]


def _(message: str) -> str:
    """`message` in the current language."""
    return catalogue(language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for n, in the current language."""
    return catalogue(language()).ngettext(singular, plural, n)


def joined(items) -> str:
    """Items listed in the current language: "a, b, c" (English), "a、b、c" (Chinese)."""
    items = [str(i) for i in items]
    out = items[0] if items else ""
    for item in items[1:]:
        out = _("{items}, {item}").format(items=out, item=item)
    return out


def N_(message: str) -> str:
    """Mark `message` for translation where it is defined; translate it with _ where it is shown."""
    return message


class Message:
    """A message translated when it is shown (str()), not when it is made: for text inside a cached result, which
    sessions of either language share. Mark the text with N_ so it is extracted:
    `Message(N_("The text has {n} tokens."), n=12)`."""

    def __init__(self, text: str, **params):
        self.text, self.params = text, params

    def __str__(self) -> str:
        return _(self.text).format(**self.params)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Message({self.text!r}, **{self.params!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Message) and (self.text, self.params) == (other.text, other.params)

    def __hash__(self) -> int:
        return hash((self.text, tuple(sorted(self.params.items()))))
