from papersift.throttle import Throttle


def test_due_once_per_interval_unless_forced():
    throttle = Throttle(interval=3600)
    assert throttle.due() is True
    assert throttle.due() is False
    assert throttle.due(force=True) is True
    assert Throttle(interval=0).due() and Throttle(interval=0).due()


def test_due_for_one_caller_among_threads():
    """The lock-free "not due" answer never lets two callers through for one interval."""
    import threading

    throttle = Throttle(interval=3600)
    answers: list[bool] = []
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        answers.extend(throttle.due() for _ in range(1000))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers.count(True) == 1 and len(answers) == 8000
