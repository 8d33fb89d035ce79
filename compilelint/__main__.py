"""``python -m compilelint``: the same as the ``compilelint`` command."""

from __future__ import annotations

from compilelint.cli import main

if __name__ == "__main__":
    main(prog_name="compilelint")
