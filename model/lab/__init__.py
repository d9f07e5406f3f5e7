"""The training lab: small Transformers trained live on one CPU thread, their attention snapshotted on fixed probe
inputs every k steps and scored per head as it forms (previous-token, induction, sink, pronoun and sorting heads).

    lessons.py   the lessons (presets) and the bounded settings a learner may change, with a time estimate
    tasks.py     each lesson's data: batches by step, and the fixed probe inputs
    scores.py    per-head scores of one snapshot, the crossing step of each score (model.analysis.head_scores)
    run.py       the training run: snapshots, checkpoints to resume from, JSON lines for the job queue
    __main__.py  `python -m model.lab LESSON --json`: a lesson headless, its figures as JSON

torch + numpy only (no Streamlit, no Plotly); the page is app_pages/views/training_lab.py. Imports the training loop
and the layers below it (its symbol streams come from model/data/symbol_streams.py); of training, only the recipes
import the lab (incontext_copy ships a lesson's run)."""
