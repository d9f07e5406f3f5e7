"""What the activation-patching tests share: a tiny random Transformer (weights far from zero, so a patch shows), a
run of it with edits patched in, and tensors as float64 numpy."""
import torch

from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.patching import patching
from model.engine.transformer import Transformer


def _np(t):
    return t.detach().double().numpy()



def _tiny(kind="encoder", norm="post", n_layers=3) -> Transformer:
    torch.manual_seed(3)
    model = Transformer(ModelConfig(vocab_size=50, d_model=32, n_heads=4, n_layers=n_layers, d_ff=64, max_len=32,
                                    kind=kind, norm=norm)).eval()
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return model


def _run(model, ids, edits=None, capture=True):
    with torch.inference_mode(), patching(edits or {}):
        if not capture:
            return model.encode(ids)
        with capturing():
            return model.encode(ids)
