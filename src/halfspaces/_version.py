"""The version of halfspaces.

It has a module of its own so that the package root, the model files and the command line
can all read it without importing one another.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
