"""What kind of model a checkpoint holds, written once into its metadata (meta["kind"]) when it is saved and read
back by every page, command and benchmark, so nobody guesses it from config keys or the methods a model has.

Each architecture class names its kind (`model_kind`); a Transformer's is its config's kind."""

KINDS = {
    "encoder": "a self-attention encoder over the whole text (masked LM, or sentence vectors without an output layer)",
    "decoder": "a causal decoder: each token sees the ones before it (next-token prediction)",
    "encoder_decoder": "an encoder over the source and a decoder with cross-attention (translation)",
    "sparse_encoder": "an encoder whose attention follows a sliding window with global tokens",
    "coref_encoder": "an encoder with a second output, a pronoun cloze head",
    "vit": "a Vision Transformer: patches and a <cls> token, learned positions, one stage",
    "swin": "a Swin Transformer: shifted windows, stages of fewer, wider tokens",
    "davit": "a DaViT: window attention alternating with channel attention, stages as in Swin",
    "imagegpt": "a causal decoder over grey levels in raster order",
    "finetuned": "a pre-trained encoder with a fine-tuning head",
}
TEXT_SELF_ATTENTION = ("encoder", "decoder", "sparse_encoder", "coref_encoder")   # a text in, (L, H, N, N) out
IMAGE_CLASSIFIERS = ("vit", "swin", "davit")                                      # an image in, classes out
HIERARCHICAL = ("swin", "davit")                                                  # stages of token grids


def of_model(model) -> str:
    """The kind an architecture declares (its `model_kind`); ValueError for a module that declares none."""
    kind = getattr(model, "model_kind", None)
    if kind not in KINDS:
        raise ValueError(f"{type(model).__name__} declares no model kind (model_kind is {kind!r}; known: "
                         f"{', '.join(KINDS)})")
    return kind


def problem(meta: dict) -> str | None:
    """Why meta["kind"] is not usable, or None when it is one of KINDS."""
    kind = meta.get("kind")
    if kind in KINDS:
        return None
    return f"states no known 'kind' (it is {kind!r}; one of {', '.join(KINDS)})"
