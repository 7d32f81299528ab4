"""The review page's pages, as HTML from plain values: no I/O here, every stored text escaped.

Each function takes what a page shows (proposals, a run's report as stored, a file's lines)
and the owner's locale, and returns `Html`; `trinho.web.app` reads the workspace and decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from trinho.condense.rules.loss import suspicious_sides
from trinho.facts.rules import Fact
from trinho.i18n import N_, t
from trinho.i18n.keys import GATE_CLASS, RUN_OUTCOME, SCREEN_DECISION
from trinho.proposals.store import Proposal
from trinho.review.render import proposal_reason
from trinho.search import Hit
from trinho.web.html import Html, html, join, side_by_side

CSS = """
body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:.5rem}
nav{display:flex;flex-wrap:wrap;gap:.3rem .8rem;align-items:center;margin-bottom:1rem}
nav form{display:flex;gap:.3rem}input[type=search]{max-width:10rem}
section,article{border:1px solid #ccc;border-radius:6px;padding:.5rem;margin:.6rem 0}
.diff{width:100%;border-collapse:collapse;table-layout:fixed;font-family:monospace;font-size:.85rem}
.diff td{vertical-align:top;padding:.1rem .3rem;overflow-wrap:anywhere;white-space:pre-wrap}
.old{background:#fee}.new{background:#efe}.none{background:#f6f6f6}
del{background:#f99;text-decoration:line-through}ins{background:#9e9;text-decoration:none}
pre{white-space:pre-wrap;overflow-wrap:anywhere}.lines{font-family:monospace;font-size:.85rem}
.lines div{white-space:pre-wrap;overflow-wrap:anywhere}.lines div:target{background:#ff9}
.lines a{color:#888;display:inline-block;min-width:2.5rem}
.notice{background:#eef;padding:.4rem;border-radius:4px}
form.decide{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.4rem}
button{padding:.35rem .8rem}
"""


@dataclass(frozen=True)
class Group:
    """The proposals one origin made: a condensation run (`run` set) or someone else."""

    origin: str
    run: str | None
    proposals: Sequence[Proposal]


def layout(locale: str, title: str, body: Html, notices: Sequence[str] = ()) -> Html:
    nav = html(
        '<nav><a href="/">{queue}</a><a href="/runs">{runs}</a>'
        '<a href="/file?path=MEMORY.md">{memory}</a>'
        '<a href="/file?path=memory/archive.md">{archive}</a><a href="/facts">{facts}</a>'
        '<form method="get" action="/search"><input type="search" name="q" aria-label="{search}">'
        "<button>{search}</button></form></nav>",
        queue=t(locale, "web.nav.queue"),
        runs=t(locale, "web.nav.runs"),
        memory=t(locale, "web.nav.memory"),
        archive=t(locale, "web.nav.archive"),
        facts=t(locale, "web.nav.facts"),
        search=t(locale, "web.search"),
    )
    shown = join(html('<p class="notice" role="status">{n}</p>', n=n) for n in notices)
    return html(
        '<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        "<title>{title}</title><style>{css}</style></head><body>{nav}{notices}<main>"
        "<h1>{title}</h1>{body}</main></body></html>",
        lang=locale,
        title=title,
        css=Html(CSS),
        nav=nav,
        notices=shown,
        body=body,
    )


def _hidden(csrf: str) -> Html:
    return html('<input type="hidden" name="csrf" value="{csrf}">', csrf=csrf)


def _fact_change(change: dict[str, Any], locale: str) -> Html:
    none = t(locale, "web.fact.none")
    was = change.get("current_value")
    until = change.get("valid_to") or t(locale, "fact.open_end")
    return html(
        "<h3>{title}</h3><p><del>{old}</del> -&gt; <ins>{new}</ins></p><p>{basis} · {valid}</p>",
        title=t(locale, "web.fact.change", key=change.get("key"), user=change.get("user")),
        old=none if was is None else was,
        new=change.get("value"),
        basis=t(locale, "web.fact.basis", basis=change.get("basis")),
        valid=t(locale, "web.fact.valid", since=change.get("valid_from") or "…", until=until),
    )


def _memory_change(change: dict[str, Any], locale: str) -> Html:
    cls = str(change.get("class"))
    label = t(locale, GATE_CLASS[cls]) if cls in GATE_CLASS else cls
    if cls == "archive":
        lines = str(change.get("old") or "").split("\n")
        items = join(html("<li><code>{line}</code></li>", line=line) for line in lines)
        return html(
            "<h3>MEMORY.md: {label}</h3><p>{head}</p><ul>{items}</ul>",
            label=label,
            head=t(locale, "web.archive.lines", count=len(lines)),
            items=items,
        )
    if cls == "suspicious":
        old, new = suspicious_sides(change, locale)
    else:
        old, new = str(change.get("old") or ""), str(change.get("new") or "")
    head = html(
        '<table class="diff"><tr><th>{a}</th><th>{b}</th></tr></table>',
        a=t(locale, "web.side.before"),
        b=t(locale, "web.side.after"),
    )
    return html(
        "<h3>MEMORY.md: {label}</h3>{head}{diff}",
        label=label,
        head=head,
        diff=side_by_side(old, new),
    )


def proposal_card(p: Proposal, locale: str, csrf: str) -> Html:
    """One waiting change, what it would do, and its approve and reject forms."""
    if p.kind == "fact":
        what = _fact_change(p.change, locale)
    elif p.kind == "memory":
        what = _memory_change(p.change, locale)
    else:
        what = html("<h3>{kind}</h3><pre>{change}</pre>", kind=p.kind, change=p.change)
    return html(
        '<article id="p-{id}">{what}<p><small>{id} · {reason}</small></p>'
        '<form class="decide" method="post" action="/proposals/{id}/approve">{hidden}'
        "<button>{approve}</button></form>"
        '<form class="decide" method="post" action="/proposals/{id}/reject">{hidden}'
        '<input name="reason" aria-label="{why}" placeholder="{why}">'
        "<button>{reject}</button></form></article>",
        id=p.id,
        what=what,
        reason=proposal_reason(p, locale),
        hidden=_hidden(csrf),
        approve=t(locale, "web.approve"),
        reject=t(locale, "web.reject"),
        why=t(locale, "web.reason"),
    )


def queue_page(groups: Sequence[Group], locale: str, csrf: str) -> Html:
    """`GET /`: what waits, grouped by the run (or other origin) that proposed it."""
    if not groups:
        return html("<p>{none}</p>", none=t(locale, "web.queue.none"))
    parts: list[Html] = []
    for group in groups:
        if group.run is not None:
            title = t(locale, "web.queue.run", run=group.run)
            all_form = html(
                '<form method="post" action="/runs/{run}/approve-all">{hidden}'
                "<button>{label}</button></form>",
                run=group.run,
                hidden=_hidden(csrf),
                label=t(locale, "web.approve_all", count=len(group.proposals)),
            )
        else:
            title, all_form = t(locale, "web.queue.origin", origin=group.origin), Html("")
        cards = join(proposal_card(p, locale, csrf) for p in group.proposals)
        parts.append(
            html(
                "<section><h2>{title}</h2>{all}{cards}</section>",
                title=title,
                all=all_form,
                cards=cards,
            )
        )
    return join(parts)


def runs_page(run_ids: Sequence[str], locale: str) -> Html:
    if not run_ids:
        return html("<p>{none}</p>", none=t(locale, "web.runs.none"))
    items = join(html('<li><a href="/runs/{id}">{id}</a></li>', id=r) for r in run_ids)
    return html("<ul>{items}</ul>", items=items)


def _counted(items: Sequence[Any], render: Any) -> Html:
    return join(render(item) for item in items)


def run_page(run_id: str, report: dict[str, Any] | None, locale: str, undoable: bool) -> Html:
    """A run's report as stored (`report.json`), and the link to undo it."""
    undo = (
        html(
            '<p><a href="/runs/{id}/undo">{label}</a></p>',
            id=run_id,
            label=t(locale, "web.run.undo"),
        )
        if undoable
        else Html("")
    )
    if report is None:
        return html("<p>{none}</p>{undo}", none=t(locale, "web.run.no_report"), undo=undo)
    days = _counted(
        report.get("days", []),
        lambda d: html(
            "<li>{text}</li>",
            text=t(
                locale,
                N_("condense.day.used") if d.get("used") else N_("condense.day.unused"),
                day=d.get("day"),
                notes=d.get("notes"),
                turns=d.get("turns"),
            ),
        ),
    )
    changes = _counted(report.get("changes", []), lambda c: _report_change(c, locale))
    screening = report.get("screening", {})
    verdicts = _counted(
        screening.get("verdicts", []),
        lambda s: html(
            "<li>{decision}: <code>{line}</code> {reason}</li>",
            decision=_screen(s.get("decision"), locale),
            line=s.get("line"),
            reason=s.get("reason") or "",
        ),
    )
    model = report.get("model", {})
    outcome = report.get("outcome")
    outcome_key = RUN_OUTCOME.get(outcome) if isinstance(outcome, str) else None
    return html(
        "<p>{outcome}</p><p>{message}</p><h2>{days_h}</h2><ul>{days}</ul>"
        "<h2>{changes_h}</h2><ul>{changes}</ul><h2>{screening_h}</h2><ul>{verdicts}</ul>"
        "<p>{model}</p>{undo}",
        outcome=t(
            locale, outcome_key, run=run_id, since=report.get("since"), today=report.get("today")
        )
        if outcome_key is not None
        else outcome,
        message=report.get("message", ""),
        days_h=t(locale, "web.run.days"),
        days=days,
        changes_h=t(locale, "web.run.changes"),
        changes=changes,
        screening_h=t(locale, "web.run.screening"),
        verdicts=verdicts,
        model=t(
            locale,
            "web.run.model",
            calls=model.get("calls", 0),
            input=model.get("input_tokens", 0),
            output=model.get("output_tokens", 0),
        ),
        undo=undo,
    )


def _screen(decision: object, locale: str) -> str:
    key = SCREEN_DECISION.get(str(decision))
    return t(locale, key) if key is not None else str(decision)


def _report_change(change: dict[str, Any], locale: str) -> Html:
    cls = str(change.get("class"))
    label = t(locale, GATE_CLASS[cls]) if cls in GATE_CLASS else cls
    held = t(locale, "web.run.held") if change.get("proposal") else t(locale, "web.run.auto")
    sides = join(
        html("<div><code>{mark} {text}</code></div>", mark=mark, text=change[side])
        for side, mark in (("old", "-"), ("new", "+"))
        if change.get(side) is not None
    )
    return html(
        "<li>{label} ({held}): {reason}{sides}</li>",
        label=label,
        held=held,
        reason=change.get("reason", ""),
        sides=sides,
    )


def undo_page(run_id: str, locale: str, csrf: str, plan: Sequence[str] = ()) -> Html:
    """The confirmation: what the undo reverts, withdraws and keeps (`render_plan`'s lines),
    before the one button that does it."""
    return html(
        '<p>{ask}</p><div class="undo-plan">{plan}</div>'
        '<form method="post" action="/runs/{id}/undo">{hidden}'
        '<button>{yes}</button></form><p><a href="/runs/{id}">{back}</a></p>',
        ask=t(locale, "web.run.undo_confirm", run=run_id),
        plan=join(html("<p>{line}</p>", line=line) for line in plan),
        id=run_id,
        hidden=_hidden(csrf),
        yes=t(locale, "web.run.undo_yes", run=run_id),
        back=t(locale, "web.back"),
    )


def file_page(path: str, lines: Sequence[str], locale: str) -> Html:
    """A workspace file, each line numbered and anchored (`#L12`) for a search hit to open."""
    if not lines:
        return html("<p>{none}</p>", none=t(locale, "web.file.empty", path=path))
    rows = join(
        html('<div id="L{n}"><a href="#L{n}">{n}</a>{line}</div>', n=n, line=line)
        for n, line in enumerate(lines, 1)
    )
    return html('<div class="lines">{rows}</div>', rows=rows)


def facts_page(facts: Sequence[Fact], locale: str) -> Html:
    """Each fact with its versions, oldest first: a timeline of what held when."""
    if not facts:
        return html("<p>{none}</p>", none=t(locale, "web.facts.none"))
    parts = []
    for fact in facts:
        items = join(
            html(
                "<li><b>{since}</b> → {until}: {value} <small>({basis})</small></li>",
                since=v.valid_from,
                until=v.valid_to or t(locale, "fact.open_end"),
                value=v.value,
                basis=v.basis,
            )
            for v in sorted(fact.versions(), key=lambda v: v.valid_from)
        )
        parts.append(
            html(
                '<section id="{key}"><h2>{key}</h2><ol>{items}</ol></section>',
                key=fact.key,
                items=items,
            )
        )
    return join(parts)


def search_page(query: str, hits: Sequence[Hit], locale: str) -> Html:
    if not hits:
        return html("<p>{none}</p>", none=t(locale, "web.search.none", query=query))
    items = join(
        html(
            '<li><a href="/file?path={link}#L{line}">{path}:{line}</a> {day} {text}</li>',
            link=quote(h.path, safe="/"),
            path=h.path,
            line=h.line,
            day=h.date or "",
            text=h.text[:300],
        )
        for h in hits
    )
    return html("<ol>{items}</ol>", items=items)


def token_form(code: str, locale: str) -> Html:
    return html(
        '<form method="post" action="/login"><input type="hidden" name="code" value="{code}">'
        '<input type="password" name="token" aria-label="{label}" placeholder="{label}">'
        "<button>{go}</button></form>",
        code=code,
        label=t(locale, "web.login.token"),
        go=t(locale, "web.login.go"),
    )
