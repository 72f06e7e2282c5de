"""IREE's ``iree.compiler.tools`` names."""

from .core import *  # noqa: F401,F403
from .binaries import CompilerToolError  # noqa: F401
