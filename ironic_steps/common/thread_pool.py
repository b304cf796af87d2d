"""A futurist thread pool that stops as soon as its work is done.

futurist's idle workers look for a stop once a second, and its
``shutdown(wait=True)`` joins them: up to a second after the last piece of
work, for every pool, every time.  A conductor's stop waited two such
seconds (its workers and the fake agent's senders), and a power state
sync one at each pass.  This pool waits for the work it was given and
lets the idle threads end on their own.
"""

import threading

import futurist
from futurist import waiters


class ThreadPool:
    """Submit work as to futurist's ThreadPoolExecutor (which runs it).

    ``shutdown(wait=True)`` returns once every piece of work submitted has
    ended; submissions after it raise RuntimeError, as futurist's do.
    """

    def __init__(self, max_workers):
        self._executor = futurist.ThreadPoolExecutor(max_workers=max_workers)
        self._lock = threading.Lock()
        self._unfinished = set()
        self._closed = False

    def submit(self, fn, *args, **kwargs):
        with self._lock:
            if self._closed:
                raise RuntimeError('Cannot submit work to a pool that is '
                                   'shut down')
            future = self._executor.submit(fn, *args, **kwargs)
            self._unfinished.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future):
        # Under the lock: shutdown() reads the set while workers end.
        with self._lock:
            self._unfinished.discard(future)

    def map(self, fn, items):
        """``fn`` of each item, in their order, once all have ended."""
        futures = [self.submit(fn, item) for item in items]
        return [future.result() for future in futures]

    def shutdown(self, wait=True):
        while True:
            with self._lock:
                pending = [future for future in self._unfinished
                           if not future.done()]
                # Closed only with nothing queued: futurist's stopping
                # workers leave what is queued where it is.
                if not wait or not pending:
                    self._closed = True
                    self._executor.shutdown(wait=False)
                    return
            waiters.wait_for_all(pending)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.shutdown()
