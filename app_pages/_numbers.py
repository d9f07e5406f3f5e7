"""Numbers as a learner reads them: fixed decimals, never e-notation (0.0000014, not 1.43e-06)."""
import math

import numpy as np
from babel.numbers import format_compact_decimal

import i18n
from i18n import ngettext

NUMBER_LOCALES = {"en": "en", "zh": "zh_Hans"}   # interface language -> Babel locale for "1.4 billion" / "14.4亿"

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


def spoken(n: int) -> str:
    """A large count as a person says it, in the reader's language: 1,435,538,432 -> "1.4 billion" ("14.4亿"),
    175,000,000,000 -> "175 billion" ("1750亿"); under a thousand, the number itself."""
    if n < 1000:
        return f"{n:,}"
    return format_compact_decimal(n, format_type="long", fraction_digits=1,
                                  locale=NUMBER_LOCALES.get(i18n.language(), "en"))
