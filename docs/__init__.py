"""The project's documentation: one Markdown file per page (pages/), per topic (models, benchmarks, testing, the
class setup…), and the command that writes the figures they quote (`python -m docs.figures`). Standard library
only: it reads assets/*.json and bench/latest.json, never a model."""
