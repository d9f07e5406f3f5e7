"""The Transformer engine: config, attention, layers, stacks, positions, masks and the sparse kernel,
device choice, and the words it gives a reader (messages, input errors: English message ids the page translates).
Imports torch and numpy only, nothing else of this package."""
