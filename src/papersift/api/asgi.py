"""What the API's own ASGI middlewares share: they act on HTTP requests only (lifespan and
websocket messages pass straight through), and most of them edit the response's start message
(its status and headers) on its way out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

Headers = list[tuple[bytes, bytes]]


class HttpMiddleware:
    """Base of an ASGI middleware for HTTP requests; subclasses implement `handle`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def on_response_start(send: Send, edit: Callable[[MutableMapping[str, Any]], None]) -> Callable[[Message], Awaitable[None]]:
    """`send`, with `edit(start message)` run on the response's start (the message is a copy;
    `edit` may replace its headers)."""

    async def send_edited(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": list(message.get("headers", []))}
            edit(message)
        await send(message)

    return send_edited
