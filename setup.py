"""Builds the Python package with the project's CMake for `pip install .` (see pyproject.toml).

The extension upsample._C and libupsample.so are built by CMake (targets upsample_python_wheel,
the module whose RPATH is its own directory, $ORIGIN, and upsample_lib); the module, the
generated _version.py and libupsample.so.0 (the library's SONAME) are then copied into the
package. Environment:
  UPSAMPLE_CMAKE_BUILD_DIR  an existing build directory of this source tree (the README's
                            build/), configured for this interpreter: the targets are built
                            there, which after the README's build only links the module;
                            otherwise a fresh build directory in setuptools' temporary
                            directory (tests, benchmarks and the CLI off) builds everything;
  UPSAMPLE_CMAKE_ARGS       extra arguments for the configure step of a fresh build;
  UPSAMPLE_BUILD_JOBS       parallel jobs (default: the CPU count).
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


def cache_value(build_dir, name):
    """The value of `name` in build_dir's CMakeCache.txt, or None."""
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        match = re.search(r"^%s:\w+=(.*)$" % re.escape(name), f.read(), re.M)
    return match.group(1) if match else None


def existing_build_dir(build_dir):
    """build_dir, checked to be a CMake build of this source tree for this interpreter."""
    build_dir = os.path.abspath(build_dir)
    if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
        raise RuntimeError("UPSAMPLE_CMAKE_BUILD_DIR=%s is not a configured CMake build "
                           "directory (no CMakeCache.txt)" % build_dir)
    source = cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    if source is None or os.path.realpath(source) != os.path.realpath(ROOT):
        raise RuntimeError("UPSAMPLE_CMAKE_BUILD_DIR=%s builds the sources in %s, not %s"
                           % (build_dir, source, ROOT))
    python = cache_value(build_dir, "UPSAMPLE_PYTHON")
    if python is None:
        raise RuntimeError("UPSAMPLE_CMAKE_BUILD_DIR=%s does not build the Python package "
                           "(configure it with -DUPSAMPLE_BUILD_PYTHON=ON)" % build_dir)
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        raise RuntimeError("UPSAMPLE_CMAKE_BUILD_DIR=%s is configured for the interpreter %s "
                           "(UPSAMPLE_PYTHON), not %s" % (build_dir, python, sys.executable))
    return build_dir


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if os.environ.get("UPSAMPLE_CMAKE_BUILD_DIR"):
            build_dir = existing_build_dir(os.environ["UPSAMPLE_CMAKE_BUILD_DIR"])
        else:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            os.makedirs(build_dir, exist_ok=True)
            configure = [
                "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                "-DUPSAMPLE_BUILD_TESTS=OFF", "-DUPSAMPLE_BUILD_BENCH=OFF",
                "-DUPSAMPLE_BUILD_PYTHON=ON", "-DUPSAMPLE_PYTHON=" + sys.executable,
            ] + shlex.split(os.environ.get("UPSAMPLE_CMAKE_ARGS", ""))
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            subprocess.run(configure, check=True)
        jobs = os.environ.get("UPSAMPLE_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build_dir, "-j", jobs, "--target",
                        "upsample_python_wheel", "upsample_lib"], check=True)
        module = self.get_ext_fullpath(ext.name)
        package_dir = os.path.dirname(module)
        os.makedirs(package_dir, exist_ok=True)
        (ext_file,) = glob.glob(os.path.join(build_dir, "python", "wheel", "_C*.so"))
        shutil.copyfile(ext_file, module)
        shutil.copyfile(os.path.join(build_dir, "python", "upsample", "_version.py"),
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
