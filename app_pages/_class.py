"""The class in the app: the shared answer store as a resource (classstore/store.py), the class
this session hosts, the join link and its QR code, what a refusal or a store that is down says, and the pieces
a predict-then-reveal box draws for a lecturer (app_pages/_predict.py): **Ask the class**, the class's live
counts before the reveal, the result after it, **Reset the class's answers**.

Who hosts: the session that started the class on the lecture page holds its code and key (session state, never
the link). A view opened from there carries `class_host=CODE.KEY` once; `adopt_host_link()` (app.py, every run)
moves it into that tab's session and out of the address bar, so a copied link never carries it."""
import hashlib
import io
import os
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

import i18n
from app_pages import _export
from classstore import store as cs
from classstore.store import Question, Refused, StoreDown, Tally
from i18n import N_, _, ngettext
from runtime import heavy_jobs
from viz.class_answers import plot_class_answers
from viz.slide import caption_line

HOST = "_class_host"          # session state: (code, key) of the class this session hosts
HOST_PARAM = "class_host"     # the one-time link parameter of a view opened from the lecture page
ASKED = "_class_asked"        # session state: a prediction's key -> the qid it was asked of the class as
SAID = "_class_said"          # session state: place -> (kind, text) said once, by the control it is about
PAGE = "classroom"            # the students' page (its url path)
CODE_PARAM = "class_code"     # the class code in the students' link (their page's code box is bound to it)
LIVE_S = 2                    # seconds between refreshes of the lecturer's counts
REFUSED = {
    "unknown_class": N_("No class has this code: check it, or the class has ended (a class lasts 24 hours)."),
    "not_host": N_("This tab does not host the class: open the view from the lecture page that started it."),
    "not_asked": N_("This question is no longer being asked."),
    "revealed": N_("The answer has been revealed: answers are closed."),
    "bad_pick": N_("That is not one of this question's options."),
    "too_fast": N_("Too many answers in a few seconds: wait a moment, then pick again."),
    "bad_student": N_("This link has no valid student id: open the join link again."),
    "not_revealed": N_("The class's answers are shown after the reveal."),
    "bad_question": N_("This question cannot be asked of the class."),
}


@st.cache_resource(show_spinner=False)
def _open(url: str) -> cs.ClassStore:
    return cs.open_store(url)


def store() -> cs.ClassStore:
    """The store this server uses (ATTENTION_LAB_CLASS_STORE, else the SQLite file); StoreDown if it cannot be
    opened."""
    return _open(os.environ.get(cs.ENV) or f"sqlite:///{cs.DEFAULT_SQLITE}")


def refused(e: Refused) -> str:
    return _(REFUSED[e.reason])


def down(e: StoreDown) -> None:
    """What a lecturer reads when the store is down: the class's answers pause, the page itself works."""
    st.warning(_("**The class's answer store cannot be reached**, so the class's answers are paused (students "
                 "cannot answer, counts cannot be read). Everything else on this page works as usual, your own "
                 "prediction too. Details: `{detail}`").format(detail=str(e).replace("`", "'")))


def say(where: str, kind: str, text: str) -> None:
    st.session_state.setdefault(SAID, {})[where] = (kind, text)


def said(where: str) -> bool:
    """Show the message left for this place by the last callback, once; whether there was one."""
    message = st.session_state.get(SAID, {}).pop(where, None)
    if message:
        getattr(st, message[0])(message[1])
    return message is not None


# who hosts
def adopt_host_link() -> None:
    """app.py, every run: a view opened from the lecture page carries class_host=CODE.KEY; this tab then hosts the
    class, and the parameter leaves the address bar at once."""
    raw = st.query_params.get(HOST_PARAM)
    if raw is None:
        return
    del st.query_params[HOST_PARAM]
    code, _dot, key = str(raw).partition(".")
    if cs.CODE.fullmatch(code) and key:
        st.session_state[HOST] = (code, key)
        try:                                      # the lecturer's heavy jobs wait ahead: only a key the store knows
            st.session_state[heavy_jobs.LECTURER] = store().is_host(code, key)
        except cs.StoreDown:
            st.session_state[heavy_jobs.LECTURER] = False


def hosting() -> tuple[str, str] | None:
    return st.session_state.get(HOST)


def host(code: str, key: str) -> None:
    """This session hosts the class it just created (its heavy jobs wait ahead of the class's)."""
    st.session_state[HOST] = (code, key)
    st.session_state[heavy_jobs.LECTURER] = True
    st.session_state.pop(ASKED, None)


def stop_hosting() -> None:
    st.session_state.pop(HOST, None)
    st.session_state.pop(ASKED, None)


def host_params() -> dict[str, str]:
    """What a view link opened from the lecture page adds so its tab hosts the class too ({} when not hosting)."""
    h = hosting()
    return {HOST_PARAM: f"{h[0]}.{h[1]}"} if h else {}


# the students' way in
def public_url() -> str:
    """The address students reach: `python -m serve up --public-url` (ATTENTION_LAB_PUBLIC_URL, default the
    balancer's), else the address this browser used."""
    configured = os.environ.get(cs.PUBLIC_URL_ENV)
    if configured:
        return configured.rstrip("/")
    url = getattr(st.context, "url", None)
    if url:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"
    return "http://localhost:8501"


def join_link(code: str, lang: str | None = None) -> str:
    """The students' link: their page with the class code (and the lecturer's language, when not English)."""
    lang = lang or i18n.language()
    params = {CODE_PARAM: code, **({"lang": lang} if lang != i18n.DEFAULT else {})}
    return f"{public_url()}/{PAGE}?{urlencode(params)}"


def qr(link: str) -> segno.QRCode:
    """The join link as a QR code (error correction M: a projector's glare or a phone's angle still reads)."""
    return segno.make(link, error="m", micro=False)


def qr_png(link: str, scale: int = 8) -> bytes:
    buf = io.BytesIO()
    qr(link).save(buf, kind="png", scale=scale, border=3)
    return buf.getvalue()


# a prediction asked of the class (app_pages/_predict.py)
def question(key: str, text: str, names: list[str], right: list[int], multi: bool,
             explain: str) -> Question | None:
    """A prediction as the class is asked it, in this session's language (the same question gets the same qid);
    None for one the class cannot be asked (more options than a phone shows)."""
    lang = i18n.language()
    ident = hashlib.blake2b(repr((key, text, names, right, multi)).encode(), digest_size=6).hexdigest()
    try:
        return Question(qid=f"p-{ident}", text={lang: text}, options={lang: list(names)}, answer=list(right),
                        multi=multi, explain={lang: explain})
    except Refused:
        return None


def _ask(key: str, q: Question) -> None:
    code, hkey = hosting()
    try:
        store().ask(code, hkey, [q])
    except StoreDown as e:
        say(key, "warning", _("The class's answer store cannot be reached: the question was not asked. "
                              "(`{detail}`)").format(detail=str(e).replace("`", "'")))
        return
    except Refused as e:
        say(key, "error", refused(e))
        return
    st.session_state.setdefault(ASKED, {})[key] = q.qid


def _reset(key: str, qid: str, again=None) -> None:
    code, hkey = hosting()
    try:
        store().reset(code, hkey, [qid])
    except (StoreDown, Refused) as e:
        say(key, "warning", refused(e) if isinstance(e, Refused) else _("The class's answer store cannot be "
                                                                         "reached: nothing was reset."))
        return
    if again is not None:
        again()


def asked(key: str, q: Question) -> bool:
    return hosting() is not None and st.session_state.get(ASKED, {}).get(key) == q.qid


def reveal_asked(key: str, q: Question | None) -> None:
    """The lecturer's own Reveal also reveals the class's question (when this box asked it)."""
    if q is None or not asked(key, q):
        return
    code, hkey = hosting()
    try:
        store().reveal(code, hkey, [q.qid])
    except (StoreDown, Refused):
        say(key, "warning", _("The class's answer store cannot be reached: the class will see the answer once "
                              "it is back and you press Reveal again."))


def chart(q: Question, t: Tally, code: str, *, key: str) -> None:
    """The class's counts as a bar chart (the right options marked once revealed)."""
    _text, names, _explain = q.shown(i18n.language())
    fig = plot_class_answers(t.counts, names, answered=t.answered, right=q.answer if t.revealed else None)
    _export.chart(fig, name=("class", code, q.qid, "answers"), key=key, width="stretch",
                  caption=caption_line(_("Class {code}").format(code=code),
                                       ngettext("{n} answer", "{n} answers", t.answered).format(n=t.answered)))


def summary(t: Tally) -> str:
    if not t.revealed:
        return ngettext("**{n}** student has answered.", "**{n}** students have answered.", t.answered).format(
            n=t.answered)
    share = t.correct_share
    return ngettext("**{n}** student answered; **{share}** right.", "**{n}** students answered; **{share}** right.",
                    t.answered).format(n=t.answered, share="–" if share is None else f"{share:.0%}")


def counts(key: str, q: Question, *, live: bool, again=None) -> None:
    """In a prediction's box of a hosting session: Ask the class (not asked yet), or the class's counts (live
    before the reveal) and Reset."""
    h = hosting()
    if h is None:
        return
    if not asked(key, q):
        st.button(_("Ask the class"), key=f"{key}_ask_class", icon=":material/groups:", on_click=_ask,
                  args=(key, q), help=_("Send this question to the class's phones; their answers appear here."))
        said(key)
        return
    code, hkey = h

    def draw():
        try:
            t = store().tally(code, q.qid, hkey)
        except StoreDown as e:
            down(e)
            return
        except Refused as e:
            st.caption(refused(e))
            return
        st.markdown(summary(t))
        chart(q, t, code, key=f"{key}_class_chart")

    st.caption(_("Class **{code}** · asked on the phones").format(code=code))
    if live:
        st.fragment(draw, run_every=LIVE_S)()
    else:
        draw()
    st.button(_("Reset the class's answers"), key=f"{key}_class_reset", icon=":material/restart_alt:",
              on_click=_reset, args=(key, q.qid, again), help=_("Forget the class's answers to this question and "
                                                                 "ask it again"))
    said(key)
