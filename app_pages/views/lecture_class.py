"""The lecture page's class panel: start a class and show its code, join link and QR code; what the
class is asked now with its live counts (the projector's histogram), Reveal, Reset and Stop asking; the pre/post
quiz asked in one go, and the class's gain per learning objective. A view opened from the lecture page while a
class runs hosts it too (its predictions offer Ask the class: app_pages/_predict.py)."""
import pandas as pd
import streamlit as st

import i18n
from app_pages import _class, _export, _quiz
from app_pages._markup import md
from classstore.store import Asking, Refused, StoreDown
from i18n import _, ngettext
from viz.class_answers import plot_quiz_gain
from viz.slide import caption_line

WHERE = "lecture_class"


def _start() -> None:
    try:
        code, key = _class.store().create()
    except StoreDown as e:
        _class.say(WHERE, "warning", _("The class's answer store cannot be reached, so no class was started. "
                                       "(`{detail}`)").format(detail=str(e).replace("`", "'")))
        return
    _class.host(code, key)


def _act(action: str, qids=(), questions=None) -> None:
    """A lecturer's button: ask (questions), reveal, reset or stop asking (qids) in the store; a refusal or a store
    that is down is said by the panel."""
    code, key = _class.hosting()
    s = _class.store()
    try:
        if action == "ask":
            s.ask(code, key, questions)
        elif action == "reveal":
            s.reveal(code, key, list(qids))
        elif action == "reset":
            s.reset(code, key, list(qids))
        else:
            s.stop_asking(code, key)
    except StoreDown as e:
        _class.say(WHERE, "warning", _("The class's answer store cannot be reached: nothing changed. "
                                       "(`{detail}`)").format(detail=str(e).replace("`", "'")))
    except Refused as e:
        _class.say(WHERE, "error", _class.refused(e))


def join(code: str) -> None:
    """The class's code, the QR code of its join link, the link itself."""
    link = _class.join_link(code)
    st.markdown(_("Class code **{code}**").format(code=code))
    st.image(_class.qr_png(link), width=200, caption=_("Scan to join"))
    st.markdown(f"[{md(link)}]({link})")          # the code is checked letters, the address the server's own
    with st.popover(_("Host link"), icon=":material/key:", help=_("Opens this class as its host in another "
                                                                  "browser (keep it to yourself)")):
        host = f"{_class.public_url()}/lecture?{_class.HOST_PARAM}={code}.{_class.hosting()[1]}"
        st.code(host, language=None, wrap_lines=True)


def live(code: str, key: str) -> None:
    """What the class is asked now: the question and its counts (one question), or each question's count (a quiz
    phase), and the buttons that act on it; refreshed every LIVE_S seconds (a fragment)."""
    s = _class.store()
    try:
        asking: Asking = s.asking(code)
        tallies = {q.qid: s.tally(code, q.qid, key) for q in asking.questions}
        first = s.question(code, asking.questions[0].qid, key) if asking.questions else None
    except StoreDown as e:
        _class.down(e)
        return
    except Refused as e:
        st.error(_class.refused(e))
        return
    qids = [q.qid for q in asking.questions]
    if not qids:
        st.caption(_("The class is not being asked anything now. Ask the quiz below, or open a view and press "
                     "**Ask the class** in its prediction box."))
    elif len(qids) == 1:
        text, _names, _explain = first.shown(i18n.language())
        st.markdown(text)
        st.markdown(_class.summary(tallies[first.qid]))
        _class.chart(first, tallies[first.qid], code, key="lecture_class_chart")
    else:
        group = asking.questions[0].group
        st.markdown(_("**Pre-quiz** asked") if group == "quiz-pre" else _("**Post-quiz** asked") if
                    group == "quiz-post" else _("{n} questions asked").format(n=len(qids)))
        rows = [{_("Question"): i, _("Answered"): tallies[q].answered,
                 _("Right"): (f"{tallies[q].correct_share:.0%}" if tallies[q].revealed and tallies[q].answered
                              else "–")}
                for i, q in enumerate(qids, 1)]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=36 * min(len(rows), 6) + 38)
    c1, c2, c3 = st.columns(3)
    c1.button(_("Reveal"), key="lecture_class_reveal", type="primary", width="stretch", on_click=_act,
              args=("reveal", qids), disabled=not qids or set(qids) <= asking.revealed, icon=":material/visibility:")
    c2.button(_("Reset"), key="lecture_class_reset", width="stretch", on_click=_act, args=("reset", qids),
              disabled=not qids, icon=":material/restart_alt:",
              help=_("Forget the class's answers to what is asked now and ask it again"))
    c3.button(_("Stop asking"), key="lecture_class_stop", width="stretch", on_click=_act, args=("stop",),
              disabled=not qids, icon=":material/stop_circle:")
    _class.said(WHERE)


def quiz(code: str, key: str) -> None:
    """The pre/post quiz: ask a phase, then the class's share right per objective before and after."""
    lang = i18n.language()
    quiz_ = _quiz.load()
    a, b = st.columns(2)
    for where, phase, label in ((a, "pre", _("Ask the pre-quiz")), (b, "post", _("Ask the post-quiz"))):
        where.button(label, key=f"lecture_class_quiz_{phase}", width="stretch", on_click=_act,
                     args=("ask", (), _quiz.questions(phase, quiz_)), icon=":material/quiz:",
                     help=ngettext("{n} question on the course's learning objectives, asked on every phone at once",
                                   "{n} questions on the course's learning objectives, asked on every phone at once",
                                   len(quiz_.items)).format(n=len(quiz_.items)))
    tallies = {}
    s = _class.store()
    for phase in _quiz.PHASES:
        for q in _quiz.questions(phase, quiz_):
            try:
                tallies[q.qid] = s.tally(code, q.qid, key)
            except Refused:                           # that phase was not asked yet
                continue
    gains = _quiz.gains(tallies, quiz_)
    if not any(g.answered_pre or g.answered_post for g in gains):
        st.caption(_("Ask the pre-quiz before the lecture and the post-quiz after it: the class's gain per "
                     "learning objective appears here."))
        return

    def pct(v):
        return "–" if v is None else f"{v:.0%}"
    names = [quiz_.objectives[g.objective].get(lang) or quiz_.objectives[g.objective]["en"] for g in gains]
    rows = [{_("Learning objective"): n, _("Before"): pct(g.pre), _("After"): pct(g.post),
             _("Gain"): "–" if g.gain is None else f"{100 * g.gain:+.0f} " + _("points")}
            for n, g in zip(names, gains)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    fig = plot_quiz_gain(names, [g.pre for g in gains], [g.post for g in gains],
                         title=_("Right answers per learning objective, before and after"))
    _export.chart(fig, name=("class", code, "quiz_gain"), key="lecture_class_gain", width="stretch",
                  caption=caption_line(_("Class {code}").format(code=code), quiz_.title.get(lang, "")))


def panel() -> None:
    """The class panel of the lecture page."""
    h = _class.hosting()
    if h is None:
        with st.container(border=True):
            a, b = st.columns([3, 1], vertical_alignment="center")
            a.markdown(_("**Class answers.** Start a class: students join on their phones with a code or a QR code, "
                         "answer the questions you ask (any prediction, the pre/post quiz), and you see their "
                         "answers here before you reveal."))
            b.button(_("Start a class"), key="lecture_class_start", icon=":material/groups:", type="primary",
                     on_click=_start, width="stretch")
            _class.said(WHERE)
        return
    code, key = h
    try:
        alive = _class.store().is_host(code, key)
    except StoreDown as e:
        _class.down(e)
        return
    if not alive:
        with st.container(border=True):
            st.warning(_class.refused(Refused("unknown_class")))
            st.button(_("Start a new class"), key="lecture_class_restart", on_click=_start, icon=":material/groups:")
        return
    with st.container(border=True):
        left, right = st.columns([3, 1])
        with right:
            join(code)
        with left:
            st.fragment(live, run_every=_class.LIVE_S)(code, key)
            with st.expander(_("Pre/post quiz and the class's gain")):
                quiz(code, key)
