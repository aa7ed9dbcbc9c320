"""What a subcommand is: a name, its help, its arguments and what it runs."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["Command"]


@dataclass(frozen=True)
class Command:
    """One subcommand of ``python3 -m refdp``.

    ``add_arguments`` adds its options to its parser; ``run`` does the work
    on the parsed arguments and returns the exit status.  ``help`` is its
    line in the top-level help, ``description`` (default: none) the
    paragraph at the top of its own ``--help``.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: Optional[str] = None
