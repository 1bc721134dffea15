"""Command-line sub-commands: each module defines ``register(subparsers)`` and sets ``handler`` on its parsers."""


class CommandError(Exception):
    """A user-facing failure: printed as one clear line, exit status 2.

    Defined here, below :mod:`companion.cli`, so the command modules never import the module that
    loads them; ``companion.cli.CommandError`` is the same class.
    """
