"""The chat commands: the registry and its preconditions, what messages carry, who
is who, and the commands about warriors, moderators and the club."""
