"""The chat commands: about warriors, the club's records, moderators and the club,
`!odds`, and where work runs (the lanes, the records lane, the units of work)."""
