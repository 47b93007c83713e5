"""A generator's items produced by a thread, a few items ahead of the consumer."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

__all__ = ["ahead"]


def _offer(items: queue.Queue, item, stop: threading.Event) -> bool:
    """Put `item` once there is room, unless the consumer has stopped (then False)."""
    while not stop.is_set():
        try:
            items.put(item, timeout=0.5)
            return True
        except queue.Full:
            continue
    return False


def ahead(blocks: Iterator, depth: int = 2) -> Iterator:
    """Items of `blocks`, produced by a thread up to `depth` items ahead of the consumer.

    The svmlight parser releases the GIL, so parsing the next block overlaps training on
    this one. An exception in the thread is raised here, at the item where it occurred; a
    consumer that stops early stops the thread (and closes the file) within a second.
    """
    items: queue.Queue = queue.Queue(depth)
    stop = threading.Event()
    done = object()

    def produce():
        error = None
        try:
            for item in blocks:
                if not _offer(items, (item, None), stop):
                    break
        except BaseException as exc:  # handed to the consumer, raised in its thread
            error = exc
        finally:
            blocks.close()
        _offer(items, (done, error), stop)

    thread = threading.Thread(target=produce, name="halfspaces-reader", daemon=True)
    thread.start()
    try:
        while True:
            item, error = items.get()
            if item is done:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
