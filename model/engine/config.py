"""Model configuration: one frozen dataclass and a table of named presets (minGPT's `model_type`)."""
from dataclasses import asdict, dataclass, fields

POS_ENCODINGS = ("sinusoidal", "learned", "relative", "none")
NORMS = ("post", "pre")
KINDS = ("encoder", "decoder", "encoder_decoder")


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

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} must split evenly across n_heads={self.n_heads}")
        for name, allowed in (("pos_encoding", POS_ENCODINGS), ("norm", NORMS), ("kind", KINDS),
                              ("activation", ("relu", "gelu"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r}; choose one of {allowed}")
        if self.pos_encoding == "relative" and self.kind == "encoder_decoder":
            raise ValueError("pos_encoding='relative' is built for encoder and decoder stacks, not encoder_decoder")
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
