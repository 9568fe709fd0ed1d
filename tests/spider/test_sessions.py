from __future__ import annotations

from harvest.sessions import BoundedJars


def test_jars_are_created_on_demand_and_bounded() -> None:
    jars = BoundedJars(limit=3)
    first = jars["a"]
    assert jars["a"] is first  # same jar on every access
    for key in ("b", "c", "d"):
        jars[key]
    assert list(jars) == ["b", "c", "d"]  # "a" was least recently used
    assert jars.evicted == 1


def test_access_refreshes_recency() -> None:
    jars = BoundedJars(limit=2)
    jars["a"]
    jars["b"]
    jars["a"]  # "b" is now the oldest
    jars["c"]
    assert set(jars) == {"a", "c"}


def test_memory_stays_flat_over_many_cases() -> None:
    jars = BoundedJars(limit=16)
    for n in range(100_000):
        jars[f"pn-x|{n}/Pid.B/2024/PN X"]
    assert len(jars) == 16
    assert jars.evicted == 100_000 - 16


def test_the_warm_flag_leaves_with_its_jar() -> None:
    jars = BoundedJars(limit=2)
    jars["a"]
    jars.mark_warm("a")
    jars.mark_warm("never-created")  # no jar, no flag
    assert jars.is_warm("a")
    assert not jars.is_warm("never-created")
    jars["b"]
    jars["c"]  # evicts "a": a jar created again later is a new, cold session
    assert not jars.is_warm("a")
    jars["a"]
    assert not jars.is_warm("a")
    jars.mark_warm("c")
    jars.forget("c")
    assert "c" not in jars
    assert not jars.is_warm("c")
    assert len(jars._warm) == 0  # bounded by the jars: nothing left behind


def test_a_pool_reuses_warm_jars_and_never_lends_one_twice() -> None:
    import asyncio

    from harvest.sessions import SessionPool

    async def scenario() -> list[str]:
        pool = SessionPool("pn-x", size=2)
        warm: set[str] = set()
        a = await pool.lease(warm.__contains__)
        b = await pool.lease(warm.__contains__)
        assert {a.jar, b.jar} == {"pn-x|session-1", "pn-x|session-2"}
        third = asyncio.ensure_future(pool.lease(warm.__contains__))
        await asyncio.sleep(0)
        assert not third.done()  # both jars are leased: the third request waits
        warm.add(b.jar)
        pool.give_back(a.jar, a.id)
        c = await third
        assert c.jar == a.jar
        assert c.active
        assert not a.active
        pool.give_back(a.jar, a.id)  # an ended lease gives nothing back twice
        assert c.active
        pool.give_back(c.jar, c.id)
        pool.give_back(b.jar, b.id)
        d = await pool.lease(warm.__contains__)  # a warm idle jar first
        assert d.jar == b.jar
        assert pool.leased == 1
        del d  # a lease lost without an outcome comes back when dropped
        return list(pool.idle)

    idle = asyncio.run(scenario())
    assert sorted(idle) == ["pn-x|session-1", "pn-x|session-2"]


def test_a_request_that_failed_leaves_its_session_to_it() -> None:
    """A timed-out request may still run at the court and set or consume the session's one-shot
    value: its jar leaves the pool, so the next request of the court gets a fresh session."""
    import asyncio

    from scrapy import Request
    from twisted.internet.error import TimeoutError as TxTimeoutError

    from harvest.base.meta import META_GROUP
    from harvest.sessions import SippSessionMiddleware

    async def scenario() -> tuple[str, str, str]:
        mw = SippSessionMiddleware(pool_size=1)
        timed_out = Request("http://x/show_putusan/t", meta={META_GROUP: "pn-x|1/Pid.B/2024/PN X"})
        first = await mw._lease(timed_out)
        mw.process_exception(timed_out, TxTimeoutError())
        after = Request("http://x/show_saksi/t", meta={META_GROUP: "pn-x|2/Pid.B/2024/PN X"})
        second = await mw._lease(after)
        mw._end_lease(after)
        again = Request("http://x/show_saksi/u", meta={META_GROUP: "pn-x|3/Pid.B/2024/PN X"})
        third = await mw._lease(again)
        return first, second, third

    first, second, third = asyncio.run(scenario())
    assert second != first  # a fresh session, never the failed request's
    assert third == second  # an ordinary end of a chain gives the jar back to the pool


def test_a_request_waiting_for_a_session_gives_up_when_the_crawl_stops() -> None:
    """Issue #27: a closing engine never sends the redirect hop that holds the jar, so a request
    waiting in the lease must give up (and not be an outcome), or the stop hangs for ever."""
    import asyncio

    from harvest.errors import StoppedBeforeSending
    from harvest.sessions import SessionPool

    async def scenario() -> tuple[bool, float, int, str]:
        pool = SessionPool("pn-x", size=1)
        held = await pool.lease(lambda _: False)  # a redirect chain holds the only jar
        stopping = False
        loop = asyncio.get_running_loop()
        waiting = asyncio.ensure_future(pool.lease(lambda _: False, lambda: stopping, poll=0.01))
        await asyncio.sleep(0.05)
        still_waiting = not waiting.done()
        stopping = True
        began = loop.time()
        try:
            await waiting
        except StoppedBeforeSending as exc:
            error = str(exc)
        took = loop.time() - began
        # the withdrawn waiter takes no release meant for a later request
        pool.give_back(held.jar, held.id)
        after = await pool.lease(lambda _: False)
        return still_waiting, took, after.id, error

    still_waiting, took, after_id, error = asyncio.run(scenario())
    assert still_waiting
    assert took < 0.5
    assert after_id == 2
    assert error == "not sent"
