"""Abstractions and what is solved in them (issue 19's folder; `solver.abstraction` until the
restructure moves it here)."""
