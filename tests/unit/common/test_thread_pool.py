"""The pool that stops once its work is done: what it waits for, and not."""

import sys
import threading

import testtools

from ironic_steps.common import thread_pool

TIMEOUT = 10


class ThreadPoolTest(testtools.TestCase):

    def _held_work(self, pool, count):
        """``count`` pieces of work that end when the returned event is set;
        their futures."""
        release = threading.Event()
        self.addCleanup(release.set)
        return release, [pool.submit(release.wait, TIMEOUT)
                         for _ in range(count)]

    def test_shutdown_waits_for_running_and_queued_work(self):
        pool = thread_pool.ThreadPool(1)
        # One piece runs, the other waits in futurist's queue behind it.
        release, futures = self._held_work(pool, 2)
        stopper = threading.Thread(target=pool.shutdown)
        stopper.start()
        stopper.join(0.2)
        self.assertTrue(stopper.is_alive(), 'shutdown returned with work '
                                            'under way')
        release.set()
        stopper.join(TIMEOUT)
        self.assertFalse(stopper.is_alive())
        self.assertEqual([True, True], [future.result(0) for future in futures])

    def test_work_submitted_after_shutdown_is_refused(self):
        pool = thread_pool.ThreadPool(2)
        pool.shutdown()
        self.assertRaises(RuntimeError, pool.submit, print)

    def test_shutdown_without_waiting_returns_while_work_runs(self):
        pool = thread_pool.ThreadPool(1)
        release, (future,) = self._held_work(pool, 1)
        pool.shutdown(wait=False)
        self.assertFalse(future.done())
        self.assertRaises(RuntimeError, pool.submit, print)
        release.set()
        self.assertTrue(future.result(TIMEOUT))

    def test_map_gives_results_in_the_order_of_the_items(self):
        with thread_pool.ThreadPool(3) as pool:
            self.assertEqual([0, 1, 4, 9, 16], pool.map(
                lambda number: number * number, range(5)))
        self.assertRaises(RuntimeError, pool.submit, print)

    def test_a_failed_piece_of_work_does_not_stop_the_shutdown(self):
        pool = thread_pool.ThreadPool(1)
        future = pool.submit(lambda: 1 / 0)
        pool.shutdown()
        self.assertIsInstance(future.exception(0), ZeroDivisionError)

    def test_shutdown_while_many_pieces_of_work_end_waits_for_them_all(self):
        # Workers forget their work as it ends while shutdown() reads what
        # is left: enough of it, and threads switched often enough, that
        # the two overlap.
        self.addCleanup(sys.setswitchinterval, sys.getswitchinterval())
        sys.setswitchinterval(1e-6)
        pool = thread_pool.ThreadPool(4)
        futures = [pool.submit(int) for _ in range(20000)]
        pool.shutdown()
        self.assertTrue(all(future.done() for future in futures))
