"""What weights a model may load: floating point tensors (float32, float16 or bfloat16) holding finite numbers.
NaN or infinite weights would load silently (a page would show "probability nan%"), and so would complex (the
imaginary part dropped), integer, boolean and float64 tensors. model/checkpoints.py refuses a file for
the problem `problem` names, and names the file; `shown` is how a message names a file: its folder and its name,
never the server's own path."""
from pathlib import Path

import torch

FLOATS = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def problem(state: dict[str, torch.Tensor]) -> str | None:
    """Why these tensors are no model's weights, or None when they may be loaded."""
    for key, t in state.items():
        if t.dtype not in FLOATS:
            return (f"tensor {key} holds {str(t.dtype).removeprefix('torch.')} values; a model's weights are "
                    f"{', '.join(FLOATS.values())}")
    for key, t in state.items():
        bad = int((~torch.isfinite(t)).sum())
        if bad:
            return f"tensor {key} holds {bad:,} values that are not finite numbers (NaN or infinity)"
    return None


def shown(path: Path) -> str:
    """A file as a message names it: "assets/coref_encoder.json", never the absolute path."""
    path = Path(path)
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name
