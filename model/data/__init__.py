"""Data: tokenizers, corpora (generated course worlds and real text), images and patches. Imports
numpy (torch only for tensors of images), nothing of this package but model.engine."""
