"""Step-throughs as one animated GIF: frames (PNG bytes, one size) in order, looping, the last held longer."""
import io

from PIL import Image

MAX_FRAMES = 64
FRAME_MS = 1200
LAST_MS = 3000


def animate(frames: list[bytes], *, frame_ms: int = FRAME_MS, last_ms: int = LAST_MS) -> bytes:
    """PNG frames (all the same size) -> GIF bytes that loop forever. Raises ValueError for no frames, more
    than MAX_FRAMES, or frames of different sizes."""
    if not frames:
        raise ValueError("A GIF needs at least one frame.")
    if len(frames) > MAX_FRAMES:
        raise ValueError(f"A GIF is limited to {MAX_FRAMES} frames; {len(frames)} were given.")
    images = [Image.open(io.BytesIO(f)).convert("RGB") for f in frames]
    if len({im.size for im in images}) > 1:
        raise ValueError(f"Every frame must have the same size; got {sorted({im.size for im in images})}.")
    # one adaptive palette per frame: the figures are mostly white with a few colour scales
    paletted = [im.quantize(colors=255, method=Image.Quantize.MEDIANCUT) for im in images]
    buf = io.BytesIO()
    paletted[0].save(buf, format="GIF", save_all=True, append_images=paletted[1:], loop=0, optimize=False,
                     duration=[frame_ms] * (len(frames) - 1) + [last_ms], disposal=1)
    return buf.getvalue()
