"""An encoder whose self-attention follows a sliding window with global tokens (Longformer-style):
the blocked kernel of `model.engine.sparse` in the fast path (training, plain inference), and the
same pattern as a dense boolean mask whenever attention weights are captured for a page. Its global tokens
are the textbook's extra kind (12.9): the first n_global positions, where its text rule puts [CLS], a token
added in front of the text that stands for no word (`masks.extra_global_tokens`)."""
import torch

from model.engine.capture import active
from model.engine.config import ModelConfig
from model.engine.sparse import SlidingWindow
from model.engine.transformer import StackOutput, Transformer


class SparseTransformer(Transformer):
    """A `Transformer` (kind="encoder") with every self-attention restricted to `SlidingWindow(width,
    n_global, dilation)`. config dicts carry the pattern under "sparse": {"width", "n_global", "dilation"}."""
    model_kind = "sparse_encoder"

    def __init__(self, config: ModelConfig, width: int, n_global: int = 0, dilation: int = 1):
        if config.kind != "encoder":
            raise ValueError(f"SparseTransformer is an encoder; got kind={config.kind!r}")
        pattern = SlidingWindow(width, n_global, dilation)
        super().__init__(config, kernel=pattern)
        self.pattern = pattern

    @classmethod
    def from_config(cls, config: dict) -> "SparseTransformer":
        c = dict(config)
        sparse = c.pop("sparse", None)
        if not isinstance(sparse, dict):
            raise ValueError("a sparse model's config needs a 'sparse' entry: {width, n_global, dilation}")
        return cls(ModelConfig.from_dict(c), **sparse)

    def config_dict(self) -> dict:
        """The dict `from_config` reads back (ModelConfig fields + "sparse")."""
        p = self.pattern
        return {**self.config.to_dict(), "sparse": {"width": p.width, "n_global": p.n_global, "dilation": p.dilation}}

    def pattern_mask(self, n: int, device=None) -> torch.Tensor:
        """(n, n) bool, True = may attend: the model's own pattern as a dense mask."""
        return torch.from_numpy(self.pattern.mask(n)).to(device)

    def encode(self, ids, mask=None, positions=True, kv_caches=None, offset=0) -> StackOutput:
        """Transformer.encode's contract; mask=None means the model's own pattern: the kernel when nothing is
        captured, else the dense mask with the same meaning. An explicit mask (e.g. full attention) replaces it."""
        if mask is None and (active() is not None or kv_caches is not None):
            mask = self.pattern_mask(ids.shape[1], ids.device)
        return super().encode(ids, mask=mask, positions=positions, kv_caches=kv_caches, offset=offset)
