"""The table of pages: file, title, icon, and what the page teaches (used by app.py and home); the title and the
blurb are in English, marked for translation (shown through i18n._)."""
from pathlib import Path

from i18n import N_

HERE = Path(__file__).resolve().parent

PAGES = [
    ("home.py", N_("Home"), ":material/home:", N_("What each page teaches.")),
    ("explorer.py", N_("Attention explorer"), ":material/grid_view:",
     N_("Type text and see what every head of a trained model attends to: all heads at once, a zoomed "
     "head, lines between tokens, per-head statistics, rollout and downloads, up to 512 tokens.")),
    ("tokenization.py", N_("Tokenization"), ":material/segment:",
     N_("How text becomes tokens: byte-level BPE pieces, ids and bytes; words vs pieces vs characters vs bytes "
     "and what each length costs attention (N²); BPE learning its merges step by step; X = Ω_e·T.")),
    ("step_by_step.py", N_("Step by step"), ":material/calculate:",
     N_("One attention step on real numbers: X, W_Q, W_K, W_V, QKᵀ, the √d_k scaling, softmax, Z; "
     "the lecture's worked example; multi-head; Add & Norm; the causal mask.")),
    ("positional.py", N_("Positional encodings"), ":material/waves:",
     N_("Sine/cosine waves, similarity by offset, the shift identity, learned vs sinusoidal vs relative "
     "(RoPE, ALiBi), and why attention alone cannot tell word order.")),
    ("masks.py", N_("Masks & sparse attention"), ":material/blur_on:",
     N_("Causal, sliding-window, dilated, global, random, strided and Swin masks; receptive fields; "
     "the live effect on a model; the measured cost as N grows.")),
    ("coreference.py", N_("Coreference"), ":material/link:",
     N_("Which head points \"it\" at \"restaurant\": a trained encoder whose own heads resolve pronouns, "
     "with minimal pairs and heads ranked by measured accuracy.")),
    ("similarity.py", N_("Sentence similarity"), ":material/compare_arrows:",
     N_("How alike sentences are to a sentence encoder (all-MiniLM-L6-v2): the cosine similarity of a few typed "
     "sentences, and how the last layer's token states, mixed by attention, are mean-pooled and normalised into one "
     "vector per sentence.")),
    ("finetune.py", N_("Fine-tuning"), ":material/tune:",
     N_("Pre-train, then fine-tune: BERT's three kinds of heads (a class from [CLS], a tag per token, an answer span) "
        "and next-sentence prediction on the shipped encoder; full fine-tuning against a frozen encoder, learning "
        "curves, and which heads' attention moved.")),
    ("generation.py", N_("Decoder & generation"), ":material/edit_note:",
     N_("A GPT-style causal model: next-token probabilities, greedy, top-k and beam search with its tree, "
     "masked-LM fill-in for the encoder, a sentence's probability by the chain rule, and copying from the "
     "prompt.")),
    ("translation.py", N_("Translation"), ":material/translate:",
     N_("An encoder-decoder translating English to Chinese: cross-attention alignment, teacher forcing "
     "vs one token at a time.")),
    ("images.py", N_("Image patches"), ":material/image:",
     N_("ViT, Swin, DaViT and ImageGPT on handwritten digits and generated scenes: patches, per-head overlays, "
     "rollout, shifted windows and merging stages, channel attention, pixels written one by one.")),
    ("why_attention.py", N_("Why attention"), ":material/help:",
     N_("The course's case for attention: 37 words × 1024 dimensions into one dense layer, parameters that do not "
     "depend on N (a shipped model on texts of any length), and an RNN's N sequential steps against one, measured.")),
    ("training_lab.py", N_("Training lab"), ":material/model_training:",
     N_("Train a small Transformer here and watch its heads form: induction, previous-token, pronoun and sorting "
     "heads snapshotted as they learn, scored, played back as a timelapse with the loss curve.")),
    ("architecture.py", N_("Architecture"), ":material/account_tree:",
     N_("Each shipped model drawn from its own config: embeddings, N layers, heads, d_model, d_ff, pre- or post-LN, "
     "its parameters counted, every block linked to the page that teaches it.")),
    ("lecture.py", N_("Lecture"), ":material/co_present:",
     N_("The course texts' sections in order, each with a prepared view and what to point out; step through them "
     "with the arrow keys, add your own views, export and import the playlist.")),
    ("classroom.py", N_("Class"), ":material/groups:",
     N_("For students in a lecture: join with the lecturer's code or QR code, answer the question on the "
        "projector from your phone, then see whether you were right and how the class answered.")),
]

# the pages that run the sidebar's text model (or start from it); the others use their own models
TEXT_MODEL_PAGES = frozenset({"explorer.py", "tokenization.py", "step_by_step.py", "positional.py", "masks.py"})


def available() -> list[tuple[str, str, str, str]]:
    """The pages whose script exists, in table order."""
    return [p for p in PAGES if (HERE / p[0]).is_file()]
