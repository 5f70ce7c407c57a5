"""An Cath 1.03 (Glenn E. Overby II), refereed as ``docs/rulings.md`` R1-R8 read it.

Modules: ``tables`` (the rules' data), ``sheet`` (warriors, BP, purchases), ``state``,
``commands`` and ``events`` (the values), ``chances`` (who may do what, at what
chance), ``damage`` (R6), ``rewards`` (R7, and the ledger effects of its events),
``engine`` (``start``/``apply``, with ``turns``, ``actions``, ``rolls``, ``answers`` and
``steps``) and ``legal`` (``legal_actions``). ``rules.replay`` replays a fight.
"""

from rules.ancath.engine import apply, start, undo_point
from rules.ancath.legal import Option, legal_actions

__all__ = ["Option", "apply", "legal_actions", "start", "undo_point"]
