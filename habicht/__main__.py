"""`python -m habicht` is the same as the `habicht` command."""

import sys

from habicht.cli import main

sys.exit(main())
