"""Views that live in the URL. Every page input is a keyed widget bound to a query parameter with Streamlit's own
`bind="query-params"` (the key is the parameter's name) and kept across page changes with
`persist_state="session"`; this module holds what binding alone does not do:

- a text box leaves the URL once its text is longer than URL_TEXT_MAX characters (links beyond ~8–16 KB fail
  at common proxies), and the page says so; a link's text longer than a box's max_chars is cut with a notice;
- a token is picked by word ("it", "it (2)" for its second occurrence), never by index, so a link survives a
  retrained tokenizer;
- a link value that names nothing on the page (a stale word, an unknown model, a layer out of range) is
  reported in a notice when the link is opened; Streamlit then drops it from the URL and the widget shows its
  default. Only bound widgets read a link, each value checked as it is read (runtime/link_values.py): nothing
  else in a session can be set from a link;
- a gallery and its text box opened from a link agree (a link may name only one of them);
- a "Copy link" control that copies the address bar as it is (bound widgets keep it current);
- the address of the last page run in this session, so the lecture page can offer the view just left.
"""
import html
import json
from urllib.parse import urlencode

import streamlit as st

import i18n
from app_pages._markup import md
from i18n import N_, _, ngettext
from runtime import page_inputs

BIND = "query-params"
KEEP = "session"
URL_TEXT_MAX = 2_000          # characters of a text box that still travel in a link
LABEL_MAX = 40                # characters of a word kept in its label (a link names a word, not a paragraph)
SHOWN_MAX = 60                # characters of a stale link value quoted in a notice
CHECKED = "_url_checked"      # session state: the keys whose link value was already checked in this session
TIP = N_("Copy this page's address, with every input on it: whoever opens it sees this view")
LAST = "_url_last_view"       # session state: (url path, query string) of the last page run, set by remember_view
SEEN = "_url_seen"            # session state: url path -> the keys of the inputs that page had in this session
KEPT = frozenset({"lang", "present"})    # the session's language and presentation mode: a view opened keeps them


def text_bind(key: str) -> str | None:
    """bind= for a text box: bound while its text fits a link, None (kept out of the URL) beyond. A text that came
    in through a link is bound on its first draw whatever its length, so the page reads (and clips) it."""
    value = st.session_state.get(key)
    return None if isinstance(value, str) and len(value) > URL_TEXT_MAX else BIND


def long_text_note(key: str) -> None:
    """A caption under a text box whose text is too long to travel in a link."""
    value = st.session_state.get(key)
    if isinstance(value, str) and len(value) > URL_TEXT_MAX:
        st.caption(_("This text has {n:,} characters, more than the {most:,} a link carries: it stays out of the "
                     "link, so a copied link opens the page's default text.").format(n=len(value), most=URL_TEXT_MAX))


def clipped_link_text(key: str, limit: int) -> None:
    """Before a text box with max_chars=limit is first drawn: Streamlit cuts a longer text from a link to the
    box's limit without a word, so say it as the pages' own clip notice does."""
    raw = None if key in st.session_state else st.query_params.get(key)
    if isinstance(raw, str) and len(raw) > limit:
        st.warning(_("The text has {n:,} characters; only the first {limit:,} are used.").format(n=len(raw),
                                                                                                 limit=limit))


def word_labels(words) -> list[str]:
    """One URL-safe label per word, unique and free of positions: the word itself (surrounding spaces dropped, a
    blank piece as "␣", a very long word cut to LABEL_MAX characters), then "word (2)", "word (3)" for its later
    occurrences. ["the", "cat", "the"] -> ["the", "cat", "the (2)"]."""
    seen: dict[str, int] = {}
    used: set[str] = set()
    out = []
    for w in words:
        w = str(w).strip() or "␣"
        w = w if len(w) <= LABEL_MAX else w[:LABEL_MAX] + "…"
        seen[w] = seen.get(w, 0) + 1
        label, n = w, seen[w]
        if n > 1 or label in used:                 # a typed "it (2)" never takes another word's label
            n = max(n, 2)
            label = f"{w} ({n})"
            while label in used:
                n += 1
                label = f"{w} ({n})"
        used.add(label)
        out.append(label)
    return out


def stale_link(key: str, labels, what: str, shown: str) -> bool:
    """Before a bound widget is drawn: on the first call for `key` in this session (a link being opened), if the
    URL holds a value for `key` that is none of `labels`, say so (escaped) and return True; Streamlit drops such a
    value and the widget shows `shown`. Later calls say nothing: the URL then follows the widget, and a word a new
    text no longer has is not a stale link."""
    checked = st.session_state.get(CHECKED, frozenset())
    if key in checked:
        return False
    st.session_state[CHECKED] = checked | {key}
    raw = st.query_params.get(key)
    if raw is None or raw in labels:
        return False
    if i18n.relabel(raw, labels) in labels:          # a link made in another language: the widget reads it so
        return False                                  # (runtime/link_values.py)
    raw = raw if len(raw) <= SHOWN_MAX else raw[:SHOWN_MAX] + "…"
    st.info(_("The link asked for {what} “{asked}”, which is not on this page now; showing “{shown}”.").format(
        what=what, asked=md(raw), shown=md(shown)))
    return True


def named_anew(key: str, labels) -> None:
    """Before a bound widget whose value is the label it shows (tabs): after a change of language the session still
    holds the label in the other language; name the same pick in this one, so the open tab stays open."""
    if st.session_state.get(key) not in (None, *labels):
        st.session_state[key] = i18n.relabel(st.session_state[key], labels)


def as_option(key: str, options, labels) -> None:
    """Before a bound widget whose options are internal values shown as `labels` (format_func; same order): a
    label held in session state (the browser may hand one back) is turned into its option."""
    picked = st.session_state.get(key)
    labels = list(labels)
    if isinstance(picked, str) and picked in labels:
        st.session_state[key] = list(options)[labels.index(picked)]


def stale_number(key: str, lo: float, hi: float, what: str, shown) -> bool:
    """stale_link for a number box or a slider: a link value that is not a number in lo..hi (Streamlit drops it
    and the widget shows `shown`) gets the same notice."""
    raw = st.query_params.get(key)
    try:
        fits = raw is not None and lo <= float(raw) <= hi
    except ValueError:
        fits = False
    return stale_link(key, [raw] if fits else [], what, str(shown))


def stale_picks(key: str, labels, what: str) -> bool:
    """stale_link for a multiselect: the link's values that name nothing on the page (Streamlit drops them)."""
    if key in st.session_state:
        return False
    gone = [v for v in st.query_params.get_all(key) if v not in labels and i18n.relabel(v, labels) not in labels]
    if gone:
        shown = ", ".join(f"“{md(v if len(v) <= SHOWN_MAX else v[:SHOWN_MAX] + '…')}”" for v in gone[:5])
        st.info(ngettext("The link asked to pick {what} {shown}, which is not on this page now; left unpicked.",
                         "The link asked to pick {what} {shown}, which are not on this page now; left unpicked.",
                         len(gone)).format(what=what, shown=shown))
    return bool(gone)


def gallery_link(gallery_key: str, text_key: str, examples: dict[str, str], own: str) -> None:
    """Before a gallery selectbox and the text box it fills are drawn: make a link that names only one of them
    open a matching pair (a gallery title alone brings its text; a text alone picks its title, or `own`)."""
    if text_key in st.session_state:
        return
    title, text = st.query_params.get(gallery_key), st.query_params.get(text_key)
    if text is None and title in examples:
        st.session_state[text_key] = examples[title]
    elif text is not None and title is None:
        st.session_state[gallery_key] = next((t for t, x in examples.items() if x == text), own)


def copy_link(label: str = N_("Copy link")) -> None:
    """A button that copies the page's current address (with every bound input) to the clipboard. The iframe is
    same-origin (st.iframe of an HTML string), so it reads the app's address and may write the clipboard; where
    the Clipboard API is missing (plain http off localhost) or refused, execCommand("copy") is tried, and the
    address is shown for copying by hand as a last resort."""
    label, tip = _(label), _(TIP)
    name, done, by_hand = json.dumps(label), json.dumps(_("Link copied ✓")), json.dumps(_("Copy this link:"))
    st.iframe(f"""
<style>
 button {{ width: 100%; height: 38px; font: 15px "Source Sans Pro", "Source Sans 3", system-ui, sans-serif;
   color: rgb(49, 51, 63); background: #fff; border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 8px;
   cursor: pointer; }}
 button:hover {{ border-color: #ff4b4b; color: #ff4b4b; }}
 body {{ margin: 0; }}
</style>
<button id="c" title="{html.escape(tip)}">{html.escape(label)}</button>
<script>
const b = document.getElementById("c");
function byHand(url) {{
  const t = document.createElement("textarea");
  t.value = url; document.body.appendChild(t); t.select();
  let ok = false;
  try {{ ok = document.execCommand("copy"); }} catch (e) {{}}
  t.remove();
  return ok;
}}
b.onclick = async () => {{
  const url = window.parent.location.href;
  let ok = false;
  try {{ await navigator.clipboard.writeText(url); ok = true; }} catch (e) {{ ok = byHand(url); }}
  if (!ok) {{ window.prompt({by_hand}, url); return; }}
  b.textContent = {done};
  setTimeout(() => {{ b.textContent = {name}; }}, 2000);
}};
</script>""", height=40, alt=_("Copy this page's link"))


def remember_view(url_path: str) -> None:
    """Keep this run's page and query string (what Copy link would give) in the session, and the keys of its inputs
    among those the page has had (its address's parameters, its widgets drawn): a view opened in this tab forgets
    their values first."""
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    st.session_state[LAST] = (url_path, urlencode(pairs))
    seen = st.session_state.get(SEEN, {})
    keys = {k for k, _v in pairs} | page_inputs.drawn()
    st.session_state[SEEN] = {**seen, url_path: seen.get(url_path, frozenset()) | keys}


def forget_inputs(url_path: str, keys=()) -> None:
    """Before a view of the page `url_path` opens in this tab: forget this session's values of the inputs that page
    had (remember_view) and of `keys`, so the page reads each from the view's address or shows its default, as a
    new tab would, and checks the view's values as a new tab does (stale_link). The language and presentation mode
    stay (KEPT)."""
    names = (st.session_state.get(SEEN, {}).get(url_path, frozenset()) | set(keys)) - KEPT
    for key in names:
        if key in st.session_state:
            del st.session_state[key]
    st.session_state[CHECKED] = st.session_state.get(CHECKED, frozenset()) - names
