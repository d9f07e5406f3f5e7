"""Training: the one training loop (with its progress bar and time budget), the objectives (BERT masking,
causal and masked token losses), and one recipe per shipped model (model/training/recipes). The loop imports the
subpackages below it (engine to analysis); the training lab (model/lab) runs on the loop, and the recipes, above
both, may import the lab. Imported by the entry modules (train, evaluate) and by pages for the objectives."""
