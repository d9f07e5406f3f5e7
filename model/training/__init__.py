"""Training: the one training loop (with its progress bar and time budget), the objectives (BERT masking,
causal and masked token losses), and one recipe per shipped model (model/training/recipes). Imports every
other subpackage; imported by the entry modules (train, evaluate) and by pages for the objectives."""
