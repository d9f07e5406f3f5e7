"""The one base class for errors a user can cause: text, an image, a parameter or a request the model
cannot take. Pages catch it and show its message; anything else is a bug and is not dressed up as one."""


class InputError(ValueError):
    """Something typed, uploaded or chosen that cannot be run; the message says what to change."""
