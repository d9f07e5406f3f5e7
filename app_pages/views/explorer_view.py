"""What the explorer's inside-a-head tabs (ablation, why this weight, value norms, queries & keys, summaries)
share: the view the page shows (its model, text, run, the tokens as shown, whole words or pieces, the zoomed
head) and the way between shown tokens and the model's pieces."""
from dataclasses import dataclass

import numpy as np

from model.tasks.word_attention import word_attention
from viz import slide


@dataclass(frozen=True)
class View:
    """name, device, text: what runs; run: the TextRun of pieces (model.tasks.results); words: whether the page
    shows whole words; tokens: the N tokens shown; weights: (L, H, N, N) as shown; layer, head: the zoomed head;
    picked: the picked token (index into tokens); log: log colour."""
    name: str
    device: str
    text: str
    run: object
    words: bool
    tokens: list
    weights: np.ndarray
    layer: int
    head: int
    picked: int
    log: bool

    @property
    def shape(self) -> tuple[int, int, int]:
        """(L, H, N) as shown."""
        return self.weights.shape[0], self.weights.shape[1], self.weights.shape[-1]

    def shown(self, pieces: np.ndarray) -> np.ndarray:
        """A (..., n, n) array over pieces as the page shows it: between whole words (summed over a key word's
        pieces, averaged over a query word's) when words are shown, else unchanged."""
        return word_attention(pieces, self.run.words, dtype=np.float32) if self.words else pieces

    def pieces_of(self, i: int) -> tuple[int, ...]:
        """The pieces that make shown token i."""
        return tuple(self.run.words[i]) if self.words else (i,)

    def caption(self, where: str | None = None) -> str:
        """The slide caption line: model, layer or head, the text read."""
        return slide.caption_line(self.name, where, text=self.text)
