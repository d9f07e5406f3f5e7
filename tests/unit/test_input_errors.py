"""One base class for errors a user can cause: every input error of the library is an InputError (what the
pages catch and show), and a bug (a TypeError, a missing model file) is not."""
import numpy as np
import pytest

from model.checkpoints import CheckpointError
from model.data.images import ImageError, load_image
from model.engine import masks
from model.engine.errors import InputError
from model.tasks.fill_mask import FillMaskError
from model.tasks.generation import GenerationError
from model.tasks.translation import SourceError


@pytest.mark.parametrize("cls", [ImageError, GenerationError, SourceError, FillMaskError])
def test_every_user_facing_error_is_an_input_error(cls):
    assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_a_bad_upload_raises_an_input_error_with_its_message():
    with pytest.raises(InputError, match="empty"):
        load_image(b"")


def test_bad_mask_parameters_raise_input_errors_with_their_message():
    with pytest.raises(InputError, match="do not fill rows of 8"):
        masks.build("swin", 20, grid_w=8, window=4)
    with pytest.raises(InputError, match="unknown mask pattern 'diagonal'"):
        masks.build("diagonal", 8)


def test_a_missing_model_is_not_an_input_error():
    assert not issubclass(CheckpointError, InputError)
    with pytest.raises(TypeError):          # a programming error stays what it is
        masks.build("window", "eight")
    assert np.array_equal(masks.build("full", 3), np.ones((3, 3), bool))
