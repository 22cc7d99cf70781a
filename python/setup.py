"""Builds the module, with libpianola inside it when there is one to put there.

A wheel carries libpianola.so.0 in the package folder, where the module looks first, and is
tagged for the platform: Tools/make-packages.sh hands it the library it packaged
(PIANOLA_WHEEL_LIBRARY) and repairs the wheel with auditwheel. Built inside the project's
checkout with the Swift toolchain on the PATH and no library given, the library is compiled
here (Tools/install-libpianola.sh). Otherwise (an sdist, or no Swift) the module is the plain
ctypes layer over a libpianola installed on the system.
"""
import os
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:   # setuptools before 70
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)


def bundled():
    """Whether the wheel will carry the library: one was given, or it can be compiled here."""
    return bool(os.environ.get("PIANOLA_WHEEL_LIBRARY")) or (
        os.path.exists(os.path.join(PROJECT, "Tools", "install-libpianola.sh")) and shutil.which("swift") is not None)


def library():
    """The libpianola to bundle: the one given, or one compiled now."""
    given = os.environ.get("PIANOLA_WHEEL_LIBRARY")
    if given:
        return given
    prefix = tempfile.mkdtemp()
    subprocess.run([os.path.join(PROJECT, "Tools", "install-libpianola.sh"), prefix], check=True)
    return os.path.join(prefix, "lib", "libpianola.so.0")


FONT = os.path.join(PROJECT, "soundfonts", "pianola-gm.sf2")


class BuildWithLibrary(build_py):
    """Copies the library into the built package as pianola/libpianola.so.0, and the project's
    own SoundFont (what render plays when given none) when built in the checkout."""

    def run(self):
        super().run()
        if bundled():
            shutil.copy(library(), os.path.join(self.build_lib, "pianola", "libpianola.so.0"))
        if os.path.exists(FONT):
            shutil.copy(FONT, os.path.join(self.build_lib, "pianola", "pianola-gm.sf2"))


class PlatformDistribution(Distribution):
    """Not pure when it carries the library, so the wheel is tagged for the platform."""

    def has_ext_modules(self):
        return bundled()


class PlatformWheel(bdist_wheel):
    """py3-none-PLATFORM: the module is plain Python for any Python 3; only the library is native."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return ("py3", "none", platform)


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel}, distclass=PlatformDistribution)
