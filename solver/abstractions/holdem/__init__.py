"""Hold'em abstractions and bots (issue 20's additions: subgames compiled at play time and the
re-solving bot)."""
