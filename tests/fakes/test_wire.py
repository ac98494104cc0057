"""The plumbing the fakes share: the loopback server, the threaded transport, fault scripts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from habicht.fakes.wire import FaultScript, LoopbackServer, threaded_transport


def _echo(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        201,
        json={"method": request.method, "path": request.url.path, "body": request.read().decode()},
    )


def test_loopback_server_hands_requests_to_the_handler() -> None:
    """Method, path and body reach the handler; its status and body reach the client."""
    with LoopbackServer(_echo, base_path="/bot") as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/bot"
        response = httpx.post(server.base_url + "/x?y=1", content=b"hello")
    assert response.status_code == 201
    assert response.json() == {"method": "POST", "path": "/bot/x", "body": "hello"}


def test_loopback_server_refuses_chunked_bodies() -> None:
    """A body without Content-Length gets 411 rather than a hang."""
    with LoopbackServer(_echo) as server:
        response = httpx.post(server.url, content=iter([b"chunk"]))
    assert response.status_code == 411


def test_loopback_server_is_closed_visibly() -> None:
    """Before start and after close it has no address, and says so."""
    server = LoopbackServer(_echo)
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url
    server.start()
    server.close()
    server.close()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(4) as pool:
        yield pool


async def test_threaded_transport_honours_the_read_timeout(executor: ThreadPoolExecutor) -> None:
    """A handler slower than the client's read timeout raises ReadTimeout, as a socket would."""
    release = threading.Event()

    def slow(request: httpx.Request) -> httpx.Response:
        release.wait(10)
        return httpx.Response(200)

    transport = threaded_transport(slow, executor)
    async with httpx.AsyncClient(transport=transport, timeout=0.05) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get("http://fake/")
        release.set()
        # The answer that does come gets a generous deadline: 50 ms is no bound for a
        # thread hop on a busy machine.
        assert (await client.get("http://fake/", timeout=10)).status_code == 200


def test_fault_script_answers_in_order_per_key() -> None:
    """Faults come back in the order pushed, per key, then None."""
    script: FaultScript[int, str] = FaultScript()
    script.push(1, "a", "b")
    script.push(2, "c")
    assert script.pending(1) == 2
    assert [script.pop(1), script.pop(1), script.pop(1)] == ["a", "b", None]
    assert script.pop(2) == "c"
