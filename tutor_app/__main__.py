import sys

from tutor_app.cli import main

sys.exit(main())
