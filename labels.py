"""One name for a layer and a head everywhere (pages, figures, hovers, downloads, command-line output).

Layers and heads count from 0, as `python -m model.evaluate --json` reports `coref_head`: [3, 1] is
"L3 H1", the second head of the fourth layer. Pure Python, so model/ and viz/ may both use it."""

import re

PATTERN = re.compile(r"\bL(\d+) H(\d+)\b")      # how a head label reads in text


def layer_label(layer: int) -> str:
    """0 -> "L0"."""
    return f"L{int(layer)}"


def head_only(head: int) -> str:
    """1 -> "H1", for an axis or a legend where the layer is stated elsewhere."""
    return f"H{int(head)}"


def head_label(layer: int, head: int) -> str:
    """(3, 1) -> "L3 H1"."""
    return f"{layer_label(layer)} {head_only(head)}"


def file_label(layer: int, head: int) -> str:
    """(3, 1) -> "L3H1", the same label inside a file name (no space)."""
    return head_label(layer, head).replace(" ", "")

