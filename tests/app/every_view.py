"""The runs that together draw every page of the app: each page's default view, plus the lazy tabs and sections
the default leaves undrawn, and the answers the predictions hide (predict off). (page file, session-state values to set
before the run), the values in English."""
VIEWS = [("home.py", {}), ("explorer.py", {}), ("explorer.py", {"explorer_tab": "Attends to & statistics"}),
         *[("explorer.py", {"explorer_tab": t}) for t in ("Summaries", "Ablation", "Why this weight", "Value norms",
                                                          "Queries & keys")],
         ("tokenization.py", {}), ("coreference.py", {}), ("similarity.py", {}),
         ("coreference.py", {"predict": False}), ("coreference.py", {"coref_tab": "Head ablation"}),
         ("coreference.py", {"coref_tab": "Ordinary sentences"}), ("coreference.py", {"coref_tab": "Patching"}),
         ("coreference.py", {"coref_model": "minilm"}),
         ("generation.py", {}), ("generation.py", {"gen_tab": "Sentence probability"}),
         ("generation.py", {"gen_tab": "Learning from the prompt"}), ("generation.py", {"gen_tab": "Logit lens"}),
         ("translation.py", {}),
         ("masks.py", {}), ("masks.py", {"predict": False}), ("images.py", {}),
         ("images.py", {"img_model": "swin_scenes"}), ("images.py", {"img_model": "swin_digits"}),
         ("images.py", {"img_model": "davit_digits"}), ("images.py", {"img_model": "imagegpt_digits"}),
         ("architecture.py", {}),
         *[("step_by_step.py", {"steps_tab": t}) for t in ("One head", "Multi-head", "The layer", "Causal mask")],
         *[("step_by_step.py", {"steps_tab": "Why √d_k", "predict": p}) for p in (True, False)],
         *[("positional.py", {"pos_tab": t}) for t in ("Word order", "Learned vs relative")],
         ("why_attention.py", {}), ("why_attention.py", {"why_tab": "Parameters vs N"}), ("lecture.py", {}),
         *[("finetune.py", {"ft_tab": t})
           for t in ("Classification", "Tagging", "Question answering", "Next sentence")],
         ("training_lab.py", {}), ("classroom.py", {})]
TAB_KEYS = {"why_tab", "steps_tab", "pos_tab", "coref_tab", "masks_tab", "gen_tab", "tr_tab", "explorer_tab", "ft_tab"}


def view_id(page: str, state: dict) -> str:
    return f"{page}-{'-'.join(map(str, state.values())) or 'default'}"
