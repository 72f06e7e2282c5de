"""Points gree's llvm-cpu target at the LLVM inside llvmlite.

gree's Python package depends on llvmlite, whose ``libllvmlite.so`` carries
a whole LLVM. gree uses the system's libLLVM 19 when it has one; otherwise
it loads the file named by ``GREE_LIBLLVMLITE``, which ``configure`` sets
(unless the user did) before libgree.so is loaded or a tool is run.
"""

import importlib.util
import os

_NAMES = ("libllvmlite.so", "libllvmlite.dylib")


def libllvmlite_path():
    """The path of the installed llvmlite's libllvmlite, or None.

    llvmlite is located, not imported (importing it loads the library)."""
    try:
        spec = importlib.util.find_spec("llvmlite")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for d in spec.submodule_search_locations:
        for name in _NAMES:
            p = os.path.join(d, "binding", name)
            if os.path.exists(p):
                return p
    return None


def configure():
    """Sets GREE_LIBLLVMLITE from the installed llvmlite if it is unset."""
    if os.environ.get("GREE_LIBLLVMLITE"):
        return
    p = libllvmlite_path()
    if p:
        os.environ["GREE_LIBLLVMLITE"] = p
