"""Model configuration: one frozen dataclass and a table of named presets (minGPT's `model_type`)."""
from dataclasses import asdict, dataclass, fields

POS_ENCODINGS = ("sinusoidal", "learned", "relative", "none")
NORMS = ("post", "pre")
KINDS = ("encoder", "decoder", "encoder_decoder")

# The sizes a config may give, smallest and largest: far beyond the shipped models (d_model ≤ 128, 8,192 tokens,
# max_len ≤ 512), small enough that a damaged or hostile config cannot ask for gigabytes.
SIZE_LIMITS = {
    "vocab_size": (1, 131_072), "tgt_vocab_size": (0, 131_072), "d_model": (1, 1024), "n_heads": (1, 64),
    "n_layers": (1, 48), "n_dec_layers": (0, 48), "d_ff": (1, 8192), "max_len": (1, 4096),
    "image_size": (1, 512), "channels": (1, 4), "patch_size": (1, 64), "n_classes": (1, 10_000), "window": (0, 64),
    "width": (1, 4096), "n_global": (0, 4096), "dilation": (1, 64),          # a sparse model's "sparse" pattern
    "type_vocab_size": (0, 16),
}


def check_sizes(config: dict, where: str = "config") -> None:
    """Raise ValueError unless every size of `config` named in SIZE_LIMITS (in nested dicts too, such as a sparse
    model's "sparse") is an integer within its limits, and n_heads divides d_model. Other keys are left to the
    config classes."""
    for key, value in config.items():
        if isinstance(value, dict):
            check_sizes(value, f"{where}.{key}")
        elif key in SIZE_LIMITS:
            low, high = SIZE_LIMITS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{where}.{key} is {value!r}; it must be an integer from {low} to {high:,}")
    d_model, n_heads = config.get("d_model"), config.get("n_heads")
    if isinstance(d_model, int) and isinstance(n_heads, int) and n_heads > 0 and d_model % n_heads:
        raise ValueError(f"{where}: d_model={d_model} must split evenly across n_heads={n_heads}")


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 4
    d_ff: int = 512
    max_len: int = 256
    pos_encoding: str = "sinusoidal"   # "sinusoidal" | "learned" | "relative" (a learned bias per offset) | "none"
    norm: str = "post"                 # "post" = Add & Norm as in the paper | "pre"
    kind: str = "encoder"              # "encoder" | "decoder" | "encoder_decoder"
    n_dec_layers: int = 0              # decoder layers of an encoder_decoder (0 = n_layers)
    tgt_vocab_size: int = 0            # target vocabulary of an encoder_decoder (0 = vocab_size)
    activation: str = "relu"           # "relu" as in the paper | "gelu"
    dropout: float = 0.0
    embed_norm: bool = False           # LayerNorm on the embeddings (BERT)
    max_offset: int = 16               # relative: offsets beyond ±max_offset share the last bias
    ffn: bool = True                   # False: attention-only layers, no FFN sub-layer (Elhage et al. 2021)
    type_vocab_size: int = 0           # BERT's token-type (segment) embeddings; 0 = none
    norm_eps: float = 1e-5             # every LayerNorm's ε (BERT: 1e-12)
    lm_head: bool = True               # False: no output layer (a sentence encoder); forward returns the states

    def __post_init__(self):
        check_sizes(asdict(self))
        for name, allowed in (("pos_encoding", POS_ENCODINGS), ("norm", NORMS), ("kind", KINDS),
                              ("activation", ("relu", "gelu"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r}; choose one of {allowed}")
        if self.pos_encoding == "relative" and self.kind == "encoder_decoder":
            raise ValueError("pos_encoding='relative' is built for encoder and decoder stacks, not encoder_decoder")
        if not 0 < self.norm_eps < 1:
            raise ValueError(f"norm_eps={self.norm_eps} must lie between 0 and 1")
        if self.max_offset < 1:
            raise ValueError(f"max_offset={self.max_offset} must be at least 1")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}")
        return cls(**d)


PRESETS = {
    "tiny": dict(d_model=32, n_heads=2, n_layers=2, d_ff=64, max_len=64),
    "compact": dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, max_len=256),
    "compact-long": dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, max_len=512),
}


def preset(name: str, vocab_size: int, **overrides) -> ModelConfig:
    """A ModelConfig from the preset table, with overrides (e.g. kind="decoder")."""
    if name not in PRESETS:
        raise KeyError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}")
    return ModelConfig(vocab_size=vocab_size, **{**PRESETS[name], **overrides})
