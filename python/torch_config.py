"""Describes the interpreter's torch installation for python/CMakeLists.txt.

Usage: python3 torch_config.py INSTALL_PREFIX

Prints KEY=VALUE lines: torch's version, include directories (comma-separated), library
directory, C++ ABI and pybind11 settings (those torch's own extension builder uses, so that our
module shares torch's pybind11 type registry), Python's include directory, the extension-module
suffix, and where `cmake --install` should put the package relative to INSTALL_PREFIX.
"""

import os
import sys
import sysconfig
import warnings

warnings.simplefilter("ignore")  # torch.utils.cpp_extension warns when CUDA is absent
import torch  # noqa: E402
from torch.utils import cpp_extension  # noqa: E402


def install_dir(prefix):
    """The package directory relative to `prefix`: Debian's dist-packages layout when the
    interpreter has it (lib/python3/dist-packages under /usr, lib/python3.X/dist-packages
    elsewhere, as Debian's site.py searches /usr/local), else the interpreter's posix_prefix
    scheme."""
    version = "%d.%d" % sys.version_info[:2]
    if "deb_system" in sysconfig.get_scheme_names():
        if os.path.normpath(prefix) == "/usr":
            return "lib/python3/dist-packages"
        return "lib/python%s/dist-packages" % version
    path = sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix})
    return os.path.relpath(path, prefix)


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else sys.prefix
    values = {
        "VERSION": torch.__version__,
        "INCLUDE_DIRS": ",".join(cpp_extension.include_paths()),
        "LIB_DIR": cpp_extension.library_paths()[0],
        "CXX11_ABI": str(int(torch._C._GLIBCXX_USE_CXX11_ABI)),
        "PYBIND11_COMPILER_TYPE": torch._C._PYBIND11_COMPILER_TYPE,
        "PYBIND11_STDLIB": torch._C._PYBIND11_STDLIB,
        "PYBIND11_BUILD_ABI": torch._C._PYBIND11_BUILD_ABI,
        "PYTHON_INCLUDE_DIR": sysconfig.get_paths()["include"],
        "EXT_SUFFIX": sysconfig.get_config_var("EXT_SUFFIX"),
        "INSTALL_DIR": install_dir(prefix),
    }
    for key, value in values.items():
        print("%s=%s" % (key, value))


if __name__ == "__main__":
    main()
