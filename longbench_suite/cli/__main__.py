"""``python -m longbench_suite.cli``."""

import sys

from . import main

sys.exit(main())
