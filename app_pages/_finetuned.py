"""The shipped fine-tunings (assets/finetune/) as resources, and their cached runs on typed input."""
import html

import streamlit as st

from app_pages._cache_sizes import RUNS_KEPT
from i18n import _
from model.analysis import finetune_run
from model.checkpoints import CheckpointError
from model.tasks import finetuned


@st.cache_resource(show_spinner="Loading the fine-tuned models… · 正在加载微调后的模型…")
def load(name: str) -> finetuned.FineTuned:
    """The pre-trained encoder and both fine-tuned models of `name`; shared by every session, never mutated."""
    return finetuned.load(name)


def load_or_say(name: str) -> finetuned.FineTuned | None:
    """The fine-tuning, or None after a readable error naming the file and the command that rebuilds it."""
    try:
        return load(name)
    except CheckpointError as e:
        st.error(_("The fine-tuned model **{name}** could not be loaded.").format(name=html.escape(name))
                 + f"\n\n{e}")
        return None


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def run(name: str, ids: tuple[int, ...], pieces: tuple[str, ...]) -> finetune_run.HeadRun:
    """Both fine-tuned heads and the attention before and after fine-tuning on one input."""
    return finetune_run.run(load(name), list(ids), list(pieces))
