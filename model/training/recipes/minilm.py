"""minilm: sentence-transformers' all-MiniLM-L6-v2, installed, not trained here (requirements-models.txt; the
weights are read from the package and checked by sha256, model/pretrained.py). BERT architecture: 6 post-LN
layers × 12 heads, d_model 384, d_ff 1536, GELU, learned positions, token types, LayerNorm ε 1e-12, an uncased
WordPiece of 30,522 pieces; distilled from MiniLM and trained on a billion sentence pairs (Apache-2.0).

`evaluate()` measures what this project's engine computes with it: the sentence similarities published in
sentence-transformers' quickstart, and pronouns on the project's real-text set (model/tasks/coref_realtext.py)
with the head chosen on its dev split, and its heads' roles measured on held-out real text
(model/analysis/head_roles.py; `python -m model.head_roles minilm --write` remeasures them).
"""
from model import checkpoints
from model.analysis import head_roles
from model.data import text_input
from model.tasks import coref_realtext
from model.tasks.sentence_embedding import pool

NAME = "minilm"
QUICKSTART = ("The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.")


def train(seed: int = 0) -> None:
    raise SystemExit(f"{NAME}: {checkpoints.read_meta(NAME)['retrain']}")


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    tok = text_input.tokenizer_of(meta)
    sim = pool(model, tok, list(QUICKSTART)).similarity
    return {"similarity_quickstart": [round(float(sim[0, 1]), 4), round(float(sim[0, 2]), 4),
                                      round(float(sim[1, 2]), 4)],
            "coref_head": meta["coref_head"],
            **coref_realtext.report(model, tok), **head_roles.summary(NAME)}
