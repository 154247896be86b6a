import sys

from mcpspy.cli import main

sys.exit(main())
