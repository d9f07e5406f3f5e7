"""The class page, a student's phone view: join with the lecturer's code (or the QR code's link), then
answer the question the lecturer is asking, one tap per pick, changed as often as wanted until the reveal; after
it, whether you were right and how the class answered. It teaches by asking first: commit to an answer, then see
the model's and the room's. No account, no name: a random id for this browser travels in the link (`student=`),
and that id and its picks are all the class's store keeps. The question area refreshes itself every POLL_S
seconds (a fragment), so the lecturer's next question or reveal arrives without a tap."""
import secrets

import streamlit as st

import i18n
from app_pages import _class, _url
from app_pages._markup import md
from classstore.store import CODE, CODE_LEN, STUDENT, Question, Refused, StoreDown, Tally
from i18n import _, ngettext

STUDENT_PARAM = "student"      # the browser's random id, in the link
STUDENT_STATE = "_classroom_student"
SENT = "_classroom_sent"       # session state: qid -> the picks the store acknowledged
POLL_S = 3                     # seconds between the question area's refreshes
LOOPBACK = {"127.0.0.1", "::1", None, ""}


def student_id() -> str:
    """This browser's random id: from the link, else new (and put in the link, so a reload keeps it)."""
    sid = st.session_state.get(STUDENT_STATE)
    if sid is None:
        raw = st.query_params.get(STUDENT_PARAM, "")
        sid = raw if STUDENT.fullmatch(raw or "") else secrets.token_hex(8)
        st.session_state[STUDENT_STATE] = sid
    if st.query_params.get(STUDENT_PARAM) != sid:
        st.query_params[STUDENT_PARAM] = sid
    return sid


def client() -> str:
    """The client's address for the store's rate (hashed there, never kept): behind the class balancer, the
    address it saw (X-Forwarded-For, trusted only from loopback)."""
    ip = getattr(st.context, "ip_address", None)
    forwarded = (st.context.headers or {}).get("X-Forwarded-For") if ip in LOOPBACK else None
    return forwarded.split(",")[-1].strip() if forwarded else (ip or "")


def _normalise() -> None:
    code = str(st.session_state.get(_class.CODE_PARAM) or "")
    st.session_state[_class.CODE_PARAM] = "".join(c for c in code.upper() if c.isalnum())[:CODE_LEN]


def letter(i: int) -> str:
    return chr(65 + i)


def _send(code: str, student: str, q: Question, key: str) -> None:
    """Pills callback: the pick goes to the store at once; what it answered is said under the pills."""
    value = st.session_state.get(key)
    if not q.multi and value is None:                  # a pill tapped off: the stored answer stays
        st.session_state[key] = (st.session_state.get(SENT, {}).get(q.qid) or (None,))[0]
        return
    picks = list(value or []) if q.multi else [value]
    before = st.session_state.get(SENT, {}).get(q.qid)
    try:
        got = _class.store().answer(code, student, q.qid, picks, client=client())
    except (StoreDown, Refused) as e:
        # the pills show the last pick the store holds, so picking again is a change the page sends
        st.session_state[key] = (list(before or []) if q.multi else (before or (None,))[0])
        _class.say(q.qid, "warning" if isinstance(e, StoreDown) else "error", _(
            "Not sent: the class's answer store cannot be reached. Pick again in a moment.") if isinstance(
            e, StoreDown) else _("Not sent: {why}").format(why=_class.refused(e)))
        return
    st.session_state.setdefault(SENT, {})[q.qid] = got
    picked = ", ".join(letter(i) for i in got) or _("none of them")
    _class.say(q.qid, "success", _("Saved: **{picked}**. You can change it until the reveal.").format(picked=picked))


def verdict(q: Question, mine, names: list[str]) -> None:
    right = set(q.answer)
    truth = ", ".join(f"{letter(i)} · {md(names[i])}" for i in sorted(right)) or _("none of them")
    if mine is None:
        st.info(_("You did not answer. The answer: {truth}.").format(truth=truth))
    elif set(mine) == right:
        st.success(_("**Right!** The answer: {truth}.").format(truth=truth))
    else:
        st.error(_("**Not quite.** The answer: {truth}.").format(truth=truth))


def shares(t: Tally, q: Question, names: list[str]) -> None:
    """How the class answered, option by option (a bar each, the right ones ticked)."""
    share = t.correct_share
    st.markdown(ngettext("The class: **{share}** of {n} student right.", "The class: **{share}** of {n} students "
                         "right.", t.answered).format(share="–" if share is None else f"{share:.0%}", n=t.answered))
    for i, name in enumerate(names):
        part = t.counts[i] / t.answered if t.answered else 0.0
        tick = " ✓" if i in set(q.answer) else ""
        st.progress(part, text=f"{letter(i)} · {md(name)}{tick} — {t.counts[i]} ({part:.0%})")


def one(code: str, student: str, q: Question, revealed: bool, mine, number: int | None) -> None:
    text, names, explain = q.shown(i18n.language())
    key = f"classroom_{q.qid}"
    if key not in st.session_state and mine is not None:     # a new session (reload, another replica): the stored pick
        st.session_state[key] = list(mine) if q.multi else mine[0]
    if mine is not None:
        st.session_state.setdefault(SENT, {})[q.qid] = tuple(mine)
    with st.container(border=True):
        st.markdown(f"**{number}.** {text}" if number else text)
        st.pills(_("Pick every one that applies (or none)") if q.multi else _("Your answer"), list(range(len(names))),
                 selection_mode="multi" if q.multi else "single", key=key,
                 format_func=lambda i: f"{letter(i)} · {md(names[i])}", on_change=_send,
                 args=(code, student, q, key), disabled=revealed)
        if not _class.said(q.qid) and mine is not None and not revealed:
            st.caption(_("Your answer: **{picked}** (saved; you can change it until the reveal).").format(
                picked=", ".join(letter(i) for i in mine) or _("none of them")))
        if not revealed:
            return
        verdict(q, mine, names)
        try:
            shares(_class.store().tally(code, q.qid), q, names)
        except (StoreDown, Refused):
            pass
        if explain:
            st.caption(explain)


def questions(code: str, student: str) -> None:
    """The question area: what the lecturer asks now, refreshed every POLL_S seconds."""
    try:
        asking = _class.store().asking(code)
        mine = _class.store().picks(code, student, [q.qid for q in asking.questions])
    except StoreDown:
        st.warning(_("The class's answers are paused for a moment (the class's store cannot be reached); this page "
                     "tries again by itself."))
        return
    except Refused as e:
        st.error(_class.refused(e))
        return
    if not asking.questions:
        st.info(_("Waiting for the lecturer's question…"))
        return
    several = len(asking.questions) > 1
    if several:
        done = sum(q.qid in mine for q in asking.questions)
        st.caption(_("{done} of {n} answered").format(done=done, n=len(asking.questions)))
    for i, q in enumerate(asking.questions, 1):
        one(code, student, q, q.qid in asking.revealed, mine.get(q.qid), i if several else None)


def render():
    st.title(_("Class"))
    student = student_id()
    st.text_input(_("Class code"), key=_class.CODE_PARAM, bind=_url.BIND, max_chars=CODE_LEN,
                  on_change=_normalise, placeholder=_("the code on the lecturer's screen"))
    code = str(st.session_state.get(_class.CODE_PARAM) or "").upper()
    if not code:
        st.caption(_("Scan the QR code on the lecturer's screen, or type the class code. No account and no name: "
                     "only a random id for this browser is kept, in this page's link."))
        return
    try:
        known = CODE.fullmatch(code) and _class.store().exists(code)
    except StoreDown:
        st.warning(_("The class cannot be reached right now; try again in a moment."))
        return
    if not known:
        st.error(_class.refused(Refused("unknown_class")))
        return
    st.caption(_("Class **{code}** · anonymous: only a random id for this browser is kept.").format(code=code))
    st.fragment(questions, run_every=POLL_S)(code, student)
