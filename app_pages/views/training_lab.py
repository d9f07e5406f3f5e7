"""Training lab: train a small Transformer here and watch its heads form. A lesson (a preset) trains in a child
process on one CPU thread through the server's heavy-job queue (runtime/job_queue.py: queued with its position, a
memory bound, stop and resume); every k steps every head's attention on fixed probes is snapshotted and scored
(previous-token, induction, sink, pronoun, sorting), and the run plays back as a timelapse
(app_pages/views/training_lab_timelapse.py) whose loss curve marks the step where a head's score crossed its
threshold. What it teaches: heads are not designed, they form during training, often suddenly."""
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import streamlit as st

from app_pages import _url
from app_pages.views import training_lab_timelapse as timelapse
from i18n import _
from model.lab import lessons
from model.lab import run as lab_run
from runtime import heavy_jobs, job_queue

BIND, KEEP = _url.BIND, _url.KEEP        # the lesson and its settings are in the URL and survive a visit elsewhere
RUN = "lab_run"                          # session state: this session's run (folder, lesson, settings, job)
FOR = "_lab_settings_for"                # session state: the lesson the settings widgets were last filled for
RUNS = Path(tempfile.gettempdir()) / "attention-lab" / "lab-runs"
RUN_MAX_AGE_S = 6 * 3600                 # run folders older than this are removed when a run starts
LIVE_S = 1.0                             # the progress refreshes this often while a run goes
D_MODELS = [16, 24, 32, 48, 64, 96, 128]
RATES = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]
FIELDS = {"lab_layers": "n_layers", "lab_heads": "n_heads", "lab_d_model": "d_model", "lab_lr": "lr",
          "lab_steps": "steps", "lab_positions": "positions", "lab_mask": "mask"}


def _fill(lesson: lessons.Lesson) -> None:
    """Before the settings widgets are drawn: the lesson's defaults when the lesson changed (or on the first run,
    for the settings a link does not name)."""
    first = FOR not in st.session_state
    if st.session_state.get(FOR) == lesson.name:
        return
    for key, field in FIELDS.items():
        if not (first and key in st.query_params):
            st.session_state[key] = getattr(lesson.defaults, field)
    st.session_state[FOR] = lesson.name


def settings_controls(lesson: lessons.Lesson) -> tuple[lessons.Settings, object]:
    """The settings widgets; returns the settings and the place beside the mask for the estimate."""
    _fill(lesson)
    low, high = lessons.BOUNDS["n_layers"], lessons.BOUNDS["n_heads"]
    _url.stale_number("lab_layers", *low, _("the layers"), lesson.defaults.n_layers)
    _url.stale_number("lab_heads", *high, _("the heads"), lesson.defaults.n_heads)
    _url.stale_number("lab_steps", *lessons.BOUNDS["steps"], _("the steps"), lesson.defaults.steps)
    c = st.columns([1, 1, 1.4, 1.4, 1.2])
    layers = c[0].number_input(_("Layers"), *low, key="lab_layers", bind=BIND, persist_state=KEEP)
    heads = c[1].number_input(_("Heads per layer"), *high, key="lab_heads", bind=BIND, persist_state=KEEP)
    d_model = c[2].select_slider("d_model", D_MODELS, key="lab_d_model", bind=BIND, persist_state=KEEP)
    lr = c[3].select_slider(_("Learning rate"), RATES, key="lab_lr", format_func=lambda r: f"{r:g}", bind=BIND,
                            persist_state=KEEP)
    steps = c[4].number_input(_("Steps"), *lessons.BOUNDS["steps"], step=50, key="lab_steps", bind=BIND,
                              persist_state=KEEP)
    c = st.columns([1, 1.2, 3.4], vertical_alignment="bottom")
    positions = c[0].toggle(_("Positions"), key="lab_positions", bind=BIND, persist_state=KEEP,
                            help=_("Off: the model gets no position information at all."))
    masks = {k: _(v) for k, v in lessons.MASKS.items()}
    _url.stale_link("lab_mask", list(masks.values()), _("the mask"), masks[lesson.defaults.mask])
    mask = c[1].selectbox(_("Mask"), list(masks), key="lab_mask", format_func=masks.get, bind=BIND,
                          persist_state=KEEP, help=_("Causal: each token sees only itself and the tokens before it, "
                                                     "as in a decoder. None: every token sees every token; a model "
                                                     "that predicts the next token then reads the answer."))
    return lessons.Settings(int(layers), int(heads), int(d_model), float(lr), int(steps), bool(positions), mask), c[2]


def _cleanup() -> None:
    """Remove run folders older than RUN_MAX_AGE_S (every session's: they are temporary)."""
    now = time.time()
    for old in RUNS.glob("*") if RUNS.is_dir() else ():
        if now - old.stat().st_mtime > RUN_MAX_AGE_S:
            shutil.rmtree(old, ignore_errors=True)


def command(lesson: lessons.Lesson, s: lessons.Settings, folder: Path, resume: bool) -> list[str]:
    cmd = [sys.executable, "-m", "model.lab", lesson.name, "--stream", "--out", str(folder)]
    if resume:
        return cmd + ["--resume"]
    return cmd + ["--n-layers", str(s.n_layers), "--n-heads", str(s.n_heads), "--d-model", str(s.d_model),
                  "--lr", repr(s.lr), "--steps", str(s.steps), "--positions", "on" if s.positions else "off",
                  "--mask", s.mask, "--seed", str(s.seed)]


def start(lesson: lessons.Lesson, s: lessons.Settings, resume: bool = False) -> None:
    """Queue a run (or its continuation) for this session; a newer one replaces it. The job's owner is this
    session's lab, so the session's other heavy jobs neither replace nor are replaced by it."""
    old = st.session_state.get(RUN)
    if resume and old:
        folder = Path(old["folder"])
    else:
        if old and old["job"] is not None:
            old["job"].cancel("replaced by a newer run")
            shutil.rmtree(old["folder"], ignore_errors=True)
        _cleanup()
        folder = RUNS / uuid.uuid4().hex
        folder.mkdir(parents=True)
    try:
        job = job_queue.QUEUE.submit(command(lesson, s, folder, resume), owner=f"{heavy_jobs.owner()}:lab",
                                     what=_("The training run"), cwd=heavy_jobs.ROOT, alive=heavy_jobs.alive(),
                                     **heavy_jobs.who())
    except job_queue.Busy as e:
        heavy_jobs.busy(e)
        return
    st.session_state[RUN] = {"folder": str(folder), "lesson": lesson.name, "settings": s.to_dict(), "job": job}


def progress_text(job: job_queue.Job) -> tuple[float, str]:
    row = next((r for r in reversed(job.rows) if r.get("event") == "progress"), None)
    if row is None:
        return 0.0, _("Starting: loading torch and building the model…")
    return row["step"] / row["steps"], _("Step {step:,} of {steps:,} · loss {loss:.3f} · {tps:,} tokens/s · about "
                                         "{left:.0f} s left").format(step=row["step"], steps=row["steps"],
                                                                     loss=row["loss"], tps=row["tokens_per_s"],
                                                                     left=row["seconds_left"])


@st.fragment(run_every=LIVE_S)
def live(lesson: lessons.Lesson) -> None:
    """While the run waits or goes: its place in the queue or its progress, and the curves so far; once it ends,
    the whole page runs again to show the timelapse."""
    record = st.session_state.get(RUN)
    job = record and record["job"]
    if job is None:
        return
    if job.finished:
        st.rerun(scope="app")
    if job.state == job_queue.QUEUED:
        st.info(heavy_jobs.queued_text(job), icon=":material/hourglass_top:")
        return
    fraction, text = progress_text(job)
    st.progress(min(max(fraction, 0.0), 1.0), text=text)
    state = lab_run.saved_state(record["folder"])
    if state and state["snapshots"]:
        timelapse.curves(lesson, state["snapshots"], live=True)


def run_controls(lesson: lessons.Lesson, s: lessons.Settings, error: str | None) -> None:
    record = st.session_state.get(RUN)
    job = record["job"] if record else None
    going = job is not None and not job.finished
    state = lab_run.saved_state(record["folder"]) if record else None
    resumable = record is not None and not going and state is not None \
        and state["step"] < state["settings"]["steps"]
    c1, c2, c3, c4 = st.columns([1, 1, 1, 3], vertical_alignment="center")
    if c1.button(_("Train"), type="primary", icon=":material/play_arrow:", key="lab_start", disabled=bool(error)):
        start(lesson, s)
        st.rerun()
    if c2.button(_("Stop"), icon=":material/stop:", key="lab_stop", disabled=not going):
        job.cancel(_("stopped by you"))
        st.rerun()
    if c3.button(_("Resume"), icon=":material/resume:", key="lab_resume", disabled=not resumable,
                 help=_("Continue the stopped run from its last snapshot, with its own settings.")):
        start(lessons.LESSONS[record["lesson"]], lessons.Settings(**record["settings"]), resume=True)
        st.rerun()
    memory = job_queue.QUEUE.memory_mb
    c4.caption(_("A run is a heavy job: at most {slots} heavy jobs run at once on this server, for all its users, "
                 "each in its own process on one CPU thread{memory}. One run per session: a new one replaces the "
                 "old.").format(
        slots=job_queue.QUEUE.slots, memory=_(", limited to {mb:,} MiB").format(mb=memory) if memory else ""))
    if going:
        live(lessons.LESSONS[record["lesson"]])
    elif job is not None and job.state == job_queue.FAILED:
        st.error(heavy_jobs.failure(job))
    elif job is not None and job.state == job_queue.CANCELLED and resumable:
        st.info(_("The run stopped at step {step:,} of {steps:,} ({why}). **Resume** continues it from there.")
                .format(step=state["step"], steps=state["settings"]["steps"], why=job.error))


def render():
    st.title(_("Training lab"))
    st.caption(_("Train a small Transformer on this server and watch its attention heads form: every head is "
                 "snapshotted on fixed inputs as it learns, scored, and played back as a timelapse."))
    names = {k: _(v.title) for k, v in lessons.LESSONS.items()}
    _url.stale_link("lab_lesson", list(names.values()), _("the lesson"), names["induction"])
    name = st.selectbox(_("Lesson"), list(names), key="lab_lesson", format_func=names.get, bind=BIND,
                        persist_state=KEEP)
    lesson = lessons.LESSONS[name]
    st.markdown(_(lesson.blurb))
    s, beside = settings_controls(lesson)
    error = None
    try:
        lessons.check(lesson, s)
    except lessons.SettingsError as e:
        error = str(e)
        beside.error(error)
    else:
        beside.caption(_("Estimated time: about {s:.0f} s on one CPU thread of this server (the lab allows {most} s); "
                     "a snapshot every {k} steps. The measured speed shows while it runs.").format(
            s=lessons.estimate_seconds(lesson, s), most=lessons.MAX_SECONDS, k=lessons.snapshot_every(s.steps)))
    run_controls(lesson, s, error)
    record = st.session_state.get(RUN)
    if record is None:
        st.info(_("Press **Train** to start the lesson; it runs on the server, one run per session."))
        return
    timelapse.render(record)
