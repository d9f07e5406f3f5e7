"""The lessons: presets that each train in under two minutes of one CPU thread, the settings a learner may change
within bounds that keep a run under a few minutes, and the estimate of its time shown before it starts.

    lesson = LESSONS["induction"]
    settings = lesson.defaults._replace(n_heads=2) ; check(lesson, settings)   # SettingsError with the reason
    model = build(lesson, settings) ; estimate_seconds(lesson, settings)"""
from dataclasses import dataclass, field, replace

import torch

from i18n import N_, _
from model.data import symbol_streams
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.lab import tasks

MASKS = {"causal": N_("causal"), "full": N_("none (sees all)")}
BOUNDS = {"n_layers": (1, 4), "n_heads": (1, 8), "d_model": (16, 128), "lr": (1e-4, 3e-2), "steps": (10, 4000),
          "seed": (0, 9999)}
MAX_SECONDS = 300            # the longest run a learner may start (estimated)
SNAPSHOTS = 40               # snapshots per run, about (one every `snapshot_every` steps)
# One thread of this machine's CPU: seconds per step = STEP_S + tokens per step × FLOPs per token ÷ FLOPS,
# fitted on the lessons' default sizes (measured tokens/s is shown while a run goes).
STEP_S, FLOPS = 0.004, 1.2e10


class SettingsError(ValueError):
    """Settings outside their bounds; the message says which and what is allowed, in the reader's language."""


@dataclass(frozen=True)
class Settings:
    """What a learner may change. mask: "causal" or "full"; positions: off leaves the model without any
    position information."""
    n_layers: int
    n_heads: int
    d_model: int
    lr: float
    steps: int
    positions: bool = True
    mask: str = "causal"
    seed: int = 0

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Lesson:
    """A preset. task: the data (model.lab.tasks); data: its sizes; kinds: the per-head scores it reports, the
    first one its own; thresholds: where a score counts as "formed"; metric: what the task accuracy measures."""
    name: str
    title: str
    blurb: str
    task: str
    data: dict
    defaults: Settings
    batch: int
    kinds: tuple[str, ...]
    thresholds: dict = field(default_factory=dict)
    metric: str = N_("next-token accuracy")
    metric_about: str = ""
    metric_key: str = "task_acc_final"
    ffn: bool = False
    pos_encoding: str = "learned"
    text_rule: str = "bos"

    def replace(self, **settings) -> Settings:
        return replace(self.defaults, **settings)


LESSONS = {lesson.name: lesson for lesson in (
    Lesson("induction", N_("Induction heads"),
           N_("A two-layer, attention-only decoder with one head per layer reads random syllables in which spans "
              "come back later. To predict the second copy it must find the first one and read what came next: a "
              "previous-token head in the first layer, then an induction head in the second (Olsson et al. 2022). "
              "With more heads per layer it often copies without any single head showing the pattern."),
           "induction", dict(vocab=64, length=32, skip=0.1, spans=(3, 10), copies=2, probe_span=12),
           Settings(n_layers=2, n_heads=1, d_model=64, lr=3e-3, steps=2500), batch=32,
           kinds=("induction", "previous", "sink"), thresholds={"induction": 0.5, "previous": 0.4},
           metric=N_("copy accuracy"), metric_key="copy_acc_final",
           metric_about=N_("Next-token accuracy on the second copy of a repeated span.")),
    Lesson("previous", N_("Previous-token heads"),
           N_("A one-layer decoder on syllables where a token often fixes the one two places later. Predicting the "
              "next token needs the previous one, so a head learns to look exactly one position back: a positional "
              "head, which cannot form with positions off."),
           "previous", dict(vocab=40, length=48, skip=0.8, probe_length=32, copies=0),
           Settings(n_layers=1, n_heads=2, d_model=32, lr=1e-2, steps=300), batch=32,
           kinds=("previous", "sink"), thresholds={"previous": 0.5},
           metric=N_("rule accuracy"), metric_key="rule_acc_final",
           metric_about=N_("Next-token accuracy where the skip-bigram rule fixed the next token.")),
    Lesson("pronoun", N_("A pronoun head"),
           N_("A small encoder reads course-world sentences (“The trophy didn't fit into the suitcase because it was "
              "too big.”), each after one naming two other nouns of the same kinds, and must name, from the "
              "pronoun, the noun it refers to. Nothing tells a head where to look: watch whether one head learns to "
              "point the pronoun at its antecedent, or whether the model shares the work among heads (at this size "
              "it usually does: a head for each kind of noun)."),
           "pronoun", dict(distractor=True),
           Settings(n_layers=2, n_heads=4, d_model=64, lr=3e-3, steps=600, mask="full"),
           batch=32, kinds=("pronoun", "previous", "sink"), thresholds={"pronoun": 0.8},
           metric=N_("pronoun accuracy"), metric_key="pronoun_acc_final", ffn=True, text_rule="cls_sep",
           metric_about=N_("The noun predicted at the pronoun, on sentence frames never trained on.")),
    Lesson("sort", N_("Sorting"),
           N_("A decoder reads eight numbers, then writes them sorted. Each next number is the smallest one not yet "
              "written, so a head learns to point at it in the list."),
           "sort", dict(size=32, count=8), Settings(n_layers=2, n_heads=2, d_model=64, lr=3e-3, steps=600),
           batch=32, kinds=("sort", "previous", "sink"), thresholds={"sort": 0.5},
           metric=N_("sorting accuracy"), metric_key="sort_acc_final", ffn=True,
           metric_about=N_("Each number of the sorted list predicted from the one before it.")),
)}
SCORE_NAMES = {"previous": N_("previous-token"), "induction": N_("induction"), "sink": N_("sink (first token)"),
               "pronoun": N_("pronoun → antecedent (accuracy)"), "sort": N_("sort pointer")}


def tokenizer(lesson: Lesson):
    """The lesson's word tokenizer (syllables, numbers, or the course world's words)."""
    if lesson.task == "pronoun":
        return tasks.pronoun_tokenizer()
    if lesson.task == "sort":
        return tasks.numbers(lesson.data["size"])
    return symbol_streams.symbols(lesson.data["vocab"] - symbol_streams.LOW)


def length(lesson: Lesson) -> int:
    """Positions the model reads (its max_len)."""
    return {"sort": 2 * lesson.data.get("count", 0) + 1, "pronoun": 40}.get(lesson.task, lesson.data.get("length", 0))


def check(lesson: Lesson, s: Settings) -> None:
    """SettingsError naming the first setting out of bounds, or a run estimated over MAX_SECONDS."""
    for key, (low, high) in BOUNDS.items():
        value = getattr(s, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high \
                or (key != "lr" and value != int(value)):
            raise SettingsError(_("{name} is {value}; it must be a whole number from {low} to {high}.").format(
                name=key, value=value, low=low, high=high) if key != "lr" else
                _("The learning rate is {value}; it must be from {low:g} to {high:g}.").format(
                    value=value, low=low, high=high))
    if s.d_model % s.n_heads:
        raise SettingsError(_("d_model = {d} does not split evenly across {h} heads.").format(d=s.d_model, h=s.n_heads))
    if s.mask not in MASKS:
        raise SettingsError(_("The mask is “{mask}”; choose causal or full.").format(mask=s.mask))
    seconds = estimate_seconds(lesson, s)
    if seconds > MAX_SECONDS:
        raise SettingsError(_("This run would take about {s:.0f} s; the lab allows {most} s. Fewer steps, layers "
                              "or a smaller d_model bring it down.").format(s=seconds, most=MAX_SECONDS))


def config(lesson: Lesson, s: Settings, vocab_size: int) -> ModelConfig:
    return ModelConfig(vocab_size=vocab_size, d_model=s.d_model, n_heads=s.n_heads, n_layers=s.n_layers,
                       d_ff=4 * s.d_model, max_len=length(lesson), norm="pre", ffn=lesson.ffn,
                       pos_encoding=lesson.pos_encoding if s.positions else "none",
                       kind="decoder" if s.mask == "causal" else "encoder")


def build(lesson: Lesson, s: Settings, vocab_size: int) -> Transformer:
    """A fresh model for the lesson (seeded by s.seed)."""
    torch.manual_seed(s.seed)
    return Transformer(config(lesson, s, vocab_size))


def flops_per_token(lesson: Lesson, s: Settings, vocab_size: int) -> float:
    """Training FLOPs per token (forward and backward, 3 × 2 × multiply-adds): projections, attention over the
    sequence, FFN and the output layer."""
    C, L, T = s.d_model, s.n_layers, length(lesson)
    per_layer = 4 * C * C + 2 * T * C + (8 * C * C if lesson.ffn else 0)
    return 6.0 * (L * per_layer + C * vocab_size)


def estimate_seconds(lesson: Lesson, s: Settings) -> float:
    """Seconds the run takes on one thread of this machine, from its size (snapshots included, about 5%)."""
    tokens = lesson.batch * length(lesson)
    step = STEP_S + tokens * flops_per_token(lesson, s, len(tokenizer(lesson))) / FLOPS
    return 1.05 * s.steps * step


def snapshot_every(steps: int) -> int:
    """Steps between snapshots: about SNAPSHOTS of them, the first after step 0."""
    return max(1, -(-steps // SNAPSHOTS))


def batch(lesson: Lesson, s: Settings, step: int, tok) -> tuple[torch.Tensor, torch.Tensor]:
    """The batch of `step`: inputs (B, T), targets (B, T) (tasks.IGNORE: no loss), the same for the same seed."""
    if lesson.task == "pronoun":
        return tasks.pronoun_batch(lesson.data, s.seed, step, lesson.batch, tok)
    if lesson.task == "sort":
        return tasks.sort_batch(lesson.data, s.seed, step, lesson.batch)
    return tasks.next_token_batch(lesson.data, s.seed, step, lesson.batch)


def probes(lesson: Lesson, tok) -> tasks.Probes:
    return {"induction": tasks.induction_probes, "previous": tasks.previous_probes, "sort": tasks.sort_probes,
            "pronoun": tasks.pronoun_probes}[lesson.task](lesson.data, tok)
