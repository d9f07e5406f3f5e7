"""The one convention for naming layers and heads: counted from 0, as evaluate's coref_head."""
import subprocess
import sys
from pathlib import Path

from labels import PATTERN, file_label, head_label, head_only, layer_label

ROOT = Path(__file__).resolve().parents[2]


def test_coref_head_three_one_reads_L3_H1():
    assert head_label(3, 1) == "L3 H1"
    assert layer_label(3) == "L3" and head_only(1) == "H1" and file_label(3, 1) == "L3H1"


def test_numpy_integers_print_like_ints():
    import numpy as np
    assert head_label(np.int64(0), np.int32(2)) == "L0 H2"


def test_pattern_reads_back_what_head_label_writes():
    assert PATTERN.findall(f"Head {head_label(12, 7)} points") == [("12", "7")]


def test_labels_import_nothing_heavy():
    code = "import sys, labels; print(' '.join(sorted(k.split('.')[0] for k in sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split())
    assert not {"torch", "streamlit", "numpy", "plotly", "model", "viz"} & loaded
