"""Subcommands. Each module exposes ``register(subparsers)`` and an ``ORDER`` for --help."""
