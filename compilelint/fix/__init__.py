"""Autofixes: ``--fix``, ``--unsafe-fixes`` and ``--diff``.

The entry points are in ``compilelint.fix.api`` (``apply_fixes``, ``fix_paths``); this
package's ``__init__`` imports nothing, because rules import ``compilelint.fix.plans`` and
``compilelint.fix.eligibility`` on every lint, and linting must not pay for libcst.

    files -> lint (ast) -> findings with Fix + fix_data -> [files with fixes only]
          -> compile() gate -> libcst parse, byte round trip -> build edits (rules)
          -> apply non-overlapping edits -> compile() + re-lint -> ... (<= 10 passes)
          -> atomic write (or a diff)
"""
