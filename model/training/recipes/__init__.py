"""One module per shipped model: `model.training.recipes.<name>` defines

    train(seed: int = 0) -> None     # trains from scratch with a progress bar, writes assets/<name>.*
    evaluate() -> dict               # metrics of the shipped weights, {metric: value}

`python -m model.train <name>` and `python -m model.evaluate` find them by name.
"""
import importlib
import pkgutil


def names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def get(name: str):
    """The recipe module of a shipped model; ValueError naming the known ones for any other name."""
    if name not in names():
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(names())}")
    return importlib.import_module(f"{__name__}.{name}")
