"""A BERT-style encoder (Devlin et al. 2019) with a second output: a "pronoun cloze" head that reads a
pronoun's final hidden state and predicts its antecedent's head noun. Attention is never supervised;
a head that resolves pronouns grows because the cloze loss rewards carrying the antecedent over."""
import torch
from torch import nn

from model.data.word_tokenizer import PAD
from model.engine.config import ModelConfig
from model.engine.layers import ACTIVATIONS
from model.engine.transformer import Transformer


def coref_config(vocab_size: int, max_len: int = 128) -> ModelConfig:
    """The shipped size: 4 layers x 4 heads, d_model 128, FFN 512, post-LN, learned positions."""
    return ModelConfig(vocab_size=vocab_size, d_model=128, n_heads=4, n_layers=4, d_ff=512, max_len=max_len,
                       pos_encoding="learned", norm="post", kind="encoder", activation="gelu",
                       embed_norm=True)


class ClozeHead(nn.Module):
    """Linear -> GELU -> LayerNorm -> tied token embedding + bias. (B, C) -> (B, V) logits."""

    def __init__(self, d_model: int, vocab_size: int):
        super().__init__()
        self.dense = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)
        self.bias = nn.Parameter(torch.zeros(vocab_size))

    def forward(self, h, embedding: torch.Tensor):
        return self.norm(ACTIVATIONS["gelu"](self.dense(h))) @ embedding.T + self.bias

    def scores(self, h, embedding: torch.Tensor, ids: torch.Tensor):
        """The logits of some tokens only: h (R, C), ids (R, K) -> (R, K), forward(h)[r, ids[r]] without the
        (R, V) product."""
        z = self.norm(ACTIVATIONS["gelu"](self.dense(h)))                  # (R, C)
        return (embedding[ids] @ z[:, :, None])[..., 0] + self.bias[ids]


class CorefEncoder(Transformer):
    """Transformer(kind="encoder") whose `lm_head` is the masked-LM head, plus `cloze_head`."""
    model_kind = "coref_encoder"

    def __init__(self, config: ModelConfig):
        if config.kind != "encoder":
            raise ValueError(f"CorefEncoder is an encoder; got kind={config.kind!r}")
        super().__init__(config)
        self.cloze_head = ClozeHead(config.d_model, config.vocab_size)
        for m in self.modules():          # BERT's N(0, 0.02) init
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)

    @staticmethod
    def padding_mask(ids: torch.Tensor) -> torch.Tensor:
        """ids (B, T) -> bool (B, 1, 1, T), True = may attend (every key but [PAD])."""
        return (ids != PAD)[:, None, None, :]

    def cloze_logits(self, x: torch.Tensor, batch_index: torch.Tensor, positions: torch.Tensor):
        """x: (B, T, C) final hidden; batch_index, positions: (R,) pronoun sites -> (R, V) logits."""
        return self.cloze_head(x[batch_index, positions], self.embed.tok.weight)

    def cloze_scores(self, x: torch.Tensor, batch_index: torch.Tensor, positions: torch.Tensor, ids: torch.Tensor):
        """x: (B, T, C); batch_index, positions: (R,); ids: (R, K) candidate tokens -> (R, K) their cloze logits."""
        return self.cloze_head.scores(x[batch_index, positions], self.embed.tok.weight, ids)

    def forward_both(self, ids, batch_index, positions):
        """Fast path for training: (masked-LM logits (B, T, V), cloze logits (R, V))."""
        x = self.encode(ids, mask=self.padding_mask(ids)).x
        return self.lm_head(x), self.cloze_logits(x, batch_index, positions)
