"""What every request of the web app passes through before a route sees it.

* :class:`BodyLimit`: a body larger than the upload limit is refused with
  413 before anything parses it, by its Content-Length or, when it is
  streamed (chunked), as soon as it grows past the limit.
* :class:`Guard`: the Host header must name this server where it listens on
  the loopback (a page of another site reaching it through a name of its
  own is refused); a form posted from a page of another origin is refused
  (403); every answer carries a Content-Security-Policy allowing the app's
  own style sheet and images only (its pages use no script), and is never
  framed.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional
from urllib.parse import urlsplit

#: The headers added to every answer.
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
     b"base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
#: Methods that change state: a form posted from another origin is refused.
STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
#: The names of this machine's loopback.
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


class TooLarge(Exception):
    """The body grew past the limit while the app read it."""


def too_large_text(max_bytes: int) -> str:
    return f"upload larger than the {max_bytes / 1_000_000:g} MB this server accepts\n"


async def _plain(send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": text.encode("utf-8")})


class BodyLimit:
    """Refuse a request body larger than ``max_bytes`` (status 413), by its
    Content-Length or, when streamed, as soon as it grows past the limit
    (the app answers :class:`TooLarge` with 413 where it handles it; here
    otherwise)."""

    def __init__(self, app, max_bytes: int, after_large: Optional[Callable[[], None]] = None,
                 large: int = 1024 * 1024):
        self.app = app
        self.max_bytes = max_bytes
        #: called once a request whose body passed ``large`` bytes is done
        self.after_large = after_large
        self.large = large

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            return await _plain(send, 413 if length.isdigit() else 400,
                                too_large_text(self.max_bytes) if length.isdigit()
                                else "a Content-Length that is not a number\n")
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise TooLarge()
            return message

        try:
            await self.app(scope, limited, send)
        except TooLarge:
            await _plain(send, 413, too_large_text(self.max_bytes))
        finally:
            if self.after_large is not None and seen > self.large:
                self.after_large()


def _header(scope, name: bytes) -> Optional[str]:
    for key, value in scope.get("headers") or []:
        if key == name:
            return value.decode("latin-1")
    return None


def _host_name(netloc: str) -> str:
    """The host of ``host[:port]`` (an IPv6 address without its brackets)."""
    try:
        return (urlsplit("//" + netloc).hostname or "").lower()
    except ValueError:
        return ""


class Guard:
    """The Host and Origin checks and the security headers (module text).
    ``hosts``: the host names the Host header may give (None: any, where
    the server listens on an address other than the loopback)."""

    def __init__(self, app, hosts: Optional[Iterable[str]] = None):
        self.app = app
        self.hosts = None if hosts is None else {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = _header(scope, b"host") or ""
        if self.hosts is not None and _host_name(host) not in self.hosts:
            return await _plain(send, 421, f"this server answers as {', '.join(sorted(self.hosts))}"
                                           f", not {host[:100]!r}\n")
        if scope.get("method") in STATE_CHANGING:
            refused = _cross_origin(scope, host)
            if refused:
                return await _plain(send, 403, refused)

        async def send_guarded(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers") or []}
                message = dict(message)
                message["headers"] = [*(message.get("headers") or []),
                                      *((k, v) for k, v in SECURITY_HEADERS if k not in names)]
            await send(message)

        await self.app(scope, receive, send_guarded)


def _cross_origin(scope, host: str) -> Optional[str]:
    """Why a state-changing request comes from a page of another origin
    (its Origin, or without one its Referer, names another host than the
    Host header; a browser's Sec-Fetch-Site says cross-site), or None.  A
    request without any of them is no browser's form (a script, curl)."""
    if (_header(scope, b"sec-fetch-site") or "").lower() == "cross-site":
        return "a form posted from another site is refused\n"
    origin = _header(scope, b"origin")
    source, what = (origin, "Origin") if origin is not None else (_header(scope, b"referer"),
                                                                  "Referer")
    if source is None:
        return None
    try:
        netloc = urlsplit(source).netloc if source != "null" else ""
    except ValueError:
        netloc = ""
    if not netloc or netloc.lower() != host.lower():
        return f"a form posted from another origin ({what} {source[:100]!r}) is refused\n"
    return None
