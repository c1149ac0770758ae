"""One log line per request (logger `papersift.access`): client, method, path, status, time.

The query string is left out (it holds what people search for) and so is every header;
refused writes (401, 403) are logged at WARNING so failed authentication stands out.
"""

from __future__ import annotations

import logging
import time

from papersift.api.asgi import HttpMiddleware, on_response_start
from papersift.api.errors import shown_path

log = logging.getLogger("papersift.access")
AUTH_FAILURES = (401, 403)


class AccessLog(HttpMiddleware):
    async def handle(self, scope, receive, send):
        started = time.perf_counter()
        status = 500  # what the client gets if the app fails before answering

        def note_status(start) -> None:
            nonlocal status
            status = start["status"]

        try:
            await self.app(scope, receive, on_response_start(send, note_status))
        finally:
            client = scope.get("client") or ("-", 0)
            elapsed_ms = (time.perf_counter() - started) * 1000
            line = "%s %s %s %d %.1fms"
            # Escaped: a path with %0A in it must not forge a second log line.
            path = shown_path(scope["path"])[:300].encode("unicode_escape").decode("ascii")
            values = (client[0], scope["method"], path, status, elapsed_ms)
            if status in AUTH_FAILURES and scope["method"] not in ("GET", "HEAD"):
                log.warning(line + " auth failed", *values)
            else:
                log.info(line, *values)
