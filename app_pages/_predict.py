"""Predict, then reveal: on a key view the learner commits to an answer before the model's answer is shown.

A question box with the options as pills (nothing picked), a **Reveal** button and, once revealed, whether the
pick was right, the true answer (computed by the caller from the running model) and a one-line explanation;
**Try again** asks again. The caller draws the figure or number that gives the answer away only when
predict() returns True.

What is in the link: only the switch `predict` (on by default; ?predict=false shows every answer at once, for a
lecturer who wants to show rather than ask; the lecture's prepared views that show an answer carry it). The pick
and whether it was revealed stay in the session and never enter the URL, so a copied link asks again and never
gives the answer away.

In a session that hosts a class (app_pages/_class.py: started on the lecture page, or a view opened from there)
the box also offers **Ask the class**: the question goes to the students' phones, the class's counts appear in the
box while it is open, **Reveal** reveals it to the class too, and the class's answers can be reset. A class store
that is down is said in the box; the learner's own prediction works regardless.
"""
from collections.abc import Callable, Sequence

import streamlit as st

from app_pages import _class, _url
from app_pages._markup import md
from i18n import N_, _

SWITCH = "predict"           # the toggle's key, and its query parameter
SWITCH_HELP = N_("On: the page asks for your prediction before it shows the model's answer. Off: every answer is "
                 "shown at once, with no question (to show rather than ask); a copied link then opens that way too.")


def _pick(key: str) -> str:
    return f"{key}_pick"


def _shown(key: str) -> str:
    return f"_{key}_shown"


def _question(key: str) -> str:
    return f"_{key}_for"


def _reveal(key: str, asked=None) -> None:
    st.session_state[_shown(key)] = True
    _class.reveal_asked(key, asked)


def _again(key: str, multi: bool) -> None:
    st.session_state.pop(_shown(key), None)
    st.session_state[_pick(key)] = [] if multi else None


def _names(values, label: Callable) -> str:
    """“a”, “b” and “c”, escaped; "none of them" for no value."""
    names = [f"“{md(label(v))}”" for v in values]
    if not names:
        return _("none of them")
    listed = names[0]
    for name in names[1:-1]:
        listed = _("{items}, {item}").format(items=listed, item=name)
    return listed if len(names) == 1 else _("{items} and {item}").format(items=listed, item=names[-1])


def predict(key: str, question: str, options: Sequence, answer, explain: str, *,
            format_func: Callable = str, multi: bool = False, identity=None) -> bool:
    """Ask `question` (Markdown; the caller escapes typed text) with `options` as pills and hide the answer
    until **Reveal**; return True when the caller may show the answer: revealed, or predictions switched off.

    format_func: an option's name as plain text (escaped here). answer: the right option, or with multi=True the
    collection of right options (possibly empty: "none of them"). explain: one line (Markdown) under the verdict.
    identity: what the question is about (a text and a word); when it changes the pick is cleared and the
    question asked again. One call per page run."""
    s = st.session_state
    if s.get(_question(key), identity) != identity:          # another question: nothing picked, nothing shown
        _again(key, multi)
    s[_question(key)] = identity
    box = st.container(border=True)
    head, switch = box.columns([3, 1], vertical_alignment="center")
    asking = switch.toggle(_("Predict first"), True, key=SWITCH, bind=_url.BIND, persist_state=_url.KEEP,
                           help=_(SWITCH_HELP))
    if not asking:
        head.caption(_("Predictions are off: the answers are shown at once."))
        return True
    head.markdown(_("**Predict first.** {question}").format(question=question))
    shown = bool(s.get(_shown(key)))
    options = list(options)
    names = [md(format_func(o)) for o in options]      # a pill renders Markdown: typed words escaped; named now, in
    rights = [i for i, o in enumerate(options) if (o in set(answer) if multi else o == answer)]   # this run's language
    klass = _class.question(key, question, [str(format_func(o)) for o in options], rights, multi, explain) \
        if _class.hosting() else None                  # the question as the class is asked it (a hosting session)
    with box:
        pick = st.pills(_("Pick every one that does (or none)") if multi else _("Your prediction"), options,
                        selection_mode="multi" if multi else "single", key=_pick(key),
                        format_func=lambda o: names[options.index(o)] if o in options else md(format_func(o)),
                        disabled=shown, persist_state=_url.KEEP)
        if not shown:
            st.button(_("Reveal"), type="primary", key=f"{key}_reveal", on_click=_reveal, args=(key, klass),
                      disabled=pick is None, help=_("Pick an answer first") if pick is None else None)
            if klass is not None:
                _class.counts(key, klass, live=True)
            return False
        if multi:
            right = [o for o in options if o in set(answer)]
            correct = set(pick or []) == set(right)
            truth = _names(right, format_func)
            said = _names([o for o in options if o in set(pick or [])], format_func)
        else:
            correct = pick == answer
            truth, said = _names([answer], format_func), _names([pick], format_func)
        if correct:
            st.success(_("**Correct:** {truth}.").format(truth=truth))
        else:
            st.error(_("**Not quite.** You said {said}; the answer is {truth}.").format(said=said, truth=truth))
        st.caption(explain)
        st.button(_("Try again"), key=f"{key}_again", on_click=_again, args=(key, multi),
                  help=_("Hide the answer and predict again"))
        if klass is not None:
            _class.counts(key, klass, live=False, again=lambda: _again(key, multi))
    return True
