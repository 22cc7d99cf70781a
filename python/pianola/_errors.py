"""Pianola's errors as Python raises them, and the checks that raise them before a C call."""
import ctypes
import errno
import os
from typing import Union

from . import _library as _c

Data = Union[str, os.PathLike, bytes, bytearray, memoryview]
"""A file: a path (str or PathLike), or its bytes in memory."""


class PianolaError(Exception):
    """A call libpianola refused: `status` is its code, the message its one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ArgumentError(PianolaError, ValueError):
    """A value out of its range, or a name the song does not have."""


class HandleError(PianolaError):
    """A song, sound or soundtrack that was closed."""


class StateError(PianolaError):
    """The call does not fit the moment: a song still loading or failed, none playing, the output running."""


class FileError(PianolaError, OSError):
    """A file or bytes that cannot be read or are not what they should be, or an output that cannot be written."""


class PianolaFileNotFoundError(FileError, FileNotFoundError):
    """A file that does not exist; `errno` and `filename` as the OS said."""


class PianolaIsADirectoryError(FileError, IsADirectoryError):
    """A folder given as a file; `errno` and `filename` as the OS said."""


class PianolaPermissionError(FileError, PermissionError):
    """A file that may not be read; `errno` and `filename` as the OS said."""


_os_errors = {errno.ENOENT: PianolaFileNotFoundError, errno.EISDIR: PianolaIsADirectoryError,
              errno.EACCES: PianolaPermissionError, errno.EPERM: PianolaPermissionError}


def _readable(path: Union[str, os.PathLike]) -> None:
    """Raises what the OS says of opening `path` to read (a missing file, a folder, no
    permission) as the matching `FileError`, with its `errno`, `strerror` and `filename`, read
    as Python's own OSErrors read ("[Errno 2] No such file or directory: 'x.mid'")."""
    try:
        with open(path, "rb"):
            pass
    except OSError as problem:
        kind = _os_errors.get(problem.errno, FileError)
        error = kind(_c.ERROR_FILE, f"{os.fsdecode(path)}: {problem.strerror}")
        error.errno, error.strerror, error.filename = problem.errno, problem.strerror, os.fsdecode(path)
        raise error from None


class DeviceError(PianolaError):
    """An audio device that cannot be opened or fails."""


class BusyError(PianolaError):
    """A queue to the audio side is full: pull audio, then try again."""


_errors = {_c.ERROR_ARGUMENT: ArgumentError, _c.ERROR_HANDLE: HandleError, _c.ERROR_STATE: StateError,
           _c.ERROR_FILE: FileError, _c.ERROR_DEVICE: DeviceError, _c.ERROR_BUSY: BusyError}


def _check(status: int) -> None:
    """Raises the C call's error, with its one-line message, unless it succeeded."""
    if status != _c.OK:
        message = _c.lib.pianola_last_error().decode("utf-8", "replace")
        raise _errors.get(status, PianolaError)(status, message)


def _source(data: Data, keep: list, name: str) -> _c.Source:
    """A pianola_source for a path or bytes; `keep` holds what must live until the call returns."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        block = bytes(data)
        if not block:
            raise FileError(_c.ERROR_FILE, f"{name}: the bytes given are empty (0 bytes), so there is nothing to read")
        keep.append(block)
        return _c.Source(None, ctypes.cast(ctypes.c_char_p(block), ctypes.c_void_p), len(block), name.encode())
    _readable(data)
    path = os.fsencode(data)
    keep.append(path)
    return _c.Source(path, None, 0, None)


def integer(name: str, value, low: int, high: int) -> int:
    """`value` if it is an int (not a bool) from `low` to `high`; else an ArgumentError (a
    ValueError) worded as Python words it."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"{name} must be an int from {low} to {high}, not {value!r}")
    return value


def number(name: str, value, low: float, high: float) -> float:
    """`value` as a float if it is a real number from `low` to `high`; else an ArgumentError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def driver(name) -> int:
    """The pianola_driver for "alsa", "pipewire", "jack" or None (the default choice)."""
    if name not in _c.DRIVERS:
        names = [repr(known) for known in _c.DRIVERS if known is not None]
        raise ArgumentError(_c.ERROR_ARGUMENT, f"driver {name!r}: use {', '.join(names)} or None")
    return _c.DRIVERS[name]


def synth(name) -> int:
    """The pianola_synth for "pianola", "fluidsynth" or None (the default, Pianola's own)."""
    if name not in _c.SYNTHS:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"synth must be 'pianola', 'fluidsynth' or None, not {name!r}")
    return _c.SYNTHS[name]
