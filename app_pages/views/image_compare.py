"""The image page's side-by-side view: every shipped model of one kind (digits or scenes) on the same image, with
its answer, held-out accuracy, parameters, the attention pairs each layer computes, its measured time, and what
reaches its answer (rollout onto the pixels, one colour scale for all)."""
import numpy as np
import streamlit as st

from app_pages import _export, _resources, _runs
from i18n import _
from model import checkpoints
from model.analysis.attention_views import rollout
from model.analysis.hierarchical_rollout import hierarchical_rollout, pooled
from model.data.images import preprocess
from viz import images as vimg
from viz.slide import caption_line

GROUPS = {"digits": ("vit_digits", "swin_digits", "davit_digits"), "scenes": ("vit_scenes", "swin_scenes")}


def answer_rollout(run) -> np.ndarray:
    """(N_1,) what reaches the answer from each first-stage patch, summing to 1: a ViT's <cls> rollout after the
    last layer (<cls>'s own share left out and the rest renormalised), a hierarchical model's pooled rollout."""
    if run.has_cls:
        r = rollout(run.stacked_weights())[-1, 0, 1:]
        return r / r.sum()
    grids = [run.stage_grid(s)[0] for s in range(run.n_stages)]
    return pooled(hierarchical_rollout(list(run.weights), run.stages, grids)[-1])


def render(name: str, kind: str, image, fit_ink: bool, shown, look: str, picture: str | None, shown_model) -> None:
    """Section 7: the models of `kind` ("digits" or "scenes") on the PIL image the page loaded."""
    names = [n for n in GROUPS[kind] if n in checkpoints.shipped()]
    st.header(_("7 · Every model on this image"))
    if len(names) < 2:
        st.info(_("Only one {kind} model is shipped; train the others with `python -m model.train NAME`.").format(
            kind=kind))
        return
    device = _resources.device()
    runs, rows, costs = {}, [], {}
    for n in names:
        model, meta = _resources.model_or_stop(n)
        pre = meta["preprocess"]
        x = preprocess(image, size=model.config.image_size, grayscale=pre["grayscale"], mean=pre["mean"],
                       std=pre["std"], ink_light=bool(pre["grayscale"]), fit_ink=fit_ink).x
        runs[n] = r = _runs.run_image(n, device, x)
        costs[n] = cost = _runs.image_cost(n, device)
        rows.append({_("model"): shown_model(n), _("answer"): f"{_(r.classes[int(r.probs.argmax())])} "
                                                              f"({r.probs.max():.1%})",
                     _("held-out accuracy"): f"{meta['metrics']['test_acc']:.1%}",
                     _("parameters"): f"{cost['parameters']:,}",
                     _("attention pairs per layer"): " · ".join(f"{p:,}" for p in cost["pairs"]),
                     _("ms per image"): f"{cost['ms']:.2f}",
                     _("time ÷ ViT"): f"{cost['ms'] / costs[names[0]]['ms']:.2f}×"})
    st.table(rows)
    st.caption(_("Attention pairs: query-key scores one forward pass computes in each layer, summed over heads (a "
                 "ViT: (N + 1)² per head; Swin: only pairs inside a window, fewer tokens after each merging; "
                 "DaViT's channel blocks: C_g² per group of channels). Time: the median of 5 passes on this "
                 "machine, measured once per model; `python -m bench --only images` measures them together."))
    answers = {n: answer_rollout(r) for n, r in runs.items()}
    top = max(float(a.max()) for a in answers.values())
    cols = st.columns(len(names))
    for col, n in zip(cols, names):
        r = runs[n]
        _export.chart(vimg.plot_overlay(shown, answers[n], r.grid, r.patch_size, name="rollout", look=look,
                                        zmax=top, height=330, title=shown_model(n)),
                      key=f"cmp_{n}", where=col, name=(n, "rollout", "answer"), caption=caption_line(n, picture))
    st.caption(_("What reaches each answer, on one colour scale: a ViT's rollout from <cls> after its last layer "
                 "(<cls>'s own share left out), a hierarchical model's rollout of the average it classifies."))
