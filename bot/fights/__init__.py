"""The fight flow: challenges, the play service that applies, rolls and records a
decision, turn time limits and moderators' rulings."""
