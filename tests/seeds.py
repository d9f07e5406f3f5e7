"""Where the three Chinese course texts are, for the tests that check the app's words and numbers against them:
$ATTENTION_LAB_SEEDS, else shared/seeds beside the checkout (the project's layout), else the workplace's
/work/shared/seeds (a clean checkout made elsewhere, as CI's). Tests skip, naming the path, only where none exists."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = [os.environ.get("ATTENTION_LAB_SEEDS"), ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds")]
SEEDS = next((Path(c) for c in _CANDIDATES if c and Path(c).is_dir()), ROOT.parent / "shared" / "seeds")
