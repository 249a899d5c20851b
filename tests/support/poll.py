"""Waiting in Python tests: poll a condition until it holds or a deadline passes, never a
fixed sleep (too short on a busy machine, too long everywhere else). The C++ twin is
support/poll.hpp."""
import time


def eventually(condition, seconds, every=0.1, ignore=(OSError,)):
    """Calls `condition` every `every` seconds until it returns a true value or `seconds`
    have passed; returns its last answer. Exceptions in `ignore` (a server not listening
    yet) count as "not yet"."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = condition()
        except ignore:
            answer = False
        if answer or time.monotonic() >= deadline:
            return answer
        time.sleep(every)
