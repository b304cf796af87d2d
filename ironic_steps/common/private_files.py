"""Files that hold secrets: their owner's alone (0600, directories 0700).

BMC passwords are stored as given in the SQLite database, in an ephemeral
run's dump and inventory; an agent token in the database too.  Each is
created here, private by how it is made rather than by whatever umask
the process happens to have (the all-in-one command also sets 077, for
what this module does not create: its log).  A file that exists already
is made private when it is written again; a directory that exists keeps
its mode (an operator may have chosen it), while what this module puts
in it is private all the same.

This module only creates files and directories; what goes in them, and
where, is its callers' business.
"""

import os
import stat

FILE_MODE = 0o600
DIRECTORY_MODE = 0o700


def make_directory(path: str) -> None:
    """``path`` and its parents, the last one new made 0700."""
    os.makedirs(path, mode=DIRECTORY_MODE, exist_ok=True)


def open_for_writing(path: str, mode: str = 'w', **kwargs):
    """``open(path, mode)`` for writing, the file created (or truncated)
    0600; ``kwargs`` go to :func:`open` (``encoding``)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC,
                 FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)   # one that existed keeps its mode else
        return os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def create(path: str) -> None:
    """Make sure the file at ``path`` exists and is private (0600), before
    something else (SQLite) fills it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & ~FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
