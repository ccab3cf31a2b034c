"""The Starlette application of ``uschess serve``.

Pages (server-rendered, usable with JavaScript off):

``/estimate``
    the estimator (:mod:`uschess.web.estimator`); ``/estimate/event.yaml``
    gives the event file it rates.
``/rate``
    upload an event (event file, zipped DBF report, TRF; an MSA crosstable
    or a published-results file opens the audit view); the rated crosstable
    per section and system is kept in memory under a random token:
    ``/rate/TOKEN``, ``/rate/TOKEN/player/ID`` (the explanation) and
    ``/rate/TOKEN/download/json|csv|msa|dbf``.
``/rules``
    every parameter and plugin slot over time, the conflicts and their
    readings, the rules of one date and the diff between two.
``/store``
    a player's history in the store given with ``--db``, with a plot.

The API under ``/api/`` answers with the text the matching ``--json``
command prints (the same functions build it): ``/api/estimate`` and
``POST /api/rate`` (``rate --json``), ``POST /api/audit`` (``audit --json``),
``/api/rules/show?on=DATE``, ``/api/rules/timeline[/NAME]``,
``/api/rules/diff?date1=&date2=``, ``/api/rules/conflicts`` and
``/api/player/ID`` (``player --json``).  Bad input is status 400 with the
one located line of the command line (``{"error": LINE}`` from the API).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import re
import secrets
import tempfile
import zipfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urlencode

import anyio
import yaml
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from uschess.apps.audit import Audit, audit
from uschess.apps.report import (explain_player, expectancy_text, k_text, rating_label,
                                 rating_text)
from uschess.errors import InputError
from uschess.io.eventfile import parse_date
from uschess.io.exports import crosstable
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.io.formats.uscf_dbf import write_uscf_dbf
from uschess.model import SYSTEM_LABELS, SYSTEMS
from uschess.rating.pipeline import rate_event
from uschess.rating.results import EventResult
from uschess.web import estimator as est
from uschess.web.uploads import AuditOptions, Loaded, Upload, load_upload

HERE = Path(__file__).resolve().parent
#: Largest request body accepted (bytes), unless ``serve --max-upload-mb`` says otherwise.
DEFAULT_MAX_UPLOAD = 20_000_000
#: Seconds one request may take to upload and be rated, unless ``serve --time-limit``.
DEFAULT_TIME_LIMIT = 60.0
#: Rated uploads kept in memory (the oldest is dropped first).
KEPT_UPLOADS = 32
#: Downloads of a rated upload: format -> (suffix, media type).
DOWNLOADS = {"json": (".json", "application/json"), "csv": (".csv", "text/csv; charset=utf-8"),
             "msa": (".txt", "text/plain; charset=utf-8"), "dbf": (".zip", "application/zip")}


def json_text(data) -> str:
    """The text ``print_json`` of the command line writes."""
    return json.dumps(data, indent=2, allow_nan=False, default=str) + "\n"


def json_response(data, status_code: int = 200) -> Response:
    return Response(json_text(data), status_code=status_code, media_type="application/json")


@dataclass
class Rated:
    """One rated upload, kept for its explanation and download links."""

    token: str
    upload: str
    loaded: Loaded
    result: EventResult
    rules: str
    audit: Optional[Audit] = None
    notes: list[str] = field(default_factory=list)


class Kept:
    """The last :data:`KEPT_UPLOADS` rated uploads, by token."""

    def __init__(self, size: int = KEPT_UPLOADS):
        self.size = size
        self._items: OrderedDict[str, Rated] = OrderedDict()

    def add(self, rated: Rated) -> None:
        self._items[rated.token] = rated
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def get(self, token: str) -> Rated:
        rated = self._items.get(token)
        if rated is None:
            raise HTTPException(404, "no such rated upload (uploads are kept in memory only while "
                                     "the server runs, the last few)")
        self._items.move_to_end(token)
        return rated


class BodyLimit:
    """Refuse a request body larger than ``max_bytes`` (status 413), by its
    Content-Length or, when streamed, as soon as it grows past the limit."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await self._too_large(send)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._too_large(send)

    async def _too_large(self, send):
        text = f"upload larger than the {self.max_bytes / 1_000_000:g} MB this server accepts\n"
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
        await send({"type": "http.response.body", "body": text.encode("utf-8")})


class _TooLarge(Exception):
    pass


def _form_dict(form) -> dict[str, str]:
    return {k: v for k, v in form.multi_items() if isinstance(v, str)}


def _query_dict(request: Request) -> dict[str, str]:
    return dict(request.query_params.multi_items())


def _date_field(form: dict, key: str, what: str) -> Optional[_dt.date]:
    text = (form.get(key) or "").strip()
    if not text:
        return None
    return parse_date(text, what)


class WebApp:
    """The routes, over one configuration (store, limits)."""

    def __init__(self, db: Optional[str] = None, *, max_upload: int = DEFAULT_MAX_UPLOAD,
                 time_limit: float = DEFAULT_TIME_LIMIT):
        self.db = db
        self.max_upload = max_upload
        self.time_limit = time_limit
        self.kept = Kept()
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(system_letter=SYSTEM_LABELS, systems=SYSTEMS,
                                          established_games=ESTABLISHED_GAMES)
        self.templates.env.filters["label"] = rating_label
        self.templates.env.filters["shown"] = shown
        self.templates.env.globals["unrated_opponents"] = est.unrated_opponents

    # ------------------------------------------------------------ plumbing

    def page(self, request: Request, name: str, status_code: int = 200, **context) -> Response:
        context.setdefault("db", self.db)
        return self.templates.TemplateResponse(request, name, context, status_code=status_code)

    def error_page(self, request: Request, err: InputError, name: str, **context) -> Response:
        return self.page(request, name, status_code=400, error=page_error(err), **context)

    def _late(self) -> InputError:
        return InputError(f"not done within the {self.time_limit:g} s this server allows "
                          "(serve --time-limit)")

    async def run(self, fn: Callable, *args):
        """``fn(*args)`` in a worker thread within the time limit; past it
        the request is answered at once with an :class:`InputError`."""
        try:
            with anyio.fail_after(self.time_limit):
                return await anyio.to_thread.run_sync(lambda: fn(*args), abandon_on_cancel=True)
        except TimeoutError:
            raise self._late() from None

    async def read_form(self, request: Request):
        """The submitted form, received within the time limit."""
        try:
            with anyio.fail_after(self.time_limit):
                return await request.form(max_files=2, max_fields=100, max_part_size=64_000)
        except TimeoutError:
            raise self._late() from None

    async def uploads(self, request: Request) -> tuple[dict, Optional[Upload], Optional[Upload]]:
        form = await self.read_form(request)
        fields = _form_dict(form)
        files = {}
        for key in ("event", "players"):
            item = form.get(key)
            if item is not None and not isinstance(item, str) and item.filename:
                data = await item.read()
                if len(data) > self.max_upload:
                    raise InputError(f"larger than the {self.max_upload / 1_000_000:g} MB this "
                                     "server accepts", file=item.filename)
                files[key] = Upload(item.filename, data)
        await form.close()
        return fields, files.get("event"), files.get("players")

    # ------------------------------------------------------------ pages

    async def index(self, request: Request) -> Response:
        return self.page(request, "index.html")

    async def estimate_page(self, request: Request) -> Response:
        query = _query_dict(request)
        try:
            rows = int(query.get("rows") or est.DEFAULT_ROWS)
        except ValueError:
            rows = est.DEFAULT_ROWS
        filled = max((int(k[len("opp_result_"):]) for k in query
                      if k.startswith("opp_result_") and k[len("opp_result_"):].isdigit()), default=0)
        rows = max(1, min(est.MAX_ROWS, max(rows, filled)))
        context = {"form": query, "rows": rows, "more": urlencode({**query, "rows": rows + 4}),
                   "today": _dt.date.today().isoformat()}
        if "date" not in query:
            return self.page(request, "estimate.html", **context)
        try:
            req = est.parse_form(query)
            estimate = await self.run(est.estimate, req)
        except InputError as err:
            return self.error_page(request, err, "estimate.html", **context)
        explain = {}
        for side, res in (("a", estimate.result), ("b", estimate.other)):
            if res is not None:
                explain[side] = explain_player(res, est.PLAYER_ID)
        return self.page(request, "estimate.html", estimate=estimate, explain=explain,
                         query=urlencode(query), **context)

    async def estimate_event(self, request: Request) -> Response:
        try:
            req = est.parse_form(_query_dict(request))
        except InputError as err:
            return Response(f"{err}\n", status_code=400, media_type="text/plain")
        text = yaml.safe_dump(est.event_dict(req), sort_keys=False, allow_unicode=True)
        return Response(text, media_type="application/yaml",
                        headers={"content-disposition": f'attachment; filename="{est.EVENT_FILE}"'})

    async def rate_form(self, request: Request) -> Response:
        return self.page(request, "rate.html", form={})

    async def rate_upload(self, request: Request) -> Response:
        fields: dict = {}
        try:
            fields, event, players = await self.uploads(request)
            rated = await self._rate(fields, event, players)
        except InputError as err:
            return self.error_page(request, err, "rate.html", form=fields)
        self.kept.add(rated)
        return RedirectResponse(f"/rate/{rated.token}", status_code=303)

    async def _rate(self, fields: dict, event: Optional[Upload], players: Optional[Upload]) -> Rated:
        if event is None:
            raise InputError("choose a file to upload", field="event")
        opts = AuditOptions(start=_date_field(fields, "start", "start"),
                            end=_date_field(fields, "end", "end"),
                            time_control=(fields.get("time_control") or "").strip() or None,
                            system=(fields.get("system") or "").strip() or None)
        spec = (fields.get("rules") or "").strip() or "baseline"
        tolerance_text = (fields.get("tolerance") or "").strip()
        try:
            tolerance = float(tolerance_text) if tolerance_text else 1.0
        except ValueError:
            raise InputError(f"tolerance {tolerance_text!r} is not a number", field="tolerance")
        side = est.rules_side(spec, "rules", source=None)  # before any file is read, as on the command line

        def work() -> Rated:
            loaded = load_upload(event, players, opts, self.max_upload,
                                 all_unrated=bool((fields.get("all_unrated") or "").strip()))
            token = secrets.token_urlsafe(12)
            if loaded.kind == "published":
                if spec != "baseline" and (side.options.rules_on or side.options.edition):
                    raise InputError("an audit re-rates under the rules in force (or as known on "
                                     "a date, or another reading): rules-on and edition do not apply",
                                     field="rules")
                result = audit(loaded.published, tolerance=tolerance,
                               known_on=side.options.known_on, readings=side.options.readings)
                return Rated(token, event.name, loaded, result.result, side.label, audit=result,
                             notes=list(loaded.published.notes))
            result = rate_event(loaded.event, side.options)
            notes = [loaded.member_data.message(limit=None)] if loaded.member_data and \
                loaded.member_data.missing else []
            return Rated(token, event.name, loaded, result, side.label, notes=notes)

        try:
            return await self.run(work)
        except InputError as err:
            raise err.located(file=event.name)

    async def rated_page(self, request: Request) -> Response:
        rated = self.kept.get(request.path_params["token"])
        rows = []
        if rated.audit is not None:
            rows = sorted(rated.audit.rows, key=lambda r: (r.reproduced, r.entry.section or "",
                                                           r.entry.pair or 0))
        return self.page(request, "rated.html", rated=rated, audit_rows=rows,
                         downloads=list(DOWNLOADS))

    async def player_page(self, request: Request) -> Response:
        rated = self.kept.get(request.path_params["token"])
        pid = request.path_params["pid"]
        found = [(s, p) for s in rated.result.sections for p in s.players if p.id == pid]
        if not found:
            raise HTTPException(404, f"no player with id {pid} in this event")
        return self.page(request, "player.html", rated=rated, pid=pid, found=found,
                         explain=explain_player(rated.result, pid))

    async def download(self, request: Request) -> Response:
        rated = self.kept.get(request.path_params["token"])
        fmt = request.path_params["fmt"]
        if fmt not in DOWNLOADS:
            raise HTTPException(404, f"no download {fmt!r} (json, csv, msa or dbf)")
        suffix, media = DOWNLOADS[fmt]
        # the upload's name, reduced to safe characters for the header
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(rated.upload).stem).strip("._") or "event"
        try:
            if fmt == "dbf":
                body = await self.run(_dbf_zip, rated.loaded.event)
            else:
                body = crosstable(rated.result, fmt).encode("utf-8")
        except InputError as err:
            return Response(f"{err}\n", status_code=400, media_type="text/plain")
        name = f"{stem}-rated{suffix}" if fmt != "dbf" else f"{stem}-report.zip"
        return Response(body, media_type=media,
                        headers={"content-disposition": f'attachment; filename="{name}"'})

    async def rules_page(self, request: Request) -> Response:
        from uschess.calendar.rulebook import RuleBook
        from uschess.commands.rules import _plugin_titles  # the titles 'rules timeline' prints
        from uschess.commands.rules import conflicts_data, diff_data, selected_timelines
        query = _query_dict(request)
        book = RuleBook.load()
        context = {"form": query, "timelines": selected_timelines(), "conflicts": book.conflicts,
                   "fmt": _fmt, "titles": _plugin_titles()}
        try:
            if query.get("on"):
                context["shown"] = _rules_from_query(query, parse_date(query["on"], "on")).as_dict()
            if query.get("date1") or query.get("date2"):
                d1, d2 = parse_date(query.get("date1", ""), "date1"), parse_date(query.get("date2", ""), "date2")
                context["diff"] = diff_data(_rules_from_query(query, d1), _rules_from_query(query, d2), d1, d2)
        except InputError as err:
            return self.error_page(request, err, "rules.html", **context)
        context["conflicts_data"] = conflicts_data(book)
        return self.page(request, "rules.html", **context)

    async def store_page(self, request: Request) -> Response:
        query = _query_dict(request)
        pid = (query.get("id") or "").strip()
        if not self.db or not pid:
            return self.page(request, "store.html", form=query)
        try:
            data, info = await self.run(_player, self.db, pid)
        except InputError as err:
            return self.error_page(request, err, "store.html", form=query)
        return self.page(request, "store.html", form=query, data=data, info=info, pid=pid)

    async def store_plot(self, request: Request) -> Response:
        if not self.db:
            raise HTTPException(404, "no store: start the server with --db FILE")
        pid = request.path_params["pid"]
        try:
            body = await self.run(_plot, self.db, pid)
        except InputError as err:
            return Response(f"{err}\n", status_code=400, media_type="text/plain")
        return Response(body, media_type="image/png")

    # ------------------------------------------------------------ API

    async def api_estimate(self, request: Request) -> Response:
        try:
            req = est.parse_form(_query_dict(request))
            estimate = await self.run(est.estimate, req)
        except InputError as err:
            return _api_error(err)
        return json_response(estimate.result.as_dict())

    async def api_rate(self, request: Request) -> Response:
        try:
            fields, event, players = await self.uploads(request)
            rated = await self._rate(fields, event, players)
        except InputError as err:
            return _api_error(err)
        from uschess.commands.rate import rate_data
        return json_response(rate_data(rated.result, rated.loaded))

    async def api_explain(self, request: Request) -> Response:
        from uschess.apps.report import explain_player_data
        rated = self.kept.get(request.path_params["token"])
        data = explain_player_data(rated.result, request.path_params["pid"])
        if data is None:
            return _api_error(InputError(f"no player with id {request.path_params['pid']} in "
                                         "this event", file=rated.upload), 404)
        return json_response(data)

    async def api_audit(self, request: Request) -> Response:
        try:
            fields, event, players = await self.uploads(request)
            rated = await self._rate(fields, event, players)
            if rated.audit is None:
                raise InputError("carries no published ratings (an MSA crosstable, or an event "
                                 "file with 'published')", file=event.name)
        except InputError as err:
            return _api_error(err)
        return json_response(rated.audit.as_dict())

    async def api_rules_show(self, request: Request) -> Response:
        query = _query_dict(request)
        try:
            on = parse_date(query.get("on", ""), "on")
            return json_response(_rules_from_query(query, on).as_dict())
        except InputError as err:
            return _api_error(err)

    async def api_rules_timeline(self, request: Request) -> Response:
        from uschess.commands.rules import selected_timelines, timeline_data
        try:
            return json_response(timeline_data(selected_timelines(request.path_params.get("name"))))
        except InputError as err:
            return _api_error(err)

    async def api_rules_diff(self, request: Request) -> Response:
        from uschess.commands.rules import diff_data
        query = _query_dict(request)
        try:
            d1, d2 = parse_date(query.get("date1", ""), "date1"), parse_date(query.get("date2", ""), "date2")
            return json_response(diff_data(_rules_from_query(query, d1), _rules_from_query(query, d2), d1, d2))
        except InputError as err:
            return _api_error(err)

    async def api_rules_conflicts(self, request: Request) -> Response:
        from uschess.calendar.rulebook import RuleBook
        from uschess.commands.rules import conflicts_data
        return json_response(conflicts_data(RuleBook.load()))

    async def api_player(self, request: Request) -> Response:
        if not self.db:
            return _api_error(InputError("no store: start the server with --db FILE"), 404)
        try:
            data, _ = await self.run(_player, self.db, request.path_params["pid"])
        except InputError as err:
            return _api_error(err)
        return json_response(data)

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/estimate", self.estimate_page),
            Route("/estimate/event.yaml", self.estimate_event),
            Route("/rate", self.rate_form, methods=["GET"]),
            Route("/rate", self.rate_upload, methods=["POST"]),
            Route("/rate/{token}", self.rated_page),
            Route("/rate/{token}/player/{pid}", self.player_page),
            Route("/rate/{token}/download/{fmt}", self.download),
            Route("/rules", self.rules_page),
            Route("/store", self.store_page),
            Route("/store/plot/{pid}.png", self.store_plot),
            Route("/api/estimate", self.api_estimate),
            Route("/api/rate", self.api_rate, methods=["POST"]),
            Route("/api/audit", self.api_audit, methods=["POST"]),
            Route("/api/rate/{token}/explain/{pid}", self.api_explain),
            Route("/api/rules/show", self.api_rules_show),
            Route("/api/rules/timeline", self.api_rules_timeline),
            Route("/api/rules/timeline/{name}", self.api_rules_timeline),
            Route("/api/rules/diff", self.api_rules_diff),
            Route("/api/rules/conflicts", self.api_rules_conflicts),
            Route("/api/player/{pid}", self.api_player),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ]


def _api_error(err: InputError, status: int = 400) -> Response:
    return json_response({"error": str(err)}, status)


#: The fields of the page that rates an upload, by the names its form sends
#: (the estimator's messages name their fields in words).
FIELD_LABELS = {"rules": "Rate under", "event": "Event", "players": "Players", "start": "Start",
                "end": "End", "time_control": "Time control", "tolerance": "Tolerance"}
#: The command line's options an error may name, as the pages name them.
PAGE_WORDS = [(re.compile(pattern), words) for pattern, words in (
    (r"'uschess audit FILE --start DATE'", "the Start field"),
    (r"--start(?: DATE)?", "the Start field"), (r"--end(?: DATE)?", "the End field"),
    (r"--time-control(?: TC)?", "the Time control field"),
    (r"--system(?: SYSTEM)?", "the System field"),
    (r"--players(?: FILE)?", "the Players file"),
    (r"--all-unrated", "the box 'rate them all as unrated'"),
    (r"--known-on(?: DATE)?", "known-on:DATE in Rate under"),
    (r"--rules-on(?: DATE)?", "rules-on:DATE in Rate under"),
    (r"--edition(?: DATE)?", "edition:DATE in Rate under"),
    (r"--reading(?: CONFLICT=READING)?", "reading:CONFLICT=READING in Rate under"))]


def page_error(err: InputError) -> str:
    """An error as a page says it: the field by its label on the page, the
    command line's options by the page's fields that stand for them."""
    estimator = err.file == est.SOURCE  # whose messages name their fields in words
    label = FIELD_LABELS.get(err.field) if not estimator else None
    where = InputError(err.message, file=None if estimator else err.file, section=err.section,
                       player=err.player, round=err.round, record=err.record,
                       field=None if estimator or label else err.field)  # a file's own field
    text = (f"{label}: " if label else "") + str(where)
    for pattern, words in PAGE_WORDS:
        text = pattern.sub(words, text)
    return text


#: How the page shows each kind of number (as the command line's text does;
#: the JSON downloads and /api/ keep them unrounded).
SHOWN = {"rating": rating_text, "k": k_text, "e": expectancy_text, "count": str,
         "floor": lambda x: f"{x:g}"}


def shown(value, kind: str = "rating") -> str:
    """A number on the page: ``-`` when there is none."""
    return "-" if value is None else SHOWN[kind](value)


def _fmt(value) -> str:
    return json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)


def _rules_from_query(query: dict, on: _dt.date):
    """The rules of ``on`` with the query's ``known_on``, ``edition`` and
    ``reading`` (CONFLICT=READING, comma-separated), as the rules commands take them."""
    from uschess.calendar.rulebook import RuleBook
    book = RuleBook.load()
    known_on = parse_date(query["known_on"], "known_on") if query.get("known_on") else None
    edition = (query.get("edition") or "").strip() or None
    if edition is not None and edition not in book.editions:
        raise InputError(f"edition: unknown edition {edition!r} (known: {', '.join(sorted(book.editions))})")
    readings = {}
    for item in (query.get("reading") or "").split(","):
        if item.strip():
            cid, eq, reading = item.partition("=")
            if not eq:
                raise InputError(f"reading {item!r}: write CONFLICT=READING")
            readings[cid.strip()] = reading.strip()
    book.check_readings(readings)
    return book.rules(on, known_on=known_on, readings=readings, edition=edition)


def _player(db: str, pid: str):
    from uschess.commands.player import player_data
    from uschess.io.store import Store
    with Store.open(db, create=False) as store:
        return player_data(store, pid), store.player(pid)


def _plot(db: str, pid: str) -> bytes:
    from uschess.apps.plots import history_figure, render
    data, info = _player(db, pid)
    history = {system: s["history"] for system, s in data["systems"].items()}
    fig = history_figure(pid, history, name=info.name if info and info.name else "")
    return render(fig, "png")


def _dbf_zip(event) -> bytes:
    """The event as a 2C rating report, zipped in memory (written through a
    temporary directory by the report writer)."""
    with tempfile.TemporaryDirectory(prefix="uschess-web-") as tmp:
        paths = write_uscf_dbf(event, Path(tmp) / "report")
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in paths.values():
                archive.write(path, arcname=path.name)
    return buf.getvalue()


async def _not_found(request: Request, exc: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return json_response({"error": exc.detail}, exc.status_code)
    return Response(f"{exc.detail}\n", status_code=exc.status_code, media_type="text/plain")


async def _server_error(request: Request, exc: Exception) -> Response:
    text = "internal error: this request failed and nothing was kept"
    if request.url.path.startswith("/api/"):
        return json_response({"error": text}, 500)
    return Response(text + "\n", status_code=500, media_type="text/plain")


def create_app(db: Optional[str] = None, *, max_upload: int = DEFAULT_MAX_UPLOAD,
               time_limit: float = DEFAULT_TIME_LIMIT):
    """The ASGI application: ``db`` is the store of the Store page (a SQLite
    file or ``postgresql://`` URL; None: no store)."""
    web = WebApp(db, max_upload=max_upload, time_limit=time_limit)
    app = Starlette(routes=web.routes(),
                    exception_handlers={HTTPException: _not_found, Exception: _server_error})
    app.state.web = web
    limited = BodyLimit(app, max_upload)
    limited.web = web
    return limited
