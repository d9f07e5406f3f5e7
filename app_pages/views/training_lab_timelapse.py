"""The training lab's playback of a run: the loss curve with the step where each head score crossed its threshold,
every head's score over the steps, a scrubber over the snapshots with every head's attention on the probe at that
step, what the run shows (or where the model solved the task another way, with the evidence), and the exports:
the timelapse as a GIF, the snapshots as JSON, the trained model as safetensors, and the model in the explorer."""
import json
from pathlib import Path

import numpy as np
import streamlit as st

from app_pages import _export, _pages, _resources, _url
from i18n import _
from labels import head_label
from model.lab import lessons
from model.lab import run as lab_run
from viz import lab as viz
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP


def _marks(lesson: lessons.Lesson, history: list[dict]) -> dict[str, int]:
    """label -> step for each score that crossed its threshold."""
    out = {}
    for kind, step in lab_run.scores.crossings(history, lesson.thresholds).items():
        if step is not None:
            out[_("{score} > {limit:g}").format(score=_(lessons.SCORE_NAMES[kind]), limit=lesson.thresholds[kind])] \
                = step
    return out


def _losses(history: list[dict]) -> list[float]:
    return [x for s in history for x in s["losses"]]


def curves(lesson: lessons.Lesson, history: list[dict], live: bool = False, current: int | None = None) -> None:
    """The loss curve (crossings marked) and one score of every head over the steps, side by side."""
    left, right = st.columns(2)
    losses = _losses(history)
    name = "lab" if not live else "lab_live"
    if losses:
        _export.chart(viz.plot_loss(losses, marks=_marks(lesson, history), current=current), where=left,
                      key=f"{name}_loss", name=("lab", lesson.name, "loss"), title=_("Loss"),
                      caption=caption_line(f"lab_{lesson.name}", None))
    kinds = {k: _(lessons.SCORE_NAMES[k]) for k in lesson.kinds}
    key = "lab_score_live" if live else "lab_score"
    _url.stale_link(key, list(kinds.values()), _("the score"), kinds[lesson.kinds[0]])
    if st.session_state.get(key) not in (None, *lesson.kinds):
        st.session_state[key] = lesson.kinds[0]
    kind = right.selectbox(_("Score"), list(kinds), key=key, format_func=kinds.get, bind=None if live else BIND)
    steps = [s["step"] for s in history]
    table = np.array([s["scores"][kind] for s in history])                 # (S, L, H)
    _export.chart(viz.plot_scores(steps, table, name=kinds[kind], threshold=lesson.thresholds.get(kind),
                                  current=current), where=right, key=f"{name}_scores",
                  name=("lab", lesson.name, kind), title=_("{score} score of every head").format(score=kinds[kind]),
                  caption=caption_line(f"lab_{lesson.name}", None))


def findings(lesson: lessons.Lesson, history: list[dict], shown: dict) -> None:
    """The scrubbed snapshot `shown` in figures (the task and each score's best head, when each crossed), and what
    the last snapshot shows in words: a model that solves the task without the textbook head is said so, with the
    evidence."""
    last = history[-1]
    crossed = lab_run.scores.crossings(history, lesson.thresholds)
    st.caption(_("At step {step:,} of {last:,}:").format(step=shown["step"], last=last["step"]))
    cols = st.columns(len(lesson.kinds) + 1)
    cols[0].metric(_(lesson.metric), f"{shown['task']:.2f}", help=_("{about} On the lesson's fixed probe inputs.")
                   .format(about=_(lesson.metric_about)))
    for col, kind in zip(cols[1:], lesson.kinds):
        value, (layer, head) = lab_run.scores.best(np.asarray(shown["scores"][kind]))
        step = crossed.get(kind)
        col.metric(_(lessons.SCORE_NAMES[kind]), f"{value:.2f}", help=_("The best single head, {head}.").format(
            head=head_label(layer, head)))
        if step is not None:
            col.caption(_("over {limit:g} from step {step:,}").format(limit=lesson.thresholds[kind], step=step))
    own = lesson.kinds[0]
    limit = lesson.thresholds.get(own)
    best, where = lab_run.scores.best(np.asarray(last["scores"][own]))
    if limit is not None and last["task"] >= 0.8 and best < limit:
        table = np.asarray(last["scores"][own])
        st.warning(_("The model solves the task ({metric} {acc:.2f}) but no single head has the textbook pattern: "
                     "the best, {head}, scores {best:.2f} (threshold {limit:g}); summed over its layer's heads "
                     "{total:.2f}. It splits the work across heads or does it another way: compare the heads in "
                     "the snapshot below, or train again with fewer heads.").format(
            metric=_(lesson.metric), acc=last["task"], head=head_label(*where), best=best, limit=limit,
            total=float(table[where[0]].sum())))


def exports(lesson: lessons.Lesson, record: dict, history: list[dict], tokens: list[str]) -> None:
    folder = Path(record["folder"])
    stem = lab_run.model_name(lesson)
    caption = caption_line(stem, None)

    def frame(i: int):
        s = history[i]
        return viz.plot_snapshot(lab_run.snapshot_weights(folder, s["step"]), title=_(
            "{lesson}: step {step:,} · loss {loss}").format(lesson=_(lesson.title), step=s["step"],
                                                             loss="–" if s["loss"] is None else f"{s['loss']:.3f}"))

    _export.gif(frame, len(history), name=("lab", lesson.name, "timelapse"), caption=caption, key="lab_timelapse",
                signature=(str(folder), len(history)), what=_("snapshot"))

    def snapshots_json() -> bytes:
        return json.dumps({"lesson": lesson.name, "settings": record["settings"], "tokens": tokens,
                           "thresholds": lesson.thresholds,
                           "crossings": lab_run.scores.crossings(history, lesson.thresholds),
                           "snapshots": [{**{k: s[k] for k in ("step", "loss", "task", "scores")},
                                          "attention": np.round(lab_run.snapshot_weights(folder, s["step"]), 4)
                                          .tolist()} for s in history]}, ensure_ascii=False).encode()

    c1, c2, c3 = st.columns(3)
    c1.download_button(_("Snapshots (JSON)"), snapshots_json, f"lab_{lesson.name}_snapshots.json",
                       "application/json", on_click="ignore", icon=":material/download:", key="lab_json")
    model_file = folder / f"{stem}.safetensors"
    if not model_file.is_file():
        c2.caption(_("The trained model can be saved once the run has finished."))
        return
    c2.download_button(_("Model (safetensors)"), lambda: model_file.read_bytes(), f"{stem}.safetensors",
                       "application/octet-stream", on_click="ignore", icon=":material/download:", key="lab_model")
    c2.download_button(_("Its config (JSON)"), lambda: (folder / f"{stem}.json").read_bytes(), f"{stem}.json",
                       "application/json", on_click="ignore", icon=":material/download:", key="lab_config")
    opened = st.session_state.get("lab_opened")
    if opened is not None and opened[0] == str(model_file) and opened[1] in _resources.session_models():
        c3.page_link(_pages.page("explorer"), label=_("Open in the explorer"), icon=":material/grid_view:")
        c3.caption(_("Its text models now list **{name}**.").format(name=opened[1]))
        return
    sample = " ".join(t for t in tokens if not t.startswith("["))        # the probe without [BOS], [CLS], [SEP]
    c3.button(_("Add to the explorer"), icon=":material/add:", key="lab_open", on_click=_add,
              args=(folder, stem, lesson.name, sample),
              help=_("Add the trained model to this session's text models, to open it in the attention explorer "
                     "with the lesson's probe as its text."))


def _add(folder: Path, stem: str, lesson: str, sample: str) -> None:
    """Button callback: the model becomes a session model and the explorer's pick, with a text it can read."""
    name = _resources.add_session_model(folder, stem, lesson)
    st.session_state["text_model"] = name
    st.session_state["explorer_text"] = sample
    st.session_state["lab_opened"] = (str(folder / f"{stem}.safetensors"), name)


def render(record: dict) -> None:
    state = lab_run.saved_state(record["folder"])
    if not state or not state["snapshots"]:
        return
    lesson, history = lessons.LESSONS[state["lesson"]], state["snapshots"]
    steps = [s["step"] for s in history]
    st.subheader(_("Timelapse"))
    figures = st.container()                  # the scrubbed snapshot's figures, above the scrubber
    # the scrubber names a step of this session's run, which a link cannot bring back: kept out of the URL
    if st.session_state.get("lab_frame") not in steps:
        st.session_state["lab_frame"] = steps[-1]
    step = st.select_slider(_("Snapshot (step)"), steps, key="lab_frame") if len(steps) > 1 else steps[0]
    s = history[steps.index(step)]
    with figures:
        findings(lesson, history, s)
    curves(lesson, history, current=step)
    tok = lessons.tokenizer(lesson)
    probes = lessons.probes(lesson, tok)
    names = {k: _(lessons.SCORE_NAMES[k]) for k in lesson.kinds}
    title = _("Every head at step {step:,} on the probe").format(step=step)
    _export.chart(viz.plot_snapshot(lab_run.snapshot_weights(record["folder"], step), scores=s["scores"],
                                    names=names, title=title), key="lab_snapshot",
                  name=("lab", lesson.name, f"step{step}"), caption=caption_line(f"lab_{lesson.name}", None,
                                                                                text=" ".join(probes.tokens)))
    st.caption(_("Rows are queries, columns keys, one map per head (layers down, heads across). The probe: “{text}”")
               .format(text=" ".join(probes.tokens)))
    with st.expander(_("Export"), icon=":material/download:"):
        exports(lesson, record, history, list(probes.tokens))
