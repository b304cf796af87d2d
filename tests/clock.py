"""A clock the test moves, for code that takes one (``clock=``)."""


class ManualClock:

    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds
