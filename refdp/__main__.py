"""``python3 -m refdp``: the command line."""

import sys

try:
    from refdp.cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: the same one line as later
    print("refdp: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
