"""Numbers as a learner reads them: fixed decimals, never e-notation (0.0000014, not 1.43e-06)."""
import math

import numpy as np

from i18n import ngettext

# nouns counted in the app's sentences, each with its singular and plural in the current language
NOUNS = {"layer": lambda n: ngettext("{n:,} layer", "{n:,} layers", n)}


def plain(value: float, digits: int = 2) -> str:
    """`digits` significant digits in fixed decimals: 1.43e-06 -> "0.0000014", 0.1234 -> "0.12", 0.0 -> "0";
    ±∞ and nan spelled out."""
    v = float(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "−∞" if v < 0 else "+∞"
    if v == 0:
        return "0"
    return np.format_float_positional(v, precision=digits, unique=False, fractional=False, trim="-")


def prob(p: float) -> str:
    """A probability with four decimals, or two significant digits where those would read 0.0000."""
    return f"{p:.4f}" if p >= 5e-5 else plain(p)


def count(n: int, noun: str) -> str:
    """1, "layer" -> "1 layer"; 2, "layer" -> "2 layers" (translated for a noun in NOUNS; others add an "s")."""
    form = NOUNS.get(noun)
    return form(n).format(n=n) if form else f"{n:,} {noun}{'' if n == 1 else 's'}"
