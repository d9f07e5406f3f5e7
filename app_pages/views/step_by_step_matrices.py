"""How the step-by-step page shows its matrices: one matrix as a labelled heatmap with its slide exports, a table of
the same result computed other ways, and every array as exact JSON or one as CSV."""
import json
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _url
from app_pages._numbers import plain
from i18n import N_, _
from labels import head_only
from viz.steps import plot_matrix

BIND, KEEP = _url.BIND, _url.KEEP     # every input is in the URL and survives a visit to another page

ARRAY_WORDS = {N_("scores"), N_("scaled"), N_("weights"), N_("mask"), N_("heads"), N_("concat"), N_("out"),
               N_("exp")}                # the arrays named by a word, not a symbol (translated where shown)


def to_json(arrays: dict) -> str:
    """Exact float64 values as JSON (repr round-trips); -inf, which JSON lacks, as the string "-inf"."""
    def clean(v):
        if isinstance(v, np.ndarray):
            return clean(v.tolist())
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, float) and not np.isfinite(v):
            return "-inf" if v < 0 else "inf"
        return v.item() if isinstance(v, np.generic) else v
    return json.dumps({k: clean(v) for k, v in arrays.items()}, ensure_ascii=False)


def to_csv(matrix: np.ndarray, rows=None) -> str:
    """(n,), (rows, cols) or (H, rows, cols) as CSV with every digit (pandas writes float repr)."""
    def frame(m):
        return pd.DataFrame(m, index=rows if rows is not None and len(rows) == m.shape[0] else None)
    m = np.asarray(matrix)
    if m.ndim == 3:
        return pd.concat({head_only(h): frame(m[h]) for h in range(m.shape[0])}).to_csv()
    return frame(np.atleast_2d(m)).to_csv()


def array_name(name: str) -> str:
    """An array's name as shown: symbols (X, W_Q, Z) as they are, words translated. The file keeps the key."""
    return _(name) if name in ARRAY_WORDS else name


def downloads(arrays: dict, prefix: str, tokens=None, key: str = ""):
    """A JSON of every array and a CSV of one picked array, all exact."""
    left, mid, right = st.columns([1, 1, 1])
    text = " ".join(map(str, tokens)) if tokens is not None else None        # the file names end in its hash
    _export.download(_("All steps (JSON)"), lambda: to_json(arrays), prefix, "json", "application/json",
                     key=f"{key}_json", where=left, text=text)                 # files are made on click
    pick = mid.selectbox(_("Matrix as CSV"), list(arrays), key=f"{key}_csv_pick", label_visibility="collapsed",
                         format_func=array_name, bind=BIND, persist_state=KEEP)
    _export.download(_("{matrix} (CSV)").format(matrix=array_name(pick)),
                     lambda: to_csv(np.asarray(arrays[pick]), tokens), (prefix, pick), "csv", "text/csv",
                     key=f"{key}_csv", where=right, text=text)


class About(NamedTuple):
    """What a section's figures show, for their slide exports: the file name's first parts and the caption."""
    stem: tuple
    caption: str


def show(matrix, title, about: About, what: str, main: bool = False, share: float = 1.0, **kw):
    """One matrix (plot_matrix) with its slide exports, named about.stem + what; main: the tab's main figure (first
    while presenting); share: the part of the page's width it is drawn in."""
    _export.chart(plot_matrix(matrix, title=title, **kw), width="stretch", name=(*about.stem, what),
                  caption=about.caption, main=main, share=share)


def agreement_table(diffs: dict):
    st.dataframe(pd.DataFrame({_("computed another way"): [_(k) for k in diffs],
                               _("max |difference| to the row form"): [plain(v) for v in diffs.values()],
                               _("exact"): [repr(float(v)) for v in diffs.values()]}),
                 hide_index=True)
