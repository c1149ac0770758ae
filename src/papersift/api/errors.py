"""Every failure becomes a 4xx/5xx JSON error that says what is wrong (HTML for the page).

The JSON shape is `{"error": code, "message": text, "details": [...]}`. Pages under
/api always get JSON; other paths get the page's error template when the web package
registered one (app.state.render_html_error).
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from papersift.search.types import QuerySyntaxError, UnsupportedFilterError
from papersift.store import StorageFullError, StoreError

log = logging.getLogger("papersift.api")

HTTP_ERROR_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 413: "too_large", 422: "invalid_parameter", 503: "unavailable",
}


# Paths whose next segment is a capability (a private feed's token): never echoed back, never logged.
SECRET_PATH_PREFIXES = ("/feeds/private/",)


def shown_path(path: str) -> str:
    """The request path as an answer or a log line may show it: a capability in it replaced by '…'."""
    for prefix in SECRET_PATH_PREFIXES:
        if path.startswith(prefix):
            _, slash, rest = path[len(prefix):].partition("/")
            return f"{prefix}…{slash}{rest}"
    return path


class ApiError(Exception):
    """Raised by routes: becomes a JSON error with this status and code."""

    def __init__(self, status: int, code: str, message: str, details: list[dict] | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details or []
        self.headers = headers or {}  # e.g. Retry-After of a rate-limited login


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api") or "text/html" not in request.headers.get("accept", "text/html")


def error_response(request: Request, status: int, code: str, message: str, details: list[dict] | None = None) -> Response:
    renderer = getattr(request.app.state, "render_html_error", None)
    if renderer is not None and not wants_json(request):
        return renderer(request, status, message, code)
    return JSONResponse({"error": code, "message": message, "details": details or []}, status_code=status)


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_validation_error(error: dict) -> str:
    """One line per problem: `page: Input should be less than or equal to 500 (got '1000000000')`."""
    location = [str(part) for part in error.get("loc", ()) if part not in ("query", "path", "body")]
    name = ".".join(location) or "request"
    if error.get("type") == "extra_forbidden":
        return f"unknown parameter {name!r}"
    message = error.get("msg", "invalid value")
    if "input" in error and error.get("type") != "missing" and not isinstance(error["input"], dict):
        return f"{name}: {message} (got {_short(error['input'])})"
    return f"{name}: {message}"


MAX_LISTED_PROBLEMS = 20  # a request with 10,000 unknown parameters gets a short answer


def _validation_details(exc: RequestValidationError) -> tuple[list[dict], int]:
    """The first MAX_LISTED_PROBLEMS problems, and how many there are in all."""
    errors = exc.errors()
    details = []
    for error in errors[:MAX_LISTED_PROBLEMS]:
        location = [str(part) for part in error.get("loc", ()) if part not in ("query", "path", "body")]
        details.append({"param": ".".join(location), "problem": describe_validation_error(error), "type": error.get("type")})
    return details, len(errors)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> Response:
        details, total = _validation_details(exc)
        message = "; ".join(detail["problem"] for detail in details) or "invalid request"
        if total > len(details):
            message += f"; and {total - len(details):,} more problems"
        return error_response(request, 422, "invalid_parameter", message, details)

    @app.exception_handler(QuerySyntaxError)
    async def on_query_syntax(request: Request, exc: QuerySyntaxError) -> Response:
        details = [{"param": "q", "problem": exc.problem, "position": exc.position}]
        return error_response(request, 400, "query_syntax", f"malformed query: {exc}", details)

    @app.exception_handler(UnsupportedFilterError)
    async def on_unsupported_filter(request: Request, exc: UnsupportedFilterError) -> Response:
        return error_response(request, 501, "filter_not_supported", str(exc))

    @app.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> Response:
        if exc.code == "login_required" and not wants_json(request) and request.method in ("GET", "HEAD"):
            # A user page asked for anonymously (accounts on): to the login form, then back here.
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)
        response = error_response(request, exc.status, exc.code, exc.message, exc.details)
        for name, value in exc.headers.items():
            response.headers[name] = value
        return response

    @app.exception_handler(StoreError)
    async def on_store_error(request: Request, exc: StoreError) -> Response:
        # The store's message names server paths: it goes to the log, the client gets what happened.
        log.error("store error on %s: %s", request.url.path, exc)
        if isinstance(exc, StorageFullError):
            return error_response(request, 507, "storage_full",
                                  "the server's disk is full: nothing of this request was stored; try again later")
        return error_response(request, 503, "store_unavailable",
                              "the server cannot write its store now: nothing of this request was stored")

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = getattr(exc, "code", None) or HTTP_ERROR_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else code
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {shown_path(request.url.path)}"
        response = error_response(request, exc.status_code, code, message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        return error_response(request, 500, "internal_error", "internal error; the server log has the details")
