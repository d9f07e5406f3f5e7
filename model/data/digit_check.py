"""Is an image like the handwritten digits the digit model learned from? Two shares of its 8×8 input, compared
with the range they take on scikit-learn's 1,797 digits (each stretched so its brightest pixel is 1, as the
page's preprocessing does): near-black background pixels and bright ink pixels."""
from dataclasses import dataclass

import numpy as np

DARK_AT, INK_AT = 0.1, 0.5      # a pixel ≤ 0.1 is background, ≥ 0.5 is ink (image in [0, 1], ink bright)
# 0.5th–99.5th percentiles on the training digits, rounded outwards: dark 0.41–0.67, ink 0.23–0.44; 0.7 % of the
# training digits fall outside these ranges
DARK_RANGE = (0.40, 0.70)
INK_RANGE = (0.20, 0.45)


@dataclass(frozen=True)
class DigitLikeness:
    """dark: share of background pixels; ink: share of bright ink pixels; typical: both inside the training range."""
    dark: float
    ink: float

    @property
    def typical(self) -> bool:
        return DARK_RANGE[0] <= self.dark <= DARK_RANGE[1] and INK_RANGE[0] <= self.ink <= INK_RANGE[1]


def digit_likeness(image: np.ndarray) -> DigitLikeness:
    """image: (S, S) in [0, 1], light ink on dark, as the digit model reads it before normalising."""
    a = np.asarray(image, dtype=np.float64)
    return DigitLikeness(float((a <= DARK_AT).mean()), float((a >= INK_AT).mean()))
