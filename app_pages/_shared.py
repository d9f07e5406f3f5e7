"""The only home of Streamlit caching and of the shared sidebar. Models are resources (loaded once
per process and device, never mutated), runs are data (bounded caches of plain numpy results)."""
import html
import threading

import streamlit as st
import torch

from model import checkpoints
from model import device as devices
from model.checkpoints import CheckpointError
from model.tokenizer import WordTokenizer

MAX_TEXT_CHARS = 20_000          # typed text beyond this is cut with a notice
DEFAULT_TEXT_MODEL = "coref_encoder"
LOAD_COUNT = {"n": 0}            # how many times a checkpoint was read (the concurrency test reads it)
_load_lock = threading.Lock()


@st.cache_resource(show_spinner="Loading model…")
def load_model(name: str, device: str = "cpu"):
    """(model, meta) for a shipped model on a device; shared by every session, never mutated."""
    with _load_lock:
        LOAD_COUNT["n"] += 1
        return checkpoints.load(name, device=device)


@st.cache_resource
def load_tokenizer(name: str) -> WordTokenizer:
    return WordTokenizer.from_dict(checkpoints.read_meta(name)["tokenizer"])


def shipped_meta() -> dict[str, dict]:
    """name -> meta of every shipped model whose files are readable."""
    out = {}
    for name in checkpoints.shipped():
        try:
            out[name] = checkpoints.read_meta(name)
        except CheckpointError:
            continue
    return out


def text_models() -> list[str]:
    """Shipped self-attention text models (encoders and decoders) for the sidebar."""
    names = [n for n, m in shipped_meta().items()
             if m.get("modality", "text") == "text" and m["config"].get("kind") in ("encoder", "decoder")]
    return sorted(names, key=lambda n: (n != DEFAULT_TEXT_MODEL, n))


def device() -> str:
    """The device the sidebar asked for, resolved; an absent one falls back to CPU with a notice."""
    dev, notice = devices.resolve(st.session_state.get("device", "auto"))
    if notice:
        st.sidebar.warning(notice)
    return dev.type


def selected_text_model() -> str | None:
    models = text_models()
    name = st.session_state.get("text_model")
    return name if name in models else (models[0] if models else None)


def sidebar():
    """Shared controls; pages read them from st.session_state, so each page also runs alone."""
    with st.sidebar:
        models = text_models()
        if models:
            st.selectbox("Text model", models, key="text_model",
                         help="The shipped, trained model the text pages run.")
        else:
            st.warning("No shipped text model was found in assets/.")
        st.selectbox("Device", devices.CHOICES, key="device",
                     help="auto picks a GPU when there is one; an absent device falls back to CPU.")
        st.caption(f"torch {torch.__version__} · running on **{device()}**")


def model_or_stop(name: str):
    """(model, meta) or a readable error that stops the page (missing or corrupt weights)."""
    try:
        return load_model(name, device())
    except CheckpointError as e:
        st.error(f"The model **{html.escape(name)}** could not be loaded.\n\n{e}")
        st.stop()


def clip_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Bound typed text; tell the user when it was cut."""
    if len(text) > limit:
        st.warning(f"The text has {len(text):,} characters; only the first {limit:,} are used.")
        return text[:limit]
    return text


# ---- positional encodings ----
@st.cache_data(max_entries=16, show_spinner="Running the encoder with positions off and on…")
def order_experiment(name: str, text_a: str, text_b: str, device: str = "cpu"):
    """model.order.OrderExperiment for a shipped encoder (ValueError on a bad pair is not cached)."""
    from model.order import order_experiment as experiment
    model, _ = load_model(name, device)
    return experiment(model, load_tokenizer(name), text_a, text_b)


@st.cache_data(max_entries=8, show_spinner="Reading the learned position table…")
def learned_position_table(name: str):
    """The learned (rows, C) float32 position table of a shipped model, or None."""
    from model.positional import learned_table
    model, _ = load_model(name, "cpu")
    return learned_table(model)


def learned_position_models() -> dict[str, dict]:
    """name -> meta of shipped models with learned absolute positions (text: pos_encoding "learned";
    images: every ViT/Swin, whose positions are a learned parameter)."""
    return {n: m for n, m in shipped_meta().items()
            if m["config"].get("pos_encoding") == "learned" or m.get("modality") == "image"}
