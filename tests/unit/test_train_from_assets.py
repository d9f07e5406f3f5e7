"""`python -m model.train NAME --from-assets`: a machine without a model's checkpoint continues its shipped run,
the checkpoint rebuilt from assets/NAME.* (the weights as stored, the run state the JSON records), on a tiny
general_gpt trained here; a model that does not train in resumable runs, or one not shipped, is refused in one
line."""
import pytest
import torch
from safetensors.torch import load_file

from model import checkpoints, train
from model.data import real_text
from model.training import resumable
from model.training.recipes import general_gpt
from tests.unit.test_general_recipes import TINY, tiny  # noqa: F401 (the fixture)


@pytest.fixture
def shipped(tiny, monkeypatch):                                              # noqa: F811
    """A tiny general_gpt trained through all its stages and shipped to the temporary assets, its checkpoint gone."""
    monkeypatch.setattr(general_gpt, "RECIPE", {**general_gpt.RECIPE, **TINY})
    general_gpt.train(seed=0)
    for path in resumable.paths("general_gpt", real_text.cache_dir()):
        path.unlink()
    return checkpoints.read_meta("general_gpt")


def test_the_rebuilt_checkpoint_holds_the_shipped_weights_and_run_state(shipped):
    folder = real_text.cache_dir()
    state = resumable.checkpoint_from_assets("general_gpt", folder)
    r, stages = shipped["recipe"], len(general_gpt.RECIPE["stages"])
    assert (state["steps"], state["tokens"], state["runs"]) == (r["steps_done"], r["tokens_seen"], r["runs"]) == (
        r["steps_done"], r["tokens_seen"], stages)
    assert state["recipe"]["stage"] == stages - 1 and state["run_elapsed_s"] == r["run_cpu_seconds"]
    assert resumable.finished(state)                      # the last stage had run its budget
    weights, _info = resumable.paths("general_gpt", folder)
    rebuilt = load_file(str(weights))
    stored = load_file(str(checkpoints.ASSETS / "general_gpt.safetensors"))         # float16, as shipped
    assert rebuilt.keys() == stored.keys()
    assert all(torch.equal(rebuilt[k], stored[k].float()) for k in stored)


def test_from_assets_continues_the_shipped_run_with_a_new_one(shipped, capsys):
    train.main(["general_gpt", "--from-assets"])
    said = capsys.readouterr().out
    assert f"general_gpt: the shipped run at step {shipped['recipe']['steps_done']:,}" in said
    after = checkpoints.read_meta("general_gpt")["recipe"]
    assert after["runs"] == len(general_gpt.RECIPE["stages"]) + 1
    assert after["steps_done"] > shipped["recipe"]["steps_done"]
    assert after["tokens_seen"] > shipped["recipe"]["tokens_seen"]


@pytest.mark.parametrize("name, says", [
    ("vit_digits", "error: vit_digits does not train in resumable runs; train it from scratch without --from-assets"),
    ("general_encoder", "error: "),
])
def test_a_model_without_resumable_runs_or_without_assets_is_refused_in_one_line(tiny, capsys, name, says):  # noqa: F811
    with pytest.raises(SystemExit) as stop:
        train.main([name, "--from-assets"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith(says) and err.count("\n") == 1
    if name == "general_encoder":                          # nothing shipped in the temporary assets
        assert "general_encoder" in err and "Traceback" not in err
