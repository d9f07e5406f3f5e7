"""Attention Lab's Transformers: torch + numpy only, no Streamlit, no plotting.

Each layer imports only those before it (.importlinter states the order, `lint-imports` checks it): engine,
reference and cli → data → architectures → kinds, pretrained → checkpoints → tasks with protocols → handle →
analysis → training's loop → lab → training's recipes → the commands. Thin entry modules for the commands (train,
evaluate, coref, tokens as `python -m model.tokenize`, positional, checkpoints, reference; cli: how the commands
fail) sit beside them, with what every caller of a shipped model shares: handle (one LoadedModel per model:
network, tokenizer, text rule, meta, kind), kinds (what meta["kind"] may say) and protocols (the contracts of text
and image models)."""
