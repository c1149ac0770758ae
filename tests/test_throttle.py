from papersift.throttle import Throttle


def test_due_once_per_interval_unless_forced():
    throttle = Throttle(interval=3600)
    assert throttle.due() is True
    assert throttle.due() is False
    assert throttle.due(force=True) is True
    assert Throttle(interval=0).due() and Throttle(interval=0).due()
