"""Tests lint with the results cache off (COMPILELINT_NO_CACHE), so that a test that breaks
the engine on purpose is never answered from a cache; tests/test_cache.py turns it on."""

from __future__ import annotations

import os

os.environ.setdefault("COMPILELINT_NO_CACHE", "1")
