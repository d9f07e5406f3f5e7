"""A one-line training progress bar on stderr: step, loss, tokens/s, ETA (no dependencies)."""
import sys
import time


class Progress:
    def __init__(self, total_steps: int, label: str = "train", stream=sys.stderr, every: int = 10):
        self.total, self.label, self.stream, self.every = total_steps, label, stream, every
        self.start = time.perf_counter()
        self.tokens = 0

    def update(self, step: int, loss: float, tokens: int = 0, **extra):
        """Call after each step (1-based); prints every `every` steps and on the last."""
        self.tokens += tokens
        if step % self.every and step != self.total:
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / step * (self.total - step)
        width = 24
        done = int(width * step / self.total)
        bar = "#" * done + "-" * (width - done)
        more = " ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in extra.items())
        self.stream.write(f"\r{self.label} [{bar}] step {step}/{self.total} loss {loss:.4f} "
                          f"{self.tokens / max(elapsed, 1e-9):,.0f} tok/s ETA {eta:5.0f}s {more}   ")
        if step == self.total:
            self.stream.write("\n")
        self.stream.flush()
