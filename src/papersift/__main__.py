"""`python -m papersift` runs the CLI (used where a subprocess must use this interpreter)."""

from papersift.cli import main

main()
