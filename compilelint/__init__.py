"""compilelint: find, explain and fix what makes torch.compile graph-break or recompile."""

from __future__ import annotations

__version__ = "0.1.0"

# `@compilelint.target` marks verifier targets; it imports only typing, never torch.
from compilelint.verify.marker import target as target  # noqa: E402
