"""Words for a reader made by model code, never translated there (the engine and the data import no translations):
an English message id, marked with N_ so extraction finds it, kept with the values of its {placeholders}. Where it
is shown, the page passes its translation function, `note.shown(_)`; str() is the English text (the command line,
logs, tests).

    Note.of(N_("Made {n} frames."), n=3).shown(_)      # "Made 3 frames.", or its translation"""
from collections.abc import Callable
from dataclasses import dataclass


def N_(message: str) -> str:
    """Mark `message` for extraction (the N_ keyword of pybabel extract); it is translated where it is shown."""
    return message


def fill(message: str, params: dict, translate: Callable[[str], str] | None = None) -> str:
    """translate(message) (or the message itself) with its {placeholders} filled from params; without params the
    text is returned as it is (braces included)."""
    text = translate(message) if translate is not None else message
    return text.format(**params) if params else text


@dataclass(frozen=True)
class Note:
    """A message id and its values; hashable and picklable, so a cached result holds it for readers of any language.
    params: (name, value) pairs."""
    message: str
    params: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, message: str, **params) -> "Note":
        return cls(message, tuple(params.items()))

    def shown(self, translate: Callable[[str], str]) -> str:
        """The note in the reader's language: translate(message), its placeholders filled."""
        return fill(self.message, dict(self.params), translate)

    def __str__(self) -> str:
        return fill(self.message, dict(self.params))
