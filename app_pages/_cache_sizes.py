"""How many entries each Streamlit cache of the app keeps, and why. Every `st.cache_data(max_entries=…)` and
bounded `st.cache_resource` names one of these. Caches are process-wide: a size is what one class working on the
same page at the same time needs, bounded so a server's memory stays flat whatever visitors type."""

RUNS_KEPT = 8                 # a model run on typed input (one TextRun is ≤ a few MB): the texts a class is on
PROMPTS_KEPT = 32             # a run on a generated prompt (a seed and a span): small results, many seeds clicked
MEASURES_KEPT = 4             # a whole-set measurement (every head on a held-out set, 512 fresh rows) per model and
                              # device: seconds to compute, one or two models offer it
TABLES_KEPT = 8               # a table read from a model's weights (positions, relative bias): one per model
LARGE_TABLES_KEPT = 4         # a (|V|, C) float64 embedding table: 8 MB each at 8k tokens
PER_MODEL_KEPT = 16           # a small summary of every shipped model (a dozen of them, a few session models)
CURVES_KEPT = 64              # a list of ints per mask pattern and its parameters: bytes each, sliders move fast
SESSION_MODELS_LOADED = 16    # models trained in the training lab: four per session (SESSION_KEPT), a few sessions
ONE = 1                       # a value that depends on nothing but the files shipped (example pairs, the lecture plan)
