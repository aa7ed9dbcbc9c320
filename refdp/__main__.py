"""``python3 -m refdp``: the command line."""

from refdp.cli import main

raise SystemExit(main())
