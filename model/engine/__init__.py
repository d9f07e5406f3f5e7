"""The Transformer engine: config, attention, layers, stacks, positions, masks and the sparse kernel,
device choice. Imports torch and numpy only, nothing else of this package."""
