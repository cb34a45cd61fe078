"""The one retry delay (lib.runtime.backoff.backoff_delay): doubling, cap, jitter, bad arguments."""

import pytest

from lib.runtime.backoff import backoff_delay


def test_delay_doubles_then_stops_at_the_cap():
    no_luck = [backoff_delay(n, 5.0, 600.0, rand=lambda: 0.0) for n in range(10)]
    assert no_luck == [5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 600.0, 600.0, 600.0]
    assert backoff_delay(5000, 5.0, 600.0, rand=lambda: 0.0) == 600.0  # no float overflow


def test_jitter_takes_off_at_most_its_share_and_keeps_attempts_apart():
    for n in range(8):
        d = min(600.0, 5.0 * 2**n)
        low = backoff_delay(n, 5.0, 600.0, jitter=0.25, rand=lambda: 0.999999)
        assert 0.75 * d <= low <= d
    delays = [backoff_delay(n, 2.0, 300.0) for n in range(6)]
    assert all(a < b for a, b in zip(delays, delays[1:], strict=False))  # grows below the cap
    spread = {backoff_delay(9, 2.0, 300.0) for _ in range(20)}
    assert len(spread) > 1 and max(spread) <= 300.0  # clients at the cap do not come back together


@pytest.mark.parametrize("args", [(-1, 1.0, 2.0), (0, 0.0, 2.0), (0, 3.0, 2.0)])
def test_bad_arguments_are_refused(args):
    with pytest.raises(ValueError):
        backoff_delay(*args)


def test_bad_jitter_is_refused():
    with pytest.raises(ValueError, match="jitter"):
        backoff_delay(0, 1.0, 2.0, jitter=1.5)
