"""The command kit every room of commands builds on: how a command declares itself and
its preconditions, the context a handler gets (the line, the reply sink and the frozen
services it may use) and the registry the referee routes by."""
