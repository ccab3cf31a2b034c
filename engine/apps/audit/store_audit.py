"""Auditing a ratings store: the published posts a replay recorded against
the ratings it computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.floors import _floor_detail, floor_kinds
from uschess.errors import InputError


@dataclass
class StoreAudit:
    """Published post ratings held in a ratings store (:mod:`uschess.io.store`)
    against the ratings the store computed.  The store keeps ratings, not the
    games, so nothing can be re-rated: the floor cause is the one tested, and
    the warnings (``rules_warnings``) are those of the rules each change was
    computed under (the store does not keep which of them a rating used)."""

    store: str
    total: int
    rows: list[dict]
    tolerance: float
    event: Optional[str] = None

    @property
    def reproduced(self) -> int:
        return self.total - len(self.rows)

    def summary_line(self) -> str:
        tol = f"{self.tolerance:g} point{'s' if self.tolerance != 1 else ''}"
        return f"{self.reproduced} of {self.total} reproduced within {tol}"

    def as_dict(self) -> dict:
        return {"reproduced": self.reproduced, "total": self.total, "players": self.rows,
                "summary": self.summary_line(), "source": self.store, "format": "store",
                "tolerance": self.tolerance, "event": self.event}


def audit_store(target, *, tolerance: float = 1.0, event: Optional[str] = None,
                progress=None) -> StoreAudit:
    """Audit the published ratings recorded in a store (``Store.record_published``);
    ``progress(done, total)`` is called after each rating not reproduced."""
    try:
        from uschess.io.store import Store
    except ImportError:
        raise InputError("auditing a store needs the ratings store (engine/store.py)")
    with Store.open(target, create=False) as store:
        if event is not None and not any(e["id"] == event for e in store.events()):
            raise InputError(f"no event {event!r} in the store", file=store.name)
        published = [r for r in store.dump("published") if event is None or r[0] == event]
        if not published:
            raise InputError("the store holds no published ratings"
                             + (f" for event {event!r}" if event else ""), file=store.name)
        rows = []
        rules_cache: dict = {}
        found = store.audit(tolerance=tolerance, event_id=event)
        for done, item in enumerate(found, 1):
            ev, pid, system = item["event"], item["player"], item["system"]
            published_post, computed = item["published"], item["computed"]
            change = next((h for h in store.history(pid, system) if h["event"] == ev), None)
            row = {"id": pid, "system": system, "event": ev, "published": published_post,
                   "computed": computed,
                   "diff": None if computed is None else computed - published_post,
                   "causes": [], "rules_warnings": [], "section": None, "pre": None,
                   "formula": None, "floor_applied": None, "fingerprint": None,
                   "problem": None if computed is not None else
                   f"the store has no {system} rating of this player from event {ev}"}
            if change is not None:
                fp = change["fingerprint"]
                if fp not in rules_cache:
                    rules_cache[fp] = store.rules(fp) or {}
                rules = rules_cache[fp]
                row.update(section=change["section"], pre=change["pre"], formula=change["formula"],
                           floor_applied=bool(change["floor_applied"]), fingerprint=fp,
                           rules_warnings=list(rules.get("warnings") or []))
                if computed is not None and computed < published_post - tolerance:
                    params = {k: v.get("value") for k, v in (rules.get("parameters") or {}).items()}
                    plugins = {p.get("slot"): p.get("name") for p in rules.get("plugins") or []}
                    kinds = floor_kinds(published_post, system, params,
                                        plugins.get("floors") != "floors-002")
                    if kinds:
                        row["causes"].append({"cause": "floor", "computed": published_post, "diff": 0.0,
                                              "detail": _floor_detail(published_post, computed, kinds)})
            rows.append(row)
            if progress:
                progress(done, len(found))
    return StoreAudit(str(target), len(published), rows, float(tolerance), event)
