"""ancath-bot: an IRC referee for An Cath percentile-dice duels."""
