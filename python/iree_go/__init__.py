"""gree: IREE's compiler and runtime rebuilt in Go, with IREE's Python API.

Use it as IREE is used, changing only the import lines::

    import iree_go.compiler as ireec
    import iree_go.runtime as ireert

Everything calls into ``libgree.so`` through cffi (``iree_go._capi``).
"""

__version__ = "0.1.0"
