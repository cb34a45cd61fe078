"""Per-host politeness in Redis (lib.crawl.politeness): slots, reservations, horizon, push-back."""

from lib.crawl.politeness import Politeness


def test_first_fetch_now_then_reserved_slots_spaced_by_the_delay(redis_client):
    polite = Politeness(redis_client, horizon_seconds=60)
    first = polite.acquire("a.cn", 2.0)
    second = polite.acquire("a.cn", 2.0)
    third = polite.acquire("a.cn", 2.0)
    assert first.now
    assert second.reserved and 1.0 < second.wait <= 2.0
    assert third.reserved and second.wait < third.wait <= 4.0
    assert polite.acquire("b.cn", 2.0).now  # hosts are independent


def test_beyond_the_horizon_nothing_is_reserved(redis_client):
    polite = Politeness(redis_client, horizon_seconds=5)
    grants = [polite.acquire("a.cn", 2.0) for _ in range(4)]
    assert [g.reserved for g in grants] == [True, True, True, False]
    assert grants[3].wait > 0


def test_shared_between_workers_and_zero_delay_is_off(redis_client):
    Politeness(redis_client).acquire("a.cn", 5.0)
    assert not Politeness(redis_client).acquire("a.cn", 5.0).now
    assert Politeness(redis_client).acquire("a.cn", 0).now


def test_push_back_after_429_delays_every_worker(redis_client):
    polite = Politeness(redis_client, horizon_seconds=600)
    polite.push_back("a.cn", 30)
    grant = polite.acquire("a.cn", 1.0)
    assert grant.wait > 25
