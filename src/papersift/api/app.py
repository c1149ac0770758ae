"""The FastAPI app of the JSON API (/api, OpenAPI at /docs), with the middleware every
request passes. The page mounts on it in papersift/server.py (`create_app`), above both.

Other parts of papersift add routes by passing their routers to create_api_app(routers=[...])
(or by appending to EXTRA_ROUTERS before the app is created).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi_offline import FastAPIOffline
from starlette.middleware import Middleware

from papersift import __version__, extras
from papersift.api import library_routes, people_routes, routes, saved_routes, warmup, writes
from papersift.api.access_log import AccessLog
from papersift.api.asgi import HttpMiddleware, on_response_start
from papersift.api.backend import ServiceProtocol
from papersift.api.errors import install_error_handlers
from papersift.api.import_slots import ImportSlots
from papersift.api.limits import BODY_TIMEOUT_S, MAX_BODY_BYTES, RequestLimits
from papersift.api.security import LOOPBACK_HOSTS, SecurityHeaders, TrustedHost
from papersift.follow.state import Following
from papersift.store import DB_FILE

# Routers that other packages register (e.g. the topic map and trends pages).
EXTRA_ROUTERS: list[APIRouter] = []
MIN_TOKEN_CHARS = 16  # a write token shorter than this is refused (guessable)


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    enable_writes: bool = False
    write_token: str = ""
    accounts: bool = False  # serve --accounts: users log in; each sees and changes only their own tables
    secure_cookies: bool = False  # mark the session cookie Secure even when the request looks like plain http


class ServerTiming(HttpMiddleware):
    """Adds `Server-Timing: app;dur=<ms>` to every response: the server-side time the
    benchmark reports, without the client's overhead."""

    async def handle(self, scope, receive, send):
        started = time.perf_counter()

        def add_timing(start) -> None:
            start["headers"].append((b"server-timing", f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode()))

        await self.app(scope, receive, on_response_start(send, add_timing))


class HeadAsGet(HttpMiddleware):
    """HEAD is answered as GET without the body (FastAPI routes list GET only)."""

    async def handle(self, scope, receive, send):
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message):
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)


def open_service(data_dir: Path) -> ServiceProtocol:
    from papersift.search.service import SearchService

    return SearchService(data_dir)


def create_api_app(
    data_dir: str | Path,
    *,
    service: ServiceProtocol | None = None,
    routers: Iterable[APIRouter] = (),
    enable_writes: bool = False,
    write_token: str | None = None,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    max_body_bytes: int = MAX_BODY_BYTES,
    body_timeout_s: float = BODY_TIMEOUT_S,
    accounts: bool = False,
    secure_cookies: bool = False,
) -> FastAPI:
    """The JSON API for one data dir. Writes stay off unless enable_writes and a token.

    Only requests whose Host header is in `allowed_hosts` are answered (`*`: any); the
    default, the loopback names, suits a server bound to 127.0.0.1 (see api.security).
    """
    if enable_writes and not write_token:
        raise ValueError("enable_writes needs a write_token")
    if enable_writes and write_token is not None and len(write_token) < MIN_TOKEN_CHARS:
        raise ValueError(f"the write token must be at least {MIN_TOKEN_CHARS} characters")
    data_dir = Path(data_dir)
    # Outermost first: every request is logged, then checked for its Host, its answer gets
    # the security headers, its body is bounded, HEAD becomes GET, and it is timed.
    middleware = [
        Middleware(AccessLog),
        Middleware(SecurityHeaders),
        Middleware(TrustedHost, allowed_hosts=list(allowed_hosts)),
        Middleware(RequestLimits, max_body_bytes=max_body_bytes, body_timeout_s=body_timeout_s),
        Middleware(HeadAsGet),
        Middleware(ServerTiming),
    ]
    # /docs and /redoc from assets shipped in the wheel: no CDN, works offline.
    app = FastAPIOffline(
        title="papersift",
        version=__version__,
        description="论文检索 / Paper search: keyword, semantic and hybrid search over ML papers.",
        middleware=middleware,
    )
    app.state.settings = Settings(data_dir=data_dir, enable_writes=enable_writes, write_token=write_token or "",
                                  accounts=accounts, secure_cookies=secure_cookies)
    if (enable_writes or accounts) and (data_dir / DB_FILE).exists():
        # A writable server makes the follow tables and the per-install form key (CSRF) when it
        # starts, before it answers anything: no request, GET or POST, ever creates them.
        Following.open(data_dir).store.close()
    app.state.service = service if service is not None else open_service(data_dir)
    app.state.import_slots = ImportSlots()  # library imports: one per user, a few per server
    if accounts:
        # The accounts tables too (a few CREATE TABLEs, no heavy work); argon2 must be installed.
        from papersift.accounts.ratelimit import LoginLimiter
        from papersift.accounts.users import Accounts

        extras.require("accounts", "serve --accounts")
        app.state.accounts = Accounts(writes.write_path(app)[0])
        app.state.login_limiter = LoginLimiter()
    install_error_handlers(app)
    app.include_router(routes.router)
    app.include_router(writes.router)
    app.include_router(warmup.router)
    app.include_router(people_routes.router)
    app.include_router(library_routes.router)
    app.include_router(saved_routes.router)
    optional = []
    if extras.available("topics"):  # topic map + trends (papersift.topics): mounted when its extra is installed
        from papersift.api.topics_routes import router as topics_router

        optional.append(topics_router)
    for router in [*EXTRA_ROUTERS, *optional, *routers]:
        app.include_router(router)
    return app
