"""The explorer's state, read once per run: the model and the text, its run, the tokens as shown (whole words or
pieces), the picks (layer, head, token, log colour, special tokens hidden), the open tab, and what is measured on
the heads. Every section of the page (the grid, the zoom, each tab) draws from it; none reads another's widgets."""
from dataclasses import dataclass

import numpy as np

from model.analysis import attention_views as analysis
from model.tasks.results import TextRun
from model.tasks.word_attention import word_attention
from viz import slide


@dataclass(frozen=True)
class ExplorerState:
    """name, device, text: what runs; run: the TextRun of pieces (model.tasks.results); words: whether the page
    shows whole words; tokens: the N tokens shown; weights: (L, H, N, N) as shown; layer, head: the zoomed head;
    picked: the picked token (index into tokens); log: log colour; hide: special tokens hidden in the zoom; tab: the
    open tab's label as shown (None until one is picked); stats, labels: model.analysis.head_stats on the weights
    shown (stats[name]: (L, H); labels[l][h]: a head's automatic labels); measured: the heads' roles measured on
    held-out text (model.analysis.head_roles), None when not stored; visit: this run's number among the session's
    runs of the page (runtime.first_view)."""
    name: str
    device: str
    text: str
    run: TextRun
    words: bool
    tokens: list
    weights: np.ndarray
    layer: int
    head: int
    picked: int
    log: bool
    hide: bool
    tab: str | None
    stats: dict
    labels: list
    measured: dict | None
    visit: int

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


@dataclass(frozen=True)
class Zoom:
    """The zoomed head as drawn: matrix (R, R); labels: the R tokens of its rows (and columns); rows: the shown
    token of each (an index into ExplorerState.tokens); removed: the mean share of a row's weight that went to the
    hidden special tokens, None when none are hidden."""
    matrix: np.ndarray
    labels: list
    rows: tuple[int, ...]
    removed: float | None


def zoom_of(state: ExplorerState) -> Zoom:
    """The picked head's weights, without the special tokens' rows and columns (each row renormalised) when they
    are hidden and some token is not special."""
    matrix, n = state.weights[state.layer, state.head], state.shape[2]
    keep = analysis.keep_positions(state.tokens) if state.hide else []
    if len(keep) == 0:
        return Zoom(matrix, list(state.tokens), tuple(range(n)), None)
    matrix, removed = analysis.renormalised(matrix, keep)
    return Zoom(matrix, [state.tokens[i] for i in keep], tuple(int(i) for i in keep), removed)
