"""The table of pages: file, title, icon, and what the page teaches (used by app.py and home)."""
from pathlib import Path

HERE = Path(__file__).resolve().parent

PAGES = [
    ("home.py", "Home", ":material/home:", "What each page teaches."),
    ("explorer.py", "Attention explorer", ":material/grid_view:",
     "Type text and see what every head of a trained model attends to: all heads at once, a zoomed "
     "head, lines between tokens, per-head statistics, rollout and downloads, up to 512 tokens."),
    ("tokenization.py", "Tokenization", ":material/segment:",
     "How text becomes tokens: byte-level BPE pieces, ids and bytes; words vs pieces vs characters vs bytes "
     "and what each length costs attention (N²); BPE learning its merges step by step; X = Ω_e·T."),
    ("step_by_step.py", "Step by step", ":material/calculate:",
     "One attention step on real numbers: X, W_Q, W_K, W_V, QKᵀ, the √d_k scaling, softmax, Z; "
     "the lecture's worked example; multi-head; Add & Norm; the causal mask."),
    ("positional.py", "Positional encodings", ":material/waves:",
     "Sine/cosine waves, similarity by offset, the shift identity, learned vs sinusoidal vs relative "
     "(RoPE, ALiBi), and why attention alone cannot tell word order."),
    ("masks.py", "Masks & sparse attention", ":material/blur_on:",
     "Causal, sliding-window, dilated, global, random, strided and Swin masks; receptive fields; "
     "the live effect on a model; the measured cost as N grows."),
    ("coreference.py", "Coreference", ":material/link:",
     "Which head points \"it\" at \"restaurant\": a trained encoder whose own heads resolve pronouns, "
     "with minimal pairs and heads ranked by measured accuracy."),
    ("generation.py", "Decoder & generation", ":material/edit_note:",
     "A GPT-style causal model: next-token probabilities, greedy, top-k and beam search with its tree, "
     "and masked-LM fill-in for the encoder."),
    ("translation.py", "Translation", ":material/translate:",
     "An encoder-decoder translating English to Chinese: cross-attention alignment, teacher forcing "
     "vs one token at a time."),
    ("images.py", "Image patches", ":material/image:",
     "ViT and Swin on handwritten digits and generated scenes: patches, per-head overlays, rollout, "
     "shifted windows."),
    ("why_attention.py", "Why attention", ":material/help:",
     "The course's case for attention: 37 words × 1024 dimensions into one dense layer, parameters that do not "
     "depend on N (a shipped model on texts of any length), and an RNN's N sequential steps against one, measured."),
    ("architecture.py", "Architecture", ":material/account_tree:",
     "Each shipped model drawn from its own config: embeddings, N layers, heads, d_model, d_ff, pre- or post-LN, "
     "its parameters counted, every block linked to the page that teaches it."),
    ("lecture.py", "Lecture", ":material/co_present:",
     "The course texts' sections in order, each with a prepared view and what to point out; step through them "
     "with the arrow keys, add your own views, export and import the playlist."),
]

# the pages that run the sidebar's text model (or start from it); the others use their own models
TEXT_MODEL_PAGES = frozenset({"explorer.py", "tokenization.py", "step_by_step.py", "positional.py", "masks.py"})


def available() -> list[tuple[str, str, str, str]]:
    """The pages whose script exists, in table order."""
    return [p for p in PAGES if (HERE / p[0]).is_file()]
