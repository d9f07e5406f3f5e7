"""The one base class for errors a user can cause: text, an image, a parameter or a request the model
cannot take. Pages catch it and show its message; anything else is a bug and is not dressed up as one.

The message is an English message id with the values of its placeholders (messages.py), translated by whoever
shows it: `raise InputError(N_("The row has {n} digits."), n=3)`; a page shows `e.shown(_)`, a command str(e)."""
from collections.abc import Callable

from model.engine.messages import fill


class InputError(ValueError):
    """Something typed, uploaded or chosen that cannot be run; the message says what to change.
    message: the English message id (marked with N_); params: the values of its {placeholders}."""

    def __init__(self, message: str, **params):
        super().__init__(fill(message, params))
        self.message, self.params = message, params

    def shown(self, translate: Callable[[str], str]) -> str:
        """The message in the reader's language: translate(message), its placeholders filled."""
        return fill(self.message, self.params, translate)
