"""Command-line sub-commands: each module defines ``register(subparsers)`` and sets ``handler`` on its parsers."""
