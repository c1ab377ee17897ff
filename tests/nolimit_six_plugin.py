"""Registers no-limit at six chips (`tests.nolimit_six`) when imported: name it in
``SOLVER_GAMES`` for a process of its own."""

from tests.nolimit_six import register

register()
