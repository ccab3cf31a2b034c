"""``uschess serve``: the local web app (see :mod:`uschess.web.app`)."""

from __future__ import annotations

import argparse
import math
import socket
import sys

from uschess.commands.common import add_db_option, add_examples, db_target, print_json
from uschess.errors import InputError


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = float("nan")
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number > 0")
        return value
    return parse


def register(sub) -> None:
    p = sub.add_parser("serve", help="start the local web app (estimator, rate an event, rules, store)",
                       description="Serve the estimator, event rating with explanations and audit, "
                                   "the rules timeline, a store's players, and a JSON API under /api/.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000,
                   help="port (default 8000; 0: any free port, printed when listening)")
    add_db_option(p, what="the ratings store of the Store page (none: no Store page)")
    p.add_argument("--max-upload-mb", type=_positive(float), default=None, metavar="MB",
                   help="largest upload accepted (default 20)")
    p.add_argument("--time-limit", type=_positive(float), default=None, metavar="SECONDS",
                   help="longest a request may take to upload and rate (default 60)")
    p.add_argument("--json", action="store_true",
                   help='print {"url", "host", "port", "db", "max_upload_bytes", "time_limit"} '
                        "once listening")
    add_examples(p,
                 "uschess serve --port 8000 --db ratings.db")
    p.set_defaults(func=run)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``; an InputError saying why not."""
    if not 0 <= port < 65536:
        raise InputError(f"--port {port}: not a port number (0..65535)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, socket.gaierror) as err:
        raise InputError(f"--host {host}: {err.strerror or err}")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        raise InputError(f"cannot listen on {host} port {port}: {err.strerror or err}")
    return sock


def run(args) -> int:
    try:
        import uvicorn
        from uschess.web.app import DEFAULT_MAX_UPLOAD, DEFAULT_TIME_LIMIT, create_app
    except ImportError as err:
        raise InputError(f"the web app needs its extra ({err.name} is missing): "
                         "pip install 'uschess-ratings[web]'")
    db = db_target(args, required=False)
    if db:
        from uschess.io.store import Store
        with Store.open(db, create=False):
            pass  # a missing or unreadable store is refused before the server starts
    max_upload = int(args.max_upload_mb * 1_000_000) if args.max_upload_mb else DEFAULT_MAX_UPLOAD
    time_limit = args.time_limit or DEFAULT_TIME_LIMIT
    app = create_app(db, max_upload=max_upload, time_limit=time_limit)
    sock = listen(args.host, args.port)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    if args.json:
        print_json({"url": url, "host": args.host, "port": port, "db": db,
                    "max_upload_bytes": max_upload, "time_limit": time_limit})
        sys.stdout.flush()
    elif not getattr(args, "quiet", False):
        print(f"uschess: serving on {url}  (Ctrl-C stops)", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="info" if getattr(args, "verbose", False) else "warning")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0
