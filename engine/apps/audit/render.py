"""An audit as text and as a self-contained HTML report (misses first)."""

from __future__ import annotations

import html

from uschess.apps.audit.cause import _fmt
from uschess.apps.audit.records import Audit, AuditRow
from uschess.apps.audit.store_audit import StoreAudit
from uschess.apps.audit.causes import registered_checks
from uschess.apps.audit.findings import FINDING_WORDS, FINDINGS, count_findings
from uschess.apps.audit.verdict import VERDICT_WORDS, VERDICTS


def _describe_rules(a: Audit) -> str:
    on = {(s.rules.on, s.section.start) for s in a.result.sections}
    text = ("rules in force on each section's start date" if all(r == st for r, st in on)
            else "rules in force on " + ", ".join(sorted({r.isoformat() for r, _ in on})))
    editions = sorted({s.rules.edition for s in a.result.sections if s.rules.edition})
    reforms = sorted({str(s.rules.reform) for s in a.result.sections if s.rules.reform})
    text += "".join(f", edition {e}" for e in editions) + "".join(f", reform {r}" for r in reforms)
    if a.known_on:
        text += f", as known on {a.known_on.isoformat()}"
    if a.readings:
        text += ", readings " + ", ".join(f"{c}={r}" for c, r in a.readings.items())
    return text


def _row_head(r: AuditRow) -> str:
    e = r.entry
    who = f"pair {e.pair} {e.name} ({e.id})" if e.pair is not None else f"{e.name} ({e.id})"
    diff = "" if r.diff is None else f" (computed - published = {r.diff:+.2f})"
    return (f"{who}, section {e.section}, {e.system}: published {e.post:g}, "
            f"computed {_fmt(r.computed)}{diff}")


def _verdict_lines(a: Audit) -> list[str]:
    """The verdicts counted, each with what it means, and how the posts
    reproduced only with inferred inputs were predicted without them."""
    if a.verdict_line() is None:
        return []
    n = a.verdict_counts()
    out = [f"  {n[v]} {VERDICT_WORDS[v]}" for v in VERDICTS if n[v]]
    f = count_findings(a.rows)
    if any(f.values()):
        out.append("  of the posts missed: " + ", ".join(
            f"{f[k]} {FINDING_WORDS[k]}" for k in FINDINGS if f[k]))
    methods = a.methods()
    if methods:
        out.append("  out of sample: each such post predicted by the initial ratings solved "
                   f"without it ({', '.join(methods)})")
    return out


def _people_lines(a: Audit) -> list[str]:
    """One explanation per person: the facts shared by a player's systems,
    the players with two stories, the values flagged implausible."""
    if a.people is None:
        return []
    return ([("one fact per person: " if f.adopted else "") + f.describe() for f in a.people.facts]
            + list(a.people.two_stories) + [i.describe() for i in a.people.implausible])


def _finding_text(r: AuditRow) -> str:
    names = ", ".join(r.finding_causes)
    return {"dated": f"the rule version of the dated finding above ({names})",
            "cause": f"one cause ({names})",
            "ambiguous": f"ambiguous: {names} fit equally; the page cannot tell them apart",
            "weak": f"only a rule value fitted to this post ({names}): a setting that fits, "
                    "not evidence that the rules were otherwise",
            "no cause found": "no cause found"}[r.finding]


def format_text(a: Audit, *, show_all: bool = False) -> str:
    pub = a.published
    kind = {"msa": "MSA crosstable", "json": "published results", "msa-html": "MSA page, HTML",
            "msa-text": "MSA page, text", "msa-table": "MSA crosstable", "td": "TD crosstable",
            "export": "uschess export crosstable"}.get(pub.kind, pub.kind)
    L = [f"audit of {pub.source or '(input)'} ({kind}): {pub.event.name}, "
         f"{pub.event.start.isoformat()}" + (f"..{pub.event.end.isoformat()}" if pub.event.end != pub.event.start else ""),
         f"{_describe_rules(a)}; tolerance {a.tolerance:g}"]
    L.extend(f"note: {n}" for n in pub.notes)
    L.extend(f"dated finding: {d.describe()}" for d in a.dated)
    L.append(a.summary_line())
    L.extend(_verdict_lines(a))
    if len(a.by_section()) > 1:
        for sec, system, n, m in a.by_section():
            L.append(f"  section {sec}, {system}: {n} of {m} reproduced")
    if a.inferred:
        L.append(f"  with the inputs the page cannot show inferred from it: "
                 f"{a.reproduced_inferred} of {a.total} reproduced (in sample)")
        for i in a.inferred:
            L.append(f"    inferred: {i.describe()}")
    L.extend(f"  {line}" for line in _people_lines(a))
    for label, n in a.variants:
        L.append(f"  with {label} over the whole event: {n} of {a.total} reproduced")
    for sec, system, pid in a.chained:
        L.append(f"  section chaining: {pid}'s {system} pre-event rating in section {sec} is "
                 "the earlier section's result (agrees with the page)")
    for o in a.overruled:
        L.append(f"  section chaining: {o.describe()}")
    if a.mismatches:
        L.append("")
        L.append("not reproduced:")
        for r in a.mismatches:
            L.append("")
            L.append("  " + _row_head(r))
            if r.verdict is not None:
                L.append(f"    verdict: {r.verdict.describe()}")
            if r.finding is not None:
                L.append(f"    finding: {_finding_text(r)}")
            if r.problem:
                L.append(f"    {r.problem}")
            if r.causes:
                for c in r.causes:
                    L.append(f"    likely cause ({c.cause}): {c.detail}{c.evidence_text()}")
            elif r.computed is not None:
                L.append("    no cause found among the causes tried ("
                         + ", ".join(dict.fromkeys(c.name for c in registered_checks()))
                         + ", and the inputs inferred)")
            if r.explain:
                L.append("    calculation:")
                L.extend("    " + line for line in r.explain.rstrip("\n").split("\n"))
    if show_all:
        L.append("")
        L.append("all players:")
        for r in a.rows:
            L.append(("  ok  " if r.reproduced else "  !!  ") + _row_head(r))
    groups = a.warning_groups()
    if groups:
        L.append("")
        L.append("computed ratings that depended on a conflicted or undocumented rule:")
        for w, rows in groups:
            who = ", ".join(str(r.entry.pair) if r.entry.pair is not None else r.entry.id for r in rows)
            L.append(f"  ! {w}")
            L.append(f"    ({len(rows)} player{'s' if len(rows) != 1 else ''}: "
                     f"{'pairs ' if rows[0].entry.pair is not None else ''}{who})")
    for s in a.sections():
        if s["warnings"]:
            L.append("")
            L.append(f"notes on the rules in force for section {s['name']} ({s['system']}), "
                     f"{s['rules_on']}, fingerprint {s['fingerprint']}:")
            L.extend(f"  ! {w}" for w in s["warnings"])
    return "\n".join(L) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.bad{background:#fde8e8} tr.ok{background:#f3faf3}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:90%}
.warn{color:#8a5a00} .cause{color:#0b5394}
"""


def _html_table(a: Audit) -> list[str]:
    """The table of every published rating, its verdict and its causes."""
    esc = html.escape
    out = []
    out.append("<h2>All published ratings</h2>")
    out.append("<table><thead><tr><th>Section</th><th>Pair</th><th>ID</th><th>Player</th>"
               "<th>System</th><th>Published</th><th>Computed</th><th>Diff</th><th>Verdict</th><th>Status</th>"
               "</tr></thead><tbody>")
    for r in a.rows:
        e = r.entry
        status = "reproduced" if r.reproduced else (
            "; ".join(c.cause for c in r.causes) if r.causes else (r.problem or "not reproduced"))
        out.append(f"<tr class=\"{'ok' if r.reproduced else 'bad'}\"><td>{esc(str(e.section))}</td>"
                   f"<td class=\"n\">{'' if e.pair is None else e.pair}</td><td>{esc(e.id)}</td>"
                   f"<td>{esc(str(e.name))}</td><td>{esc(e.system)}</td><td class=\"n\">{e.post:g}</td>"
                   f"<td class=\"n\">{esc(_fmt(r.computed))}</td>"
                   f"<td class=\"n\">{'' if r.diff is None else f'{r.diff:+.2f}'}</td>"
                   f"<td>{esc(r.verdict.verdict if r.verdict is not None else '')}</td>"
                   f"<td>{esc(status)}</td></tr>")
    out.append("</tbody></table>")
    return out


def format_html(a: Audit) -> str:
    """A self-contained HTML report (inline style, no scripts); every value
    from the input is escaped."""
    esc = html.escape
    pub = a.published
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Audit: {esc(pub.event.name)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Audit of {esc(pub.source or pub.event.name)}</h1>",
           f"<p>{esc(pub.event.name)}, {esc(pub.event.start.isoformat())}"
           + (f"..{esc(pub.event.end.isoformat())}" if pub.event.end != pub.event.start else "")
           + f"; {esc(_describe_rules(a))}; tolerance {a.tolerance:g}.</p>",
           *(f"<p class=\"cause\"><strong>Dated finding</strong>: {esc(d.describe())}</p>"
             for d in a.dated),
           f"<p><strong>{esc(a.summary_line())}</strong></p>"]
    if a.variants:
        out.append("<p>Whole-event variants that reproduce more:</p><ul>" + "".join(
            f"<li>{esc(label)}: {n} of {a.total}</li>" for label, n in a.variants) + "</ul>")
    for n in pub.notes:
        out.append(f"<p>Note: {esc(n)}</p>")
    if len(a.by_section()) > 1:
        out.append("<ul>" + "".join(f"<li>section {esc(str(sec))}, {esc(system)}: {n} of {m} "
                                    "reproduced</li>" for sec, system, n, m in a.by_section())
                   + "</ul>")
    verdict_lines = _verdict_lines(a)
    if verdict_lines:
        out.append("<ul>" + "".join(f"<li>{esc(line.strip())}</li>" for line in verdict_lines)
                   + "</ul>")
    if a.inferred:  # the count here, the values after the misses
        out.append(f"<p>With the inputs the page cannot show inferred from it: "
                   f"{a.reproduced_inferred} of {a.total} reproduced in sample (the values: "
                   f"<a href=\"#inferred\">below</a>).</p>")
    if a.mismatches:
        out.append("<h2>Not reproduced</h2>")
        for r in a.mismatches:
            out.append(f"<h3>{esc(_row_head(r))}</h3>")
            if r.verdict is not None:
                out.append(f"<p>Verdict: <strong>{esc(r.verdict.describe())}</strong></p>")
            if r.finding is not None:
                out.append(f"<p>Finding: {esc(_finding_text(r))}</p>")
            if r.problem:
                out.append(f"<p>{esc(r.problem)}</p>")
            if r.causes:
                out.append("<ul>" + "".join(
                    f"<li class=\"cause\"><strong>{esc(c.cause)}</strong>: "
                    f"{esc(c.detail + c.evidence_text())}</li>"
                    for c in r.causes) + "</ul>")
            elif r.computed is not None:
                out.append("<p>No cause found among the variants tried.</p>")
            if r.explain:
                out.append(f"<pre>{esc(r.explain)}</pre>")
    if a.inferred:
        out.append(f"<h2 id=\"inferred\">Inferred from the page ({len(a.inferred)})</h2><ul>"
                   + "".join(f"<li>{esc(i.describe())}</li>" for i in a.inferred) + "</ul>")
    people = _people_lines(a)
    if people:
        out.append("<h2>One explanation per person</h2><ul>"
                   + "".join(f"<li>{esc(line)}</li>" for line in people) + "</ul>")
    out.extend(_html_table(a))
    groups = a.warning_groups()
    if groups:
        out.append("<h2>Conflicted or undocumented rules the computed ratings depended on</h2><ul>")
        for w, rows in groups:
            who = ", ".join(esc(f"{r.entry.name} ({r.entry.id})") for r in rows)
            out.append(f"<li class=\"warn\">{esc(w)}<br><small>{len(rows)} player(s): {who}</small></li>")
        out.append("</ul>")
    for s in a.sections():
        if s["warnings"]:
            out.append(f"<h2>Rules in force for section {esc(s['name'])} ({esc(s['system'])}), "
                       f"{esc(s['rules_on'])}</h2><p>fingerprint {esc(s['fingerprint'])}</p><ul>")
            out.extend(f"<li class=\"warn\">{esc(w)}</li>" for w in s["warnings"])
            out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


STORE_NOTE = ("the store keeps ratings, not games: only the floor cause can be tested here; "
              "audit the event's published results file for the re-rated variants")


def format_store_text(a: StoreAudit) -> str:
    L = [f"audit of the published ratings in {a.store}"
         + (f", event {a.event}" if a.event else "") + f"; tolerance {a.tolerance:g}",
         a.summary_line(), f"note: {STORE_NOTE}"]
    for r in a.rows:
        L.append("")
        diff = "" if r["diff"] is None else f" (computed - published = {r['diff']:+.2f})"
        L.append(f"  {r['id']}, event {r['event']}, section {r['section']}, {r['system']}: "
                 f"published {r['published']:g}, computed {_fmt(r['computed'])}{diff}")
        if r["problem"]:
            L.append(f"    {r['problem']}")
        else:
            L.append(f"    pre {_fmt(r['pre'])}, {r['formula']} formula"
                     + (", a floor applied" if r["floor_applied"] else "")
                     + f", rules {r['fingerprint']}")
        for c in r["causes"]:
            L.append(f"    likely cause ({c['cause']}): {c['detail']}")
        L.extend(f"    ! rules in force: {w}" for w in r["rules_warnings"])
    return "\n".join(L) + "\n"


def format_store_html(a: StoreAudit) -> str:
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Audit: {esc(a.store)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Audit of the published ratings in {esc(a.store)}</h1>",
           f"<p><strong>{esc(a.summary_line())}</strong></p><p>Note: {esc(STORE_NOTE)}</p>",
           "<table><thead><tr><th>Event</th><th>Section</th><th>ID</th><th>System</th>"
           "<th>Published</th><th>Computed</th><th>Diff</th><th>Cause</th><th>Rules in force: warnings</th>"
           "</tr></thead><tbody>"]
    for r in a.rows:
        cause = "; ".join(f"{c['cause']}: {c['detail']}" for c in r["causes"]) or (r["problem"] or "")
        out.append(f"<tr class=\"bad\"><td>{esc(str(r['event']))}</td><td>{esc(str(r['section']))}</td>"
                   f"<td>{esc(str(r['id']))}</td><td>{esc(str(r['system']))}</td>"
                   f"<td class=\"n\">{r['published']:g}</td><td class=\"n\">{esc(_fmt(r['computed']))}</td>"
                   f"<td class=\"n\">{'' if r['diff'] is None else format(r['diff'], '+.2f')}</td>"
                   f"<td>{esc(cause)}</td><td class=\"warn\">{esc('; '.join(r['rules_warnings']))}</td></tr>")
    out.append("</tbody></table></body></html>")
    return "\n".join(out) + "\n"
