"""Training: the one training loop, objectives, progress bar, and one recipe per shipped model
(model/training/recipes). Imports every other subpackage; nothing imports it but the entry modules."""
