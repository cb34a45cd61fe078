"""Frontier of a scan in Redis (lib.crawl.frontier): seen-set, budget, depth, pending, cancel."""

import pytest

from lib.crawl.frontier import Frontier


def test_admit_once_within_depth_and_budget(redis_client):
    f = Frontier(redis_client, 1)
    f.open(max_pages=3, max_depth=1)
    assert f.admit(["u1", "u2", "u1"], 0) == {"u1": "admitted", "u2": "admitted"}
    assert f.admit(["u1", "u3"], 1) == {"u1": "seen", "u3": "admitted"}
    assert f.admit(["u4"], 1) == {"u4": "budget"}
    assert f.admit(["u5"], 2) == {"u5": "depth"}
    assert f.state().admitted == 3 and f.state().pending == 3


def test_scans_are_separate_and_shared_by_workers(redis_client):
    a, b = Frontier(redis_client, 1), Frontier(redis_client, 2)
    a.open(10, 2)
    b.open(10, 2)
    a.admit(["u"], 0)
    assert b.admit(["u"], 0) == {"u": "admitted"}
    assert Frontier(redis_client, 1).admit(["u"], 0) == {"u": "seen"}


def test_pending_counts_down_to_zero_and_counters(redis_client):
    f = Frontier(redis_client, 7)
    f.open(10, 2)
    f.admit(["a", "b"], 0)
    assert f.add_pending("m-1")
    assert f.task_done() == 2
    assert f.task_done(url_finished=False) == 1
    assert f.task_done() == 0
    f.count(pages_new=2)
    f.count_outcome("ok")
    state = f.state()
    assert state.done == 2 and state.stats == {"pages_new": 2, "outcome:ok": 1}
    assert not f.cancelled()
    assert f.mark_seen("trap") and not f.mark_seen("trap")


def test_a_task_delivered_twice_is_counted_once(redis_client):
    """A task redelivered after its worker died past its end must not finish the scan early,
    while another task of it still runs."""
    f = Frontier(redis_client, 8)
    f.open(10, 2)
    f.admit(["a", "b"], 0)
    assert f.task_done(task_id="t-a") == 1
    assert f.task_done(task_id="t-a") == 1  # the same task again: b still pending
    assert f.state().done == 1
    assert f.task_done(task_id="t-b") == 0


def test_a_task_counted_pending_twice_is_pending_once(redis_client):
    """A crawl task delivered again after its worker died between counting a match task and
    sending it counts the same task again: the scan must still reach zero pending."""
    f = Frontier(redis_client, 9)
    f.open(10, 2)
    f.admit(["a"], 0)
    assert f.add_pending("match-a")
    assert not f.add_pending("match-a")
    assert f.state().pending == 2
    assert f.task_done(url_finished=False, task_id="match-a") == 1
    assert f.task_done(task_id="crawl-a") == 0


def test_a_page_crawled_again_gets_back_the_urls_it_admitted(redis_client):
    """A crawl task delivered again after its worker died between admitting a page's links and
    sending them: the page's links come back admitted to it (it sends them again), counted
    once; links another page admitted stay seen."""
    f = Frontier(redis_client, 10)
    f.open(10, 3)
    assert f.admit(["a", "b"], 1, parent="p") == {"a": "admitted", "b": "admitted"}
    assert f.admit(["b", "c"], 1, parent="q") == {"b": "seen", "c": "admitted"}
    assert f.admit(["a", "b", "c"], 1, parent="p") == {"a": "admitted", "b": "admitted",
                                                        "c": "seen"}
    assert f.admit(["a"], 1) == {"a": "seen"}
    assert f.state().admitted == 3 and f.state().pending == 3


def test_cancel_and_bad_limits(redis_client):
    f = Frontier(redis_client, 3)
    f.open(5, 0)
    f.cancel()
    assert f.state().cancelled and f.cancelled()
    with pytest.raises(ValueError):
        f.open(0, 1)


def test_tokens_tell_runs_apart(redis_client):
    f = Frontier(redis_client, 9)
    token = f.open(5, 1, {"rules": {"site_id": 1}})
    assert f.accepts(token) and not f.accepts("") and not f.accepts("0" * 32)
    assert f.context() == {"rules": {"site_id": 1}}
    again = f.open(5, 1)  # the same id opened again (ids reused): the old run's tasks are stale
    assert again != token and not f.accepts(token) and f.accepts(again)
    f.close()
    assert not f.accepts(again)


def test_batched_counters_arrive_together_at_the_end_even_on_error(redis_client):
    f = Frontier(redis_client, 9)
    f.open(10, 2)
    with f.batched():
        f.count(requests=1, ms_fetch=12)
        f.count(requests=1)
        f.count_outcome("ok")
        assert Frontier(redis_client, 9).state().stats == {}  # nothing sent yet
    assert f.state().stats == {"requests": 2, "ms_fetch": 12, "outcome:ok": 1}
    with pytest.raises(RuntimeError), f.batched():
        f.count_outcome("timeout")
        raise RuntimeError("boom")
    assert f.state().stats["outcome:timeout"] == 1
    f.count(retries=1)  # outside a batch: sent at once
    assert f.state().stats["retries"] == 1


def test_a_nested_batch_is_sent_with_the_outer_one(redis_client):
    f = Frontier(redis_client, 10)
    f.open(10, 2)
    with f.batched():
        with f.batched():  # the crawl step's block, inside the crawl task's
            f.count(pages_new=1)
        assert Frontier(redis_client, 10).state().stats == {}  # the inner block sent nothing
        f.count(matches=2)
    assert f.state().stats == {"pages_new": 1, "matches": 2}
