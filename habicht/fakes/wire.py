"""Plumbing the fakes share: serve a handler on loopback HTTP or as an httpx transport, and
keep scripts of injected faults.

A fake is one function `httpx.Request -> httpx.Response` (a `Handler`). It may block — a
long poll, an injected slow answer — and must be thread-safe, because the loopback server
calls it from one thread per connection. The same function backs both adapters, so a test
in-process and an end-to-end test against a subprocess exercise the same fake.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Generic, Self, TypeVar

import httpx

__all__ = ["FaultScript", "Handler", "LoopbackServer", "Observable", "threaded_transport"]

Handler = Callable[[httpx.Request], httpx.Response]
"""Answers one request; may block; called from several threads at once."""

K = TypeVar("K", bound=Hashable)
F = TypeVar("F")

# Hop-by-hop and framing headers are the server's business, not the handler's.
_FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding"})


class Observable:
    """State guarded by one condition: changes wake whoever waits in `wait_until`.

    Subclasses change their state holding `self._cond` and call `self._cond.notify_all()`.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()

    def wait_until(
        self, condition: Callable[[], bool], *, timeout: float, what: str = "the condition"
    ) -> None:
        """Block until `condition()` holds (re-checked on every change), or raise TimeoutError.

        For tests whose client runs in another thread or process; an async test running the
        client in its own event loop calls it through `asyncio.to_thread`.
        """
        with self._cond:
            if not self._cond.wait_for(condition, timeout):
                raise TimeoutError(f"waited {timeout:g} s for {what}")


class FaultScript(Generic[K, F]):
    """The next answers to give instead of the normal one, in order, per key (thread-safe).

    A key is whatever the fake scripts by: a chat id, a search path, or `None` for "any".
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[K, deque[F]] = {}

    def push(self, key: K, *faults: F) -> None:
        with self._lock:
            self._queues.setdefault(key, deque()).extend(faults)

    def pop(self, key: K) -> F | None:
        """The next scripted answer for `key`, consumed; None when nothing is scripted."""
        with self._lock:
            queue = self._queues.get(key)
            return queue.popleft() if queue else None

    def pending(self, key: K) -> int:
        with self._lock:
            return len(self._queues.get(key, ()))


def threaded_transport(handler: Handler, executor: Executor) -> httpx.MockTransport:
    """An httpx transport that runs the blocking `handler` in `executor`.

    The client's read timeout is honoured as a socket would: an answer slower than it raises
    `httpx.ReadTimeout` (python-telegram-bot turns that into `TimedOut`), although the fake
    may already have acted on the request — exactly the ambiguity of a real lost answer.
    """

    async def handle(request: httpx.Request) -> httpx.Response:
        await request.aread()
        timeout = request.extensions.get("timeout", {}).get("read")
        pending = asyncio.get_running_loop().run_in_executor(executor, handler, request)
        try:
            return await asyncio.wait_for(pending, timeout)
        except TimeoutError:
            raise httpx.ReadTimeout("the fake answered too slowly", request=request) from None

    return httpx.MockTransport(handle)


class LoopbackServer:
    """`handler` served over HTTP/1.1 on 127.0.0.1 at a free port, from a background thread.

    Use as a context manager (or `start()` / `close()`); `base_url` is the address to give the
    client, e.g. ``http://127.0.0.1:PORT/bot`` for `base_path="/bot"`.
    """

    def __init__(self, handler: Handler, *, base_path: str = "") -> None:
        self._handler = handler
        self._base_path = base_path
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("The loopback server is not running; start it before use.")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + self._base_path

    def start(self) -> Self:
        if self._server is not None:
            return self
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _request_handler(self._handler))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # how long close() waits for the loop to notice
            name=f"loopback-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop accepting requests; requests in flight finish on their own daemon threads."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _request_handler(handler: Handler) -> type[BaseHTTPRequestHandler]:
    """A `BaseHTTPRequestHandler` class that turns each request into a call of `handler`."""

    class _Adapter(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Telegram and willhaben speak

        def _serve(self) -> None:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                self._write(httpx.Response(411, text="Length Required"))
                self.close_connection = True  # the unread body would garble the next request
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            request = httpx.Request(
                self.command,
                f"http://127.0.0.1{self.path}",
                headers=[(k, v) for k, v in self.headers.items() if k.lower() != "host"],
                content=body,
            )
            try:
                self._write(handler(request))
            except httpx.TransportError:
                # A staged outage: drop the connection without an answer.
                self.close_connection = True

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionError:
                # The client went away (killed, or gave up waiting): as for a real server,
                # nothing to do and nothing to report.
                self.close_connection = True

        def _write(self, response: httpx.Response) -> None:
            body = response.read()
            self.send_response(response.status_code)
            for name, value in response.headers.multi_items():
                if name.lower() not in _FRAMING:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _serve

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: tests read the fake's own records, not an access log."""

    return _Adapter
