"""`python -m model.tokenize "<text>" [--model NAME] [--masks] --json`: the command of model/tokens.py under the name
other checks call. No __init__.py here on purpose: a folder without one is a namespace package, which Python finds
only when no regular module of that name exists anywhere on sys.path, so this name never hides the standard
library's tokenize (not even where model/ itself is on sys.path), and there is nothing here to import."""
import sys

from model.tokens import main

sys.exit(main())
