"""The failover drill's accounting: which failed requests count against the failover window."""

from __future__ import annotations

from papersift.cluster.failover import RequestLog, _describe_outside, _outside


def test_a_request_in_flight_at_the_kill_fails_inside_the_window():
    log = RequestLog()
    log.record(9.99, ConnectionError("refused"), ended=10.01)  # sent just before the kill at 10.0
    log.record(12.0, ConnectionError("refused"), ended=12.5)  # sent inside the window
    log.record(14.0, None)
    assert _outside(log, window_start=10.0, window_end=13.0) == 0


def test_failures_wholly_before_or_after_the_window_count_outside():
    log = RequestLog()
    log.record(5.0, TimeoutError("slow"), ended=5.5)
    log.record(13.5, ConnectionError("refused"), ended=13.6)
    log.record(11.0, ConnectionError("refused"), ended=11.1)
    assert _outside(log, window_start=10.0, window_end=13.0) == 2
    assert _describe_outside(log, 10.0, 13.0) == ["-5.00s TimeoutError: slow", "+3.50s ConnectionError: refused"]


def test_succeeded_after_counts_the_requests_sent_later_that_succeeded():
    log = RequestLog()
    log.record(9.0, None)
    log.record(13.5, ConnectionError("refused"), ended=13.6)
    log.record(14.0, None)
    log.record(15.0, None)
    assert log.succeeded_after(13.0) == 2 and log.succeeded_after(14.5) == 1 and log.succeeded_after(16.0) == 0
