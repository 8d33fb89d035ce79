"""compilelint's rules, one per file; shipped as ``compilelint.rules`` and found by discovery.

Never ``import rules`` from the checkout: reach rules through ``compilelint.registry``.
"""
