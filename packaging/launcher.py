"""Entry point of the packaged app: the same CLI, so `tutor-app doctor` works there too."""
import sys

from tutor_app.cli import main

if __name__ == "__main__":
    sys.exit(main())
