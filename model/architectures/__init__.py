"""Models built on the engine: ViT, Swin, the sparse and coreference encoders. Imports model.engine
and model.data."""
