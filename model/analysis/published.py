"""Sizes of published Transformers as the course texts state them, for the numbers a lecturer cites beside the
shipped models: the tutorial's Transformer (its §1 and §3: 6 + 6 blocks, d = 512, h = 8; §2.1: nn.Embedding(10000,
512)), BERT-large (textbook 12.6) and BERT-base (Devlin et al. 2019, Table 1 of the paper; the textbook gives only
the large one), GPT-3 (textbook 12.7.4), ImageGPT (12.10.1) and a typical embedding table (12.5.2).

`estimate_params` counts the weights from the sizes alone (attention 4·(d² + d), feed-forward 2·d·d_ff + d_ff + d,
two LayerNorms, the token and position tables), so a test can check that the cited totals hang together."""
from dataclasses import dataclass

from i18n import N_

# textbook 12.5.2: "典型 D = 1024、|V| = 30000"
TYPICAL_D, TYPICAL_VOCAB = 1024, 30_000


@dataclass(frozen=True)
class Published:
    """One published model (its name and source in English, N_: translated where shown). layers: per stack (an
    encoder-decoder has `decoder_layers` more); params: the total its source states (None where it states none);
    source: where the numbers are written."""
    name: str
    source: str
    layers: int
    d_model: int
    heads: int
    d_ff: int | None
    vocab: int | None
    context: int | None
    params: int | None
    decoder_layers: int = 0

    @property
    def d_k(self) -> int:
        return self.d_model // self.heads


TUTORIAL = Published(N_("Transformer (tutorial)"), N_("tutorial §1–3, §2.1"),
                     layers=6, decoder_layers=6, d_model=512, heads=8, d_ff=None, vocab=10_000, context=None,
                     params=None)
BERT_BASE = Published(N_("BERT-base"), N_("Devlin et al. 2019"),
                      layers=12, d_model=768, heads=12, d_ff=3072, vocab=30_000, context=512, params=110_000_000)
BERT_LARGE = Published(N_("BERT-large"), N_("textbook 12.6; context: Devlin et al."), layers=24, d_model=1024,
                       heads=16, d_ff=4096, vocab=30_000, context=512, params=340_000_000)
GPT3 = Published(N_("GPT-3"), N_("textbook 12.7.4; d_ff: Brown et al."),
                 layers=96, d_model=12_288, heads=96, d_ff=4 * 12_288, vocab=None, context=2048,
                 params=175_000_000_000)
MODELS = (TUTORIAL, BERT_BASE, BERT_LARGE, GPT3)

# textbook 12.10.1: the largest ImageGPT, its input and its ImageNet result
IMAGEGPT_PARAMS = 6_800_000_000
IMAGEGPT_SIDE = 64                   # 64×64 pixels
IMAGEGPT_COLOURS = 512               # 24-bit RGB cut to 9 bits: one of 512 colours per position
IMAGEGPT_TEST_SIDE, IMAGEGPT_TOP1_ERROR = 48, 0.274      # top-1 error on 48×48 ImageNet


def estimate_params(m: Published, vocab: int | None = None) -> int:
    """Weights implied by the sizes: per layer 4·(d² + d) for Q, K, V, O, 2·d·d_ff + d_ff + d for the feed-forward
    network and 4·d for two LayerNorms (a decoder layer of an encoder-decoder adds cross-attention and a third
    LayerNorm), plus the token table (vocab × d) and a learned position table (context × d)."""
    d, ff = m.d_model, m.d_ff or 4 * m.d_model
    layer = 4 * (d * d + d) + 2 * d * ff + ff + d + 4 * d
    cross = 4 * (d * d + d) + 2 * d
    vocab = vocab if vocab is not None else (m.vocab or 0)
    return m.layers * layer + m.decoder_layers * (layer + cross) + vocab * d + (m.context or 0) * d
