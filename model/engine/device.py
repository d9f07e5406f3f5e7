"""Device choice: "auto" picks cuda, then mps, then cpu; asking for an absent one falls back to
CPU with a notice the page can show (a Note: the page translates it), never a crash."""
import torch

from model.engine.messages import N_, Note

CHOICES = ("auto", "cpu", "cuda", "mps")


def available() -> list[str]:
    out = ["cpu"]
    if torch.cuda.is_available():
        out.append("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        out.append("mps")
    return out


def resolve(requested: str = "auto") -> tuple[torch.device, Note | None]:
    """Returns (device, notice); notice is None unless the request could not be honoured."""
    have = available()
    if requested == "auto":
        return torch.device("cuda" if "cuda" in have else "mps" if "mps" in have else "cpu"), None
    if requested not in CHOICES:
        return torch.device("cpu"), Note.of(N_("Unknown device {name}; running on CPU."), name=repr(requested))
    if requested not in have:
        return torch.device("cpu"), Note.of(N_("{name} is not available on this machine; running on CPU."),
                                            name=requested.upper())
    return torch.device(requested), None
