"""Integration tests build warriors with the An Cath transcript helper in tests/unit."""

import sys
from pathlib import Path

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:
    sys.path.insert(0, UNIT)
