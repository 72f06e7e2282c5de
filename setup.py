"""Builds libgree.so and the Go command-line tools into the iree_go package.

`pip install .` needs only Go, a C compiler and PyPI. The Go build cache makes
a repeat install fast (-trimpath keeps cache keys independent of the
directory pip builds in).
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))

# The Go commands installed with the package, under go/cmd/.
TOOLS = ["iree-compile", "iree-run-module", "iree-check-module", "iree-benchmark-module", "iree-dump-module", "iree-run-mlir", "iree-import-onnx", "iree-cpuinfo", "iree-benchmark-executable",
         "iree-create-parameters", "iree-dump-parameters", "iree-convert-parameters"]


def find_go():
    go = shutil.which("go") or "/usr/local/go/bin/go"
    if not os.path.exists(go):
        raise SystemExit(
            "gree needs the Go toolchain (go 1.26 or newer) to build; "
            "install it from https://go.dev/dl and put `go` on PATH"
        )
    return go


def go_build(go, out, pkg, *extra):
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = [go, "build", "-trimpath", *extra, "-o", out, pkg]
    print(" ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=HERE, env=env)


class BuildGo(build_py):
    """build_py that also builds the Go library and tools into the package."""

    def run(self):
        super().run()
        go = find_go()
        pkg_dir = os.path.join(self.build_lib, "iree_go")
        lib_dir = os.path.join(pkg_dir, "_lib")
        bin_dir = os.path.join(pkg_dir, "_bin")
        os.makedirs(lib_dir, exist_ok=True)
        os.makedirs(bin_dir, exist_ok=True)
        go_build(go, os.path.join(lib_dir, "libgree.so"), "./capi", "-buildmode=c-shared")
        # cgo writes its own header beside the library; the public one is ours.
        generated = os.path.join(lib_dir, "libgree.h")
        if os.path.exists(generated):
            os.remove(generated)
        shutil.copy(os.path.join(HERE, "include", "gree.h"), os.path.join(lib_dir, "gree.h"))
        embed_dir = os.path.join(lib_dir, "iree", "compiler")
        os.makedirs(embed_dir, exist_ok=True)
        shutil.copy(os.path.join(HERE, "include", "iree", "compiler", "embedding_api.h"), embed_dir)
        for tool in TOOLS:
            go_build(go, os.path.join(bin_dir, tool), "./go/cmd/" + tool)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: tag it for the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildGo}, distclass=BinaryDistribution)
