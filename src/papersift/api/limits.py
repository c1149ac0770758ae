"""Bounds on what one request may make the server read: body size, body read time, query size.

A client that declares or sends more than the cap gets 413 before (or as soon as) the
excess arrives; one that stalls while sending its body gets 408; a query string over the
cap gets 414. Routes that take a body read it only after their access checks
(writes.read_json_body), so a refused write never has its body read at all.
"""

from __future__ import annotations

import asyncio
import time

import orjson
from starlette.exceptions import HTTPException

from papersift.api.asgi import HttpMiddleware

MAX_BODY_BYTES = 16 * 1024 * 1024  # 1,000 records (the write cap) of real papers take ~3 MB
MAX_QUERY_BYTES = 16 * 1024
BODY_TIMEOUT_S = 30.0  # the whole body must arrive within this time


class RequestRejected(HTTPException):
    """A request over one of the limits: becomes a JSON error with this code."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(status, message)
        self.code = code


def body_too_large(limit: int) -> RequestRejected:
    return RequestRejected(413, "too_large", f"request body over the limit of {limit:,} bytes")


def _json_response(status: int, code: str, message: str) -> tuple[dict, dict]:
    body = orjson.dumps({"error": code, "message": message, "details": []})
    start = {"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]}
    return start, {"type": "http.response.body", "body": body}


class RequestLimits(HttpMiddleware):
    """ASGI middleware: caps the body (declared and actually sent), its read time, the query."""

    def __init__(self, app, max_body_bytes: int = MAX_BODY_BYTES, body_timeout_s: float = BODY_TIMEOUT_S,
                 max_query_bytes: int = MAX_QUERY_BYTES):
        super().__init__(app)
        self.max_body_bytes, self.body_timeout_s, self.max_query_bytes = max_body_bytes, body_timeout_s, max_query_bytes

    async def _reject(self, send, status: int, code: str, message: str) -> None:
        start, body = _json_response(status, code, message)
        await send(start)
        await send(body)

    async def handle(self, scope, receive, send):
        if len(scope.get("query_string", b"")) > self.max_query_bytes:
            await self._reject(send, 414, "uri_too_long", f"query string over the limit of {self.max_query_bytes:,} bytes")
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                await self._reject(send, 400, "bad_request", "Content-Length is not a number")
                return
            if int(declared) > self.max_body_bytes:
                await self._reject(send, 413, "too_large",
                                   f"request body over the limit of {self.max_body_bytes:,} bytes")
                return
        received = 0
        deadline: float | None = None
        body_done = False

        async def limited_receive():
            nonlocal received, deadline, body_done
            if body_done:  # later receives only wait for the client to disconnect
                return await receive()
            if deadline is None:  # the clock starts when the app first asks for the body
                deadline = time.monotonic() + self.body_timeout_s
            try:
                message = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0.001))
            except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
                raise RequestRejected(408, "body_timeout",
                                      f"the request body did not arrive within {self.body_timeout_s:g} s") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise body_too_large(self.max_body_bytes)
                body_done = not message.get("more_body", False)
            return message

        await self.app(scope, limited_receive, send)
