"""Fine-tuning heads on a pre-trained encoder (BERT, Devlin et al. 2019, §3 and Fig. 4): one linear layer on the
final hidden states. "cls": a class for the whole text from the [CLS] state (softmax over n_out classes);
"binary": one number from the [CLS] state, a yes/no answer through a sigmoid, trained with binary cross-entropy (the
textbook's 12.6.2 classifier); "tag": a tag for every token; "span": a start and an end score for every token
(question answering, the answer a span of the passage)."""
import copy

import torch
from torch import nn

from model.data.bpe import PAD
from model.engine.transformer import Transformer

KINDS = ("cls", "binary", "tag", "span")


class HeadedEncoder(nn.Module):
    """A pre-trained encoder (a Transformer of kind "encoder", its LM head dropped) and one linear head; a copy, so
    training it never changes `encoder`. train_embeddings: whether full fine-tuning trains the token embeddings.
    ids (B, T), [PAD] after each text -> logits: cls (B, n_out); binary (B, 1); tag (B, T, n_out); span (B, T, 2)."""
    model_kind = "finetuned"

    def __init__(self, encoder: Transformer, kind: str, n_out: int, train_embeddings: bool = True):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"head kind must be one of {KINDS}, got {kind!r}")
        if encoder.config.kind != "encoder":
            raise ValueError(f"a fine-tuning head needs an encoder, got a model of kind {encoder.config.kind!r}")
        if kind == "span" and n_out != 2:
            raise ValueError(f"a span head has 2 outputs (start, end), got n_out={n_out}")
        if kind == "binary" and n_out != 1:
            raise ValueError(f"a binary head has 1 output (the logit of the second label), got n_out={n_out}")
        self.encoder = copy.deepcopy(encoder)               # the pre-trained model is never changed
        self.encoder.lm_head = nn.Identity()
        self.kind, self.n_out, self.train_embeddings = kind, n_out, train_embeddings
        self.head = nn.Linear(encoder.config.d_model, n_out)
        nn.init.normal_(self.head.weight, std=0.02)
        nn.init.zeros_(self.head.bias)

    @property
    def config(self):
        return self.encoder.config

    @staticmethod
    def padding_mask(ids: torch.Tensor) -> torch.Tensor:
        """(B, 1, 1, T) True where the key is a real token (every text starts with [CLS], never [PAD])."""
        return (ids != PAD)[:, None, None, :]

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        """Final hidden states (B, T, C), padding keys masked out."""
        return self.encoder.encode(ids, mask=self.padding_mask(ids)).x

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.hidden(ids)                                  # (B, T, C)
        if self.kind in ("cls", "binary"):
            return self.head(x[:, 0])                         # (B, n_out) from [CLS]
        return self.head(x)                                   # (B, T, n_out)

    def trainable(self, frozen: bool) -> list[nn.Parameter]:
        """The parameters fine-tuning changes: the head alone (frozen), or the head and every encoder weight (full;
        without the token-embedding table when train_embeddings is False)."""
        if frozen:
            return list(self.head.parameters())
        return [p for n, p in self.named_parameters()
                if self.train_embeddings or not n.startswith("encoder.embed.tok.")]

    def shipped_state(self, frozen: bool) -> dict[str, torch.Tensor]:
        """The tensors a fine-tuned model adds to the pre-trained one: those `trainable` names."""
        keep = {id(p) for p in self.trainable(frozen)}
        return {n: p.detach().clone() for n, p in self.named_parameters() if id(p) in keep}


def n_outputs(kind: str, labels) -> int:
    """How many numbers a head of this kind gives for these labels: one for a binary head (the logit of
    labels[1]), one per label otherwise."""
    return 1 if kind == "binary" else len(labels)


def pad_batch(seqs: list[list[int]], value: int = PAD) -> torch.Tensor:
    """Lists of ids -> (B, T) int64, padded on the right with `value`."""
    T = max(len(s) for s in seqs)
    out = torch.full((len(seqs), T), value, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return out
