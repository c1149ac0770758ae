"""What keeps a browser from turning the server against its user: response headers and the
Host check.

* Every response carries a Content-Security-Policy the pages pass (no inline script or
  style in them: scripts and styles come from /static), nosniff, a referrer policy and
  frame-ancestors 'none' (no clickjacking).
* A server bound to the loopback only answers requests whose Host header names the
  loopback, so a page on another site that rebinds its DNS name to 127.0.0.1 cannot read it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from papersift.api.asgi import HttpMiddleware, on_response_start

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
ANY_HOST = "*"

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# /docs and /redoc (FastAPI's bundled Swagger UI / ReDoc) start from an inline script and
# hold no paper data; only they may run one.
DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
               "frame-ancestors 'none'")
DOCS_PATHS = ("/docs", "/redoc")

COMMON_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class TrustedHost(TrustedHostMiddleware):
    """Starlette's Host check with host names compared case-insensitively (RFC 9110 4.2.3).
    Starlette lowercases them itself from 1.8 on, which needs Python 3.11; on 3.10 the lock
    resolves 1.7, which answered "LOCALHOST" with 400."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        super().__init__(app, allowed_hosts=[host.lower() for host in allowed_hosts], www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "headers": [(name, value.lower() if name == b"host" else value)
                                          for name, value in scope["headers"]]}
        await super().__call__(scope, receive, send)


def policy_for(path: str) -> bytes:
    docs = any(path == prefix or path.startswith(prefix + "/") for prefix in DOCS_PATHS)
    return (DOCS_POLICY if docs else PAGE_POLICY).encode()


class SecurityHeaders(HttpMiddleware):
    """ASGI middleware: adds the headers above to every HTTP response (those the app set win)."""

    async def handle(self, scope, receive, send):
        added = [*COMMON_HEADERS, (b"content-security-policy", policy_for(scope["path"]))]

        def add_headers(start) -> None:
            present = {name.lower() for name, _ in start["headers"]}
            start["headers"].extend((name, value) for name, value in added if name not in present)

        await self.app(scope, receive, on_response_start(send, add_headers))


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def allowed_hosts_for(bind_host: str, extra: Iterable[str] = ()) -> list[str]:
    """Host header values a server bound to `bind_host` answers.

    Loopback bind: only the loopback names. A specific address: that address too. All
    interfaces (0.0.0.0, ::) without --allowed-host: any name (the operator was warned).
    --allowed-host names (or `*`) are added in every case.
    """
    extra = [host.strip().lower() for host in extra if host.strip()]
    if _is_wildcard(bind_host) and not extra:
        return [ANY_HOST]
    hosts = list(LOOPBACK_HOSTS)
    if not _is_loopback(bind_host) and not _is_wildcard(bind_host):
        address = bind_host.strip("[]")
        hosts.append(f"[{address}]" if ":" in address else address.lower())
    return list(dict.fromkeys([*hosts, *extra]))
