"""The conductor's worker threads, with admission at the door.

A flow reserves a worker *before* it changes a node's state, so when the
pool is full the request is refused with NoFreeConductorWorker and nothing
needs undoing; work that was admitted never waits in an unbounded queue.
"""

from concurrent import futures
import threading

from ironic_steps.common import exception


class WorkerPool:

    def __init__(self, size):
        self._executor = futures.ThreadPoolExecutor(
            size, thread_name_prefix='conductor-worker')
        self._free = threading.BoundedSemaphore(size)

    def reserve(self):
        """Claim a worker, or raise NoFreeConductorWorker at once.

        Use as a context manager; the claim is returned unless
        :meth:`Reservation.submit` used it.
        """
        if not self._free.acquire(blocking=False):
            raise exception.NoFreeConductorWorker()
        return Reservation(self)

    def _run(self, fn, args):
        try:
            return fn(*args)
        finally:
            self._free.release()

    def shutdown(self, wait=True):
        self._executor.shutdown(wait=wait)


class Reservation:

    def __init__(self, pool):
        self._pool = pool
        self._used = False

    def submit(self, fn, *args):
        if self._used:
            raise RuntimeError('A worker reservation runs one function')
        self._used = True
        return self._pool._executor.submit(self._pool._run, fn, args)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        if not self._used:
            self._pool._free.release()
