"""An Cath 1.03 (Glenn E. Overby II), refereed as ``shared/RULINGS.md`` R1-R8 read it.

Modules: ``tables`` (the rules' data), ``sheet`` (warriors, BP, purchases), ``state``,
``commands`` and ``events`` (the values), ``chances`` (who may do what, at what
chance), ``damage`` (R6), ``rewards`` (R7), ``engine`` (``start``/``apply``/``replay``)
and ``legal`` (``legal_actions``).
"""

from rules.ancath.engine import apply, replay, start, undo_point
from rules.ancath.legal import Option, legal_actions

__all__ = ["Option", "apply", "legal_actions", "replay", "start", "undo_point"]
