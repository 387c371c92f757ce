"""Builds the Python package with the project's CMake for `pip install .` (see pyproject.toml).

The extension upsample._C and libupsample.so are built by CMake (targets upsample_python and
upsample_lib, tests, benchmarks and the CLI off) in a temporary build directory, with the
module's RPATH set to its own directory ($ORIGIN, UPSAMPLE_PYTHON_WHEEL=ON); the module, the
generated _version.py and libupsample.so.0 (the library's SONAME) are then copied into the
package. Environment: UPSAMPLE_CMAKE_ARGS (extra arguments for the configure step),
UPSAMPLE_BUILD_JOBS (default: the CPU count).
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        match = re.search(r"project\(upsample VERSION ([0-9.]+)", f.read())
    if not match:
        raise RuntimeError("no project(upsample VERSION ...) in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build_dir, exist_ok=True)
        configure = [
            "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
            "-DUPSAMPLE_BUILD_TESTS=OFF", "-DUPSAMPLE_BUILD_BENCH=OFF",
            "-DUPSAMPLE_BUILD_PYTHON=ON", "-DUPSAMPLE_PYTHON_WHEEL=ON",
            "-DUPSAMPLE_PYTHON=" + sys.executable,
        ] + shlex.split(os.environ.get("UPSAMPLE_CMAKE_ARGS", ""))
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("UPSAMPLE_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build_dir, "-j", jobs, "--target", "upsample_python",
                        "upsample_lib"], check=True)
        module = self.get_ext_fullpath(ext.name)
        package_dir = os.path.dirname(module)
        os.makedirs(package_dir, exist_ok=True)
        built = os.path.join(build_dir, "python", "upsample")
        (ext_file,) = glob.glob(os.path.join(built, "_C*.so"))
        shutil.copyfile(ext_file, module)
        shutil.copyfile(os.path.join(built, "_version.py"),
                        os.path.join(package_dir, "_version.py"))
        # The library under its SONAME, the name the module's dynamic section asks for.
        shutil.copyfile(os.path.join(build_dir, "libupsample.so.0"),
                        os.path.join(package_dir, "libupsample.so.0"))


# setuptools' own build directories go under build/setuptools, next to (not into) a CMake build
# directory build/ of the README; the egg-info directory there too, not in the source tree.
os.makedirs(os.path.join(ROOT, "build", "setuptools"), exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("upsample._C", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build/setuptools"},
             "egg_info": {"egg_base": "build/setuptools"}},
)
