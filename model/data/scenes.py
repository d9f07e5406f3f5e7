"""Generated scenes where the answer lives in particular patches: 2–4 flat shapes on a light
background, exactly one of them red; the question is "which shape is red?" (circle, square or
triangle). Only the red object's patches hold the answer, so the share of <cls> attention that lands on
them is a checkable measure of where the model looks. Everything is drawn with numpy from a seed."""
from dataclasses import dataclass

import numpy as np

SIZE = 24                                   # pixels per side
SHAPES = ("circle", "square", "triangle")   # the classes, in label order
QUESTION = "Which shape is red?"
BACKGROUND = (0.93, 0.93, 0.90)
COLOURS = {"red": (0.86, 0.12, 0.12), "green": (0.15, 0.62, 0.25), "blue": (0.18, 0.32, 0.88),
           "black": (0.12, 0.12, 0.12)}


@dataclass
class Scene:
    """image: (3, SIZE, SIZE) float32 in [0, 1]; label: index into SHAPES of the red shape;
    target: (SIZE, SIZE) bool pixels of the red shape; objects: (shape, colour) for each drawn one."""
    image: np.ndarray
    label: int
    target: np.ndarray
    objects: list


def shape_mask(kind: str, top: int, left: int, side: int, size: int = SIZE) -> np.ndarray:
    """(size, size) bool: a filled shape inside the box [top, top+side) × [left, left+side)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) + 0.5      # pixel centres
    y, x = yy - top, xx - left
    inside = (y >= 0) & (y < side) & (x >= 0) & (x < side)
    if kind == "square":
        return inside
    if kind == "circle":
        r = side / 2
        return inside & ((y - r) ** 2 + (x - r) ** 2 <= r * r)
    if kind == "triangle":                   # apex at the top centre, base at the bottom
        half_width = (y + 0.5) / side * side / 2
        return inside & (np.abs(x - side / 2) <= half_width)
    raise ValueError(f"unknown shape {kind!r}; choose one of {SHAPES}")


def make_scene(rng: np.random.Generator, size: int = SIZE, objects: tuple[int, int] = (2, 4)) -> Scene:
    """One random scene: a red shape plus others in other colours (objects = (fewest, most) shapes in
    all, 2–4 in training), none touching; a crowded scene may hold fewer when no room is left."""
    n_objects = int(rng.integers(objects[0], objects[1] + 1))
    others = [c for c in COLOURS if c != "red"]
    colours = ["red"] + [others[i] for i in rng.integers(0, len(others), n_objects - 1)]
    image = np.empty((3, size, size), dtype=np.float32)
    image[:] = np.array(BACKGROUND, dtype=np.float32)[:, None, None]
    occupied = np.zeros((size, size), dtype=bool)
    objects, target, label = [], None, 0
    for colour in colours:
        kind = SHAPES[int(rng.integers(len(SHAPES)))]
        for _ in range(100):
            side = int(rng.integers(7, 10))
            top, left = (int(v) for v in rng.integers(0, size - side + 1, 2))
            if not occupied[max(top - 1, 0):top + side + 1, max(left - 1, 0):left + side + 1].any():
                break
        else:
            continue                         # no room left: draw fewer others
        mask = shape_mask(kind, top, left, side, size)
        occupied |= mask
        image[:, mask] = np.array(COLOURS[colour], dtype=np.float32)[:, None]
        objects.append((kind, colour))
        if colour == "red":
            target, label = mask, SHAPES.index(kind)
    image += rng.normal(0, 0.02, image.shape).astype(np.float32)          # a little sensor noise
    return Scene(np.clip(image, 0, 1), label, target, objects)


def make_dataset(n: int, seed: int, objects: tuple[int, int] = (2, 4)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """images (n, 3, SIZE, SIZE) float32, labels (n,) int64, targets (n, SIZE, SIZE) bool."""
    rng = np.random.default_rng(seed)
    scenes = [make_scene(rng, objects=objects) for _ in range(n)]
    return (np.stack([s.image for s in scenes]), np.array([s.label for s in scenes], dtype=np.int64),
            np.stack([s.target for s in scenes]))


def patch_mask(pixels: np.ndarray, patch_size: int) -> np.ndarray:
    """(..., H, W) bool -> (..., N) bool, row-major: patches holding at least one True pixel."""
    *lead, h, w = pixels.shape
    p = patch_size
    blocks = pixels.reshape(*lead, h // p, p, w // p, p)
    return blocks.any(axis=(-1, -3)).reshape(*lead, (h // p) * (w // p))
