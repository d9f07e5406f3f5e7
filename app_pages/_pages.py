"""The table of pages: name, title, icon, and what the page teaches (used by app.py, home and the lecture). The page
named N is the function render() of app_pages/views/N.py, at the address /N (home at /). The title and the blurb
are in English, marked for translation (shown through i18n._)."""
import importlib
from typing import NamedTuple

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from i18n import N_, _

HOME = "home"


class PageEntry(NamedTuple):
    name: str           # the page's module in app_pages/views and its url path
    title: str          # English, marked for translation
    icon: str
    blurb: str          # what the page teaches, English, marked for translation


PAGES = [
    PageEntry("home", N_("Home"), ":material/home:", N_("What each page teaches.")),
    PageEntry("explorer", N_("Attention explorer"), ":material/grid_view:",
     N_("Type text and see what every head of a trained model attends to: all heads at once, a zoomed "
     "head, lines between tokens, per-head statistics, rollout and downloads, up to 512 tokens.")),
    PageEntry("tokenization", N_("Tokenization"), ":material/segment:",
     N_("How text becomes tokens: byte-level BPE pieces, ids and bytes; words vs pieces vs characters vs bytes "
     "and what each length costs attention (N²); BPE learning its merges step by step; X = Ω_e·T.")),
    PageEntry("step_by_step", N_("Step by step"), ":material/calculate:",
     N_("One attention step on real numbers: X, W_Q, W_K, W_V, QKᵀ, the √d_k scaling, softmax, Z; "
     "the lecture's worked example; multi-head; Add & Norm; the causal mask.")),
    PageEntry("positional", N_("Positional encodings"), ":material/waves:",
     N_("Sine/cosine waves, similarity by offset, the shift identity, learned vs sinusoidal vs relative "
     "(RoPE, ALiBi), and why attention alone cannot tell word order.")),
    PageEntry("masks", N_("Masks & sparse attention"), ":material/blur_on:",
     N_("Causal, sliding-window, dilated, global, random, strided and Swin masks; receptive fields; "
     "the live effect on a model; the measured cost as N grows.")),
    PageEntry("coreference", N_("Coreference"), ":material/link:",
     N_("Which head points \"it\" at \"restaurant\": a trained encoder whose own heads resolve pronouns, "
     "with minimal pairs and heads ranked by measured accuracy.")),
    PageEntry("similarity", N_("Sentence similarity"), ":material/compare_arrows:",
     N_("How alike sentences are to a sentence encoder (all-MiniLM-L6-v2): the cosine similarity of a few typed "
     "sentences, and how the last layer's token states, mixed by attention, are mean-pooled and normalised into one "
     "vector per sentence.")),
    PageEntry("finetune", N_("Fine-tuning"), ":material/tune:",
     N_("Pre-train, then fine-tune: BERT's three kinds of heads (a class from [CLS], a tag per token, an answer span) "
     "and next-sentence prediction on the shipped encoder; full fine-tuning against a frozen encoder, learning "
     "curves, and which heads' attention moved.")),
    PageEntry("generation", N_("Decoder & generation"), ":material/edit_note:",
     N_("A GPT-style causal model: next-token probabilities, greedy, top-k and beam search with its tree, "
     "masked-LM fill-in for the encoder, a sentence's probability by the chain rule, and copying from the "
     "prompt.")),
    PageEntry("translation", N_("Translation"), ":material/translate:",
     N_("Encoder-decoders translating English to Chinese and Chinese to English: cross-attention alignment, "
     "teacher forcing vs one token at a time.")),
    PageEntry("images", N_("Image patches"), ":material/image:",
     N_("ViT, Swin, DaViT and ImageGPT on handwritten digits and generated scenes: patches, per-head overlays, "
     "rollout, shifted windows and merging stages, channel attention, pixels written one by one.")),
    PageEntry("why_attention", N_("Why attention"), ":material/help:",
     N_("The course's case for attention: 37 words × 1024 dimensions into one dense layer, parameters that do not "
     "depend on N (a shipped model on texts of any length), and an RNN's N sequential steps against one, measured.")),
    PageEntry("training_lab", N_("Training lab"), ":material/model_training:",
     N_("Train a small Transformer here and watch its heads form: induction, previous-token, pronoun and sorting "
     "heads snapshotted as they learn, scored, played back as a timelapse with the loss curve.")),
    PageEntry("architecture", N_("Architecture"), ":material/account_tree:",
     N_("Each shipped model drawn from its own config: embeddings, N layers, heads, d_model, d_ff, pre- or post-LN, "
     "its parameters counted, every block linked to the page that teaches it.")),
    PageEntry("lecture", N_("Lecture"), ":material/co_present:",
     N_("The course texts' sections in order, each with a prepared view and what to point out; step through them "
     "with the arrow keys, add your own views, export and import the playlist.")),
    PageEntry("classroom", N_("Class"), ":material/groups:",
     N_("For students in a lecture: join with the lecturer's code or QR code, answer the question on the "
     "projector from your phone, then see whether you were right and how the class answered.")),
]
BY_NAME = {p.name: p for p in PAGES}

# the pages that run the sidebar's text model (or start from it); the others use their own models
TEXT_MODEL_PAGES = frozenset({"explorer", "tokenization", "step_by_step", "positional", "masks"})


def url_path(name: str) -> str:
    """The page's address: its name, "" for home."""
    return "" if name == HOME else name


def page(name: str) -> StreamlitPage:
    """The page `name` as st.Page: its view's render function, titled in the session's language. app.py hands
    these to st.navigation; a link to a page (st.page_link) takes one too."""
    entry = BY_NAME[name]
    render = importlib.import_module(f"app_pages.views.{name}").render
    return st.Page(render, title=_(entry.title), icon=entry.icon, url_path=url_path(name), default=name == HOME)
