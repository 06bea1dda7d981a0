import sys

from .book.cli import main

sys.exit(main())
