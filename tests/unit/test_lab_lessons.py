"""The training lab's lessons: their models and data shapes, the data's rules checked on the batches themselves,
the bounds on what a learner may change (with the messages), the time estimate and the snapshot schedule."""
import numpy as np
import pytest
import torch

from model.data import symbol_streams as symbols
from model.data.word_tokenizer import BOS, SEP, split_words
from model.lab import lessons, tasks


@pytest.mark.parametrize("name", sorted(lessons.LESSONS))
def test_lesson_model_data_and_probes_fit_together(name):
    lesson = lessons.LESSONS[name]
    tok = lessons.tokenizer(lesson)
    s = lesson.defaults
    model = lessons.build(lesson, s, len(tok))
    T = lessons.length(lesson)
    assert model.config.max_len == T and model.config.vocab_size == len(tok)
    assert model.config.kind == ("decoder" if s.mask == "causal" else "encoder")
    assert (model.encoder.layers[0].ffn is None) == (not lesson.ffn)
    inputs, targets = lessons.batch(lesson, s, 3, tok)
    assert inputs.shape == targets.shape and inputs.dtype == torch.long
    assert inputs.shape[0] == lesson.batch and inputs.shape[1] == T or lesson.task == "pronoun" and inputs.shape[1] <= T
    scored = targets[targets != tasks.IGNORE]
    assert len(scored) and int(scored.min()) >= 0 and int(scored.max()) < len(tok)
    assert torch.equal(inputs, lessons.batch(lesson, s, 3, tok)[0])          # the same step, the same batch
    assert not torch.equal(inputs, lessons.batch(lesson, s, 4, tok)[0])
    with torch.no_grad():
        assert model(inputs).shape == (*inputs.shape, len(tok))
    probes = lessons.probes(lesson, tok)
    assert probes.ids.shape[1] <= T and probes.targets.shape == probes.answers.shape == probes.ids.shape
    assert len(probes.tokens) <= probes.ids.shape[1]


def test_next_token_targets_are_the_inputs_shifted():
    lesson = lessons.LESSONS["induction"]
    inputs, targets = lessons.batch(lesson, lesson.defaults, 0, lessons.tokenizer(lesson))
    assert torch.equal(inputs[:, 1:], targets[:, :-1]) and (inputs[:, 0] == BOS).all()


def test_repeat_spans_copies_a_span_later_in_the_row():
    x = np.arange(100, 140)[None].copy()                  # 40 distinct ids: only a copy can repeat one
    symbols.repeat_spans(np.random.default_rng(0), x, (5, 5), 1)
    row = x[0]
    starts = [i for i in range(36) if any((row[i:i + 5] == row[j:j + 5]).all() for j in range(i + 5, 36))]
    assert len(starts) == 1 and row[0] == 100


def test_skip_rule_fixes_the_token_two_places_later():
    x = symbols.stream(np.random.default_rng(0), 4, 20, 40, skip=1.0)
    rule = symbols.skip_rule(40)
    assert (x[:, 3:] == rule[x[:, 1:-2]]).all() and sorted(rule[symbols.LOW:]) == list(range(symbols.LOW, 40))


def test_sort_rows_end_with_their_numbers_sorted():
    lesson = lessons.LESSONS["sort"]
    inputs, targets = lessons.batch(lesson, lesson.defaults, 0, None)
    k = lesson.data["count"]
    numbers, answer = inputs[:, 1:k + 1], targets[:, k + 1:]
    assert (inputs[:, k + 1] == SEP).all()
    assert torch.equal(torch.sort(numbers, dim=1).values, answer)
    assert (targets[:, :k + 1] == tasks.IGNORE).all()


def test_sort_probe_targets_point_at_the_next_number_in_the_list():
    lesson = lessons.LESSONS["sort"]
    p = lessons.probes(lesson, lessons.tokenizer(lesson))
    rows, queries = np.nonzero(p.targets >= 0)
    assert len(rows) == len(p.ids) * lesson.data["count"]
    assert (p.ids[rows, p.targets[rows, queries]] == p.answers[rows, queries]).all()


def test_pronoun_rows_ask_for_the_antecedent_at_the_pronoun():
    lesson = lessons.LESSONS["pronoun"]
    tok = lessons.tokenizer(lesson)
    samples = tasks.pronoun_sentences("heldout", 6, 0)
    ids, targets, answers = tasks.pronoun_rows(tok, samples)
    for r, s in enumerate(samples):
        (q,) = np.nonzero(targets[r] >= 0)[0]
        words = split_words(s.text)
        assert tok.vocab[ids[r, q]] == words[s.refs[0].pronoun_index] == "it"
        assert tok.vocab[answers[r, q]] == s.refs[0].antecedent == tok.vocab[ids[r, targets[r, q]]]


@pytest.mark.parametrize("change, message", [
    (dict(d_model=48, n_heads=5), "d_model = 48 does not split evenly across 5 heads."),
    (dict(n_layers=9), "n_layers is 9; it must be a whole number from 1 to 4."),
    (dict(lr=0.5), "The learning rate is 0.5; it must be from 0.0001 to 0.03."),
    (dict(mask="diagonal"), "The mask is “diagonal”; choose causal or full."),
])
def test_settings_out_of_bounds_are_refused_with_the_reason(change, message):
    lesson = lessons.LESSONS["induction"]
    with pytest.raises(lessons.SettingsError) as e:
        lessons.check(lesson, lesson.replace(**change))
    assert str(e.value) == message


def test_a_run_estimated_over_the_limit_is_refused():
    lesson = lessons.LESSONS["pronoun"]
    big = lesson.replace(n_layers=4, d_model=128, steps=4000)
    assert lessons.estimate_seconds(lesson, big) > lessons.MAX_SECONDS
    with pytest.raises(lessons.SettingsError, match=r"would take about \d+ s; the lab allows 300 s"):
        lessons.check(lesson, big)


@pytest.mark.parametrize("name", sorted(lessons.LESSONS))
def test_every_default_lesson_is_within_two_minutes_by_its_estimate(name):
    lesson = lessons.LESSONS[name]
    lessons.check(lesson, lesson.defaults)
    assert lessons.estimate_seconds(lesson, lesson.defaults) <= 120
    longer = lesson.replace(steps=2 * lesson.defaults.steps)
    assert lessons.estimate_seconds(lesson, longer) > 1.9 * lessons.estimate_seconds(lesson, lesson.defaults)


@pytest.mark.parametrize("steps, every, count", [(10, 1, 10), (40, 1, 40), (41, 2, 21), (2500, 63, 40),
                                                 (4000, 100, 40)])
def test_snapshot_schedule_takes_about_forty_snapshots(steps, every, count):
    assert lessons.snapshot_every(steps) == every
    taken = [s for s in range(1, steps + 1) if s % every == 0 or s == steps]
    assert len(taken) == count
