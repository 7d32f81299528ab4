"""The review page's pages, as HTML from plain values: no I/O here, every stored text escaped.

Each function takes what a page shows (proposals, a run's report as stored, a file's lines)
and the owner's locale, and returns `Html`; `trinho.web.app` reads the workspace and decides.
The review reads as the owner would say it: the riskiest change first, each with why, where
from and buttons named by what they do; no origin codes, no ids ahead of reasons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from trinho.condense.rules.loss import suspicious_sides
from trinho.condense.rules.reasons import stored_reason
from trinho.condense.rules.report import day_line
from trinho.facts.rules import Fact
from trinho.i18n import N_, t
from trinho.i18n.keys import BASIS_WORDS, GATE_CLASS, RUN_OUTCOME, SCREEN_DECISION
from trinho.proposals.format import Proposal
from trinho.review.bulk import affected_lines, bulk_covered
from trinho.review.render import effect_words, proposer_words, reason_words, where_from
from trinho.review.risk import Risk, review_order, risk_of
from trinho.search import Hit
from trinho.textnorm import show_hidden, show_hidden_lines
from trinho.web.html import Html, html, join, side_by_side

FONT = (
    '"Noto Sans","Segoe UI","Roboto","Helvetica Neue","Liberation Sans","DejaVu Sans",'
    "Arial,system-ui,sans-serif"
)
"""A proportional stack whose every member has Vietnamese's stacked marks (ế, ắ, ổ): memory
text is never set in a monospace font, which on common Linux desktops lacks them."""

CSS = """
body{font:17px/1.5 FONT;margin:0 auto;max-width:60rem;padding:.5rem .75rem;color:#1b1b1b}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin-bottom:.5rem}
nav a,main a{display:inline-flex;align-items:center;min-height:44px;min-width:44px}
form.find{display:flex;gap:.5rem;flex:1 1 14rem}input{font:inherit;min-height:44px;
box-sizing:border-box;padding:.3rem .6rem;border:1px solid #888;border-radius:6px}
input[type=search]{flex:1;min-width:0}
button,a.button{font:inherit;min-height:48px;padding:.5rem 1rem;border-radius:8px;
border:2px solid #555;background:#f4f4f4;color:#1b1b1b;cursor:pointer;text-decoration:none;
display:inline-flex;align-items:center;justify-content:center;box-sizing:border-box}
button.remove{background:#b3261e;border-color:#b3261e;color:#fff}
button.apply{background:#1f5fbf;border-color:#1f5fbf;color:#fff}
button.keep{background:#fff;border-color:#1e7a34;color:#1e7a34}
article{border:1px solid #bbb;border-radius:10px;padding:.75rem;margin:1rem 0;
scroll-margin-top:8px}
article.removes{border:3px solid #b3261e}article.replaces_owner,article.archives{border-width:2px;
border-color:#9a6700}
.badge{display:inline-block;font-weight:600;padding:.1rem .5rem;border-radius:4px;margin:0}
.removes .badge{background:#b3261e;color:#fff}.archives .badge,.replaces_owner .badge{
background:#ffe8a3}.edits .badge,.adds .badge{background:#e6eefb}
h1{margin:.4rem 0}h2{font-size:1.15rem;margin:.4rem 0}
.summary{background:#f4f6fb;border-radius:8px;padding:.5rem .75rem}.summary ul{margin:.3rem 0}
.diff{width:100%;border-collapse:collapse;table-layout:fixed}
.diff th{text-align:left;font-weight:600;font-size:.9rem}
.diff td{vertical-align:top;padding:.2rem .4rem;overflow-wrap:anywhere;white-space:pre-wrap}
.old{background:#fdecea}.new{background:#e7f6ea}.none{background:#f6f6f6}
del{background:#f5a3a3;text-decoration:line-through}ins{background:#8fd19e;text-decoration:none}
.gone{background:#fdecea;padding:.4rem .6rem;border-radius:6px;overflow-wrap:anywhere}
.gone.written{background:#e7f6ea}
ul.moved{list-style:none;padding:0;margin:.3rem 0}ul.moved li{background:#fff8e1;
margin:.2rem 0;padding:.3rem .6rem;border-radius:6px}
table.fact{border-collapse:collapse;width:100%}table.fact th{text-align:left;
font-weight:600;padding:.3rem .6rem .3rem 0;width:40%;vertical-align:top}
table.fact td{padding:.3rem .6rem;overflow-wrap:anywhere}
dl.about{margin:.6rem 0}dl.about dt{font-weight:600;margin-top:.3rem}dl.about dd{margin:0}
ul.sources{margin:.2rem 0;padding-left:1.1rem}
.decide{display:flex;flex-wrap:wrap;gap:12px;margin-top:.8rem;align-items:stretch}
.decide form{display:flex;flex-wrap:wrap;gap:8px;flex:1 1 16rem}
.decide form button{flex:1 1 auto}.decide input{flex:1 1 10rem}
pre,code,kbd,samp{font-family:FONT;white-space:pre-wrap;overflow-wrap:anywhere}
.lines div{white-space:pre-wrap;overflow-wrap:anywhere}.lines div:target,.turn:target{
background:#ffff99}.lines a{color:#666;display:inline-block;min-width:2.5rem;min-height:0}
.turn{border-left:4px solid #bbb;padding:.3rem .6rem;margin:.5rem 0}.turn.user{
border-color:#1f5fbf}
.notice{background:#e8f0fe;padding:.5rem .75rem;border-radius:6px}
ol.hits li{margin:.6rem 0}
@media (max-width:600px){
.diff tr.head{display:none}.diff tr,.diff td{display:block;width:auto}
.diff td.same+td.same{display:none}.diff td.none{display:none}
.diff td.old::before{content:"− "}.diff td.new::before{content:"+ "}
}
""".replace("FONT", FONT)


def layout(
    locale: str, title: str, body: Html, notices: Sequence[str] = (), query: str | None = ""
) -> Html:
    """Every page: the navigation with its search box (none when `query` is None: the search
    page has its own, holding the query), the notices, the body."""
    find = (
        html(
            '<form class="find" method="get" action="/search">'
            '<input type="search" name="q" value="{query}" aria-label="{search}">'
            "<button>{search}</button></form>",
            query=query,
            search=t(locale, "web.search"),
        )
        if query is not None
        else Html("")
    )
    nav = html(
        '<nav><a href="/">{queue}</a><a href="/runs">{runs}</a>'
        '<a href="/file?path=MEMORY.md">{memory}</a>'
        '<a href="/file?path=memory/archive.md">{archive}</a><a href="/facts">{facts}</a>'
        "{find}</nav>",
        queue=t(locale, "web.nav.queue"),
        runs=t(locale, "web.nav.runs"),
        memory=t(locale, "web.nav.memory"),
        archive=t(locale, "web.nav.archive"),
        facts=t(locale, "web.nav.facts"),
        find=find,
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


RISK_NAME: dict[Risk, str] = {
    Risk.REMOVES: "removes",
    Risk.ARCHIVES: "archives",
    Risk.REPLACES_OWNER: "replaces_owner",
    Risk.EDITS: "edits",
    Risk.ADDS: "adds",
}
"""A risk's name in the page: the card's class, and part of its badge's and summary's keys."""

RISK_BADGE: dict[Risk, str] = {
    Risk.REMOVES: N_("web.risk.removes"),
    Risk.ARCHIVES: N_("web.risk.archives"),
    Risk.REPLACES_OWNER: N_("web.risk.replaces_owner"),
    Risk.EDITS: N_("web.risk.edits"),
    Risk.ADDS: N_("web.risk.adds"),
}
RISK_COUNT: dict[Risk, str] = {
    Risk.REMOVES: N_("web.summary.removes"),
    Risk.ARCHIVES: N_("web.summary.archives"),
    Risk.REPLACES_OWNER: N_("web.summary.replaces_owner"),
    Risk.EDITS: N_("web.summary.edits"),
    Risk.ADDS: N_("web.summary.adds"),
}
SOURCE_KIND: dict[str, str] = {
    "note": N_("web.place.note"),
    "turn": N_("web.place.turn"),
    "memory": N_("web.place.memory"),
    "fact": N_("web.place.fact"),
}
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_LINE = re.compile(r"#L?(\d+)$")


def fact_name(key: object) -> str:
    """A fact's key as words (`do-uong-buoi-sang` -> `do uong buoi sang`)."""
    return str(key or "").replace("-", " ").replace("_", " ").strip()


def place_title(kind: str, path: str, locale: str) -> str:
    """Where a line lives, named for a person: the day of a note or a conversation, the
    long-term memory, its archive, a fact's name; never the file's path."""
    day = _DAY.search(path)
    shown = day.group(0) if day else ""
    if kind in ("turn", "conversation"):
        return t(locale, "web.place.turn_of", day=shown) if day else t(locale, "web.place.turn")
    if kind == "note":
        return t(locale, "web.place.note_of", day=shown) if day else t(locale, "web.place.note")
    if kind == "fact":
        stem = path.rsplit("/", 1)[-1].split("#", 1)[0].removesuffix(".md")
        return t(locale, "web.place.fact_of", name=fact_name(stem))
    if path.split("#", 1)[0] == "memory/archive.md":
        return t(locale, "web.place.archive")
    line = _LINE.search(path)
    if kind == "memory" and line:
        return t(locale, "web.place.memory_line", line=int(line.group(1)))
    return t(locale, SOURCE_KIND.get(kind, N_("web.place.memory")))


def _hidden(csrf: str) -> Html:
    return html('<input type="hidden" name="csrf" value="{csrf}">', csrf=csrf)


def entry_text(line: str) -> str:
    """A MEMORY.md entry without its list marker, for a list that draws its own."""
    return line[2:] if line.startswith(("- ", "* ")) else line


def _removed_line(old: str, locale: str) -> Html:
    return html(
        '<p>{head}</p><p class="gone"><del>{line}</del></p>',
        head=t(locale, "web.remove.head"),
        line=entry_text(old),
    )


def _archive_lines(p: Proposal, locale: str) -> Html:
    """The lines an archive moves, and that the archive keeps them under this week's heading
    (its own marker, a run id and a hash, is trinho's and not shown)."""
    moved = str(p.change.get("old") or "").split("\n")
    lines = [line for line in moved if line.strip()]
    items = join(html("<li>{line}</li>", line=entry_text(show_hidden(line))) for line in lines)
    heading = html("<p>{under}</p>", under=t(locale, "web.archive.under"))
    return html(
        '<p>{head}</p><ul class="moved">{items}</ul>{heading}',
        head=t(locale, "web.archive.moves", count=len(lines)),
        items=items,
        heading=heading,
    )


def _diff(old: str, new: str, locale: str) -> Html:
    head = html(
        '<tr class="head"><th>{a}</th><th>{b}</th></tr>',
        a=t(locale, "web.side.before"),
        b=t(locale, "web.side.after"),
    )

    def entries(text: str) -> str:
        return "\n".join(entry_text(line) for line in text.split("\n")) if text else ""

    return side_by_side(entries(old), entries(new), head)


def _fact_change(change: dict[str, Any], locale: str) -> Html:
    was, basis_then = change.get("current_value"), change.get("current_basis")
    if was is None:
        now_label, now = t(locale, "web.fact.now"), t(locale, "web.fact.nothing")
    elif basis_then == "user":
        now_label, now = t(locale, "web.fact.you_said"), show_hidden_lines(str(was))
    else:
        now_label, now = t(locale, "web.fact.now"), show_hidden_lines(str(was))
    new_key = N_("web.fact.inferred") if change.get("basis") == "inferred" else N_("web.fact.new")
    since = change.get("valid_from")
    new_label = t(locale, new_key)
    if since:
        new_label = t(locale, "web.fact.since", label=new_label, day=since)
    return html(
        '<table class="fact"><tr><th>{now_label}</th><td class="old">{now}</td></tr>'
        '<tr><th>{new_label}</th><td class="new">{new}</td></tr></table>',
        now_label=now_label,
        now=now,
        new_label=new_label,
        new=show_hidden_lines(str(change.get("value", ""))),
    )


def change_title(p: Proposal, locale: str, owner: str) -> str:
    """The card's heading: what the change does, in words."""
    risk, change = risk_of(p), p.change
    if p.kind == "fact":
        name = fact_name(change.get("key"))
        user = p.user_or(owner)
        key = {
            Risk.REPLACES_OWNER: N_("web.title.fact_owner"),
            Risk.ADDS: N_("web.title.fact_new"),
        }.get(risk, N_("web.title.fact"))
        title = t(locale, key, name=name)
        return title if user == owner else t(locale, "web.title.about", title=title, user=user)
    cls = change.get("class")
    if cls == "archive":
        count = len([x for x in str(change.get("old") or "").split("\n") if x.strip()])
        return t(locale, "web.title.archive", count=count)
    if cls == "suspicious":
        return t(locale, "web.title.rewrite")
    if risk is Risk.REMOVES:
        return t(locale, "web.title.remove")
    if risk is Risk.ADDS:
        return t(locale, "web.title.add")
    return t(locale, "web.title.edit")


def change_gist(p: Proposal, locale: str, owner: str) -> str:
    """The change in one line, for the notice after deciding it: the line it removes, the
    wording it writes, the value it saves; an archive or a rewrite by its title."""
    change = p.change
    if p.kind == "fact":
        return f"{fact_name(change.get('key'))}: {change.get('value')}"
    if p.kind == "memory" and change.get("class") not in ("archive", "suspicious"):
        line = change.get("new") if change.get("new") is not None else change.get("old")
        if isinstance(line, str) and "\n" not in line:
            return entry_text(show_hidden(line))
    return change_title(p, locale, owner)


def change_body(p: Proposal, locale: str) -> Html:
    """What the change would do, every line it touches shown."""
    change = p.change
    if p.kind == "fact":
        return _fact_change(change, locale)
    if p.kind != "memory":
        return html("<pre>{change}</pre>", change=change)
    cls = change.get("class")
    if cls == "archive":
        return _archive_lines(p, locale)
    if cls == "suspicious":
        removes, adds = suspicious_sides(change, locale)
        return _diff(show_hidden_lines(removes), show_hidden_lines(adds), locale)
    before, after = change.get("old"), change.get("new")
    if before is not None and after is None:
        return _removed_line(show_hidden_lines(str(before)), locale)
    return _diff(show_hidden_lines(str(before or "")), show_hidden_lines(str(after or "")), locale)


def card_reason(p: Proposal, locale: str) -> str:
    """Why the change waits, for a person, as the review reads it everywhere: an archive says
    how far the memory grew past what fits (not how many tokens), and nothing else."""
    return reason_words(p, locale)


def _sources(p: Proposal, locale: str) -> Html:
    drawn = where_from(p)
    if not drawn:
        return html("<p>{none}</p>", none=t(locale, "web.card.no_source"))
    items = join(
        html(
            '<li><a href="/source?ref={ref}">{place}</a>: “{text}”</li>',
            ref=quote(s.ref, safe="/:#"),
            place=place_title(s.kind, s.ref, locale),
            text=entry_text(show_hidden(s.text)),
        )
        for s in drawn
    )
    return html('<ul class="sources">{items}</ul>', items=items)


def about(p: Proposal, locale: str) -> Html:
    """Why, where from, and who proposed: what the owner weighs before deciding."""
    return html(
        '<dl class="about"><dt>{why_h}</dt><dd>{why}</dd><dt>{from_h}</dt><dd>{sources}</dd>'
        "<dt>{by_h}</dt><dd>{by}</dd></dl>",
        why_h=t(locale, "web.card.why"),
        why=card_reason(p, locale),
        from_h=t(locale, "web.card.from"),
        sources=_sources(p, locale),
        by_h=t(locale, "web.card.by"),
        by=proposer_words(p, locale),
    )


def _badge(p: Proposal, locale: str) -> Html:
    return html('<p class="badge">{text}</p>', text=t(locale, RISK_BADGE[risk_of(p)]))


def proposal_card(
    p: Proposal,
    locale: str,
    csrf: str,
    owner: str,
    notices: Sequence[str] = (),
    undo: Html | None = None,
) -> Html:
    """One waiting change: what it does, why, where from, and two buttons named by their
    effect; the id last and small. `notices` (the decision just made) and the link that takes
    it back (`undo`) open the card, since the page returns here after a decision."""
    approve, keep = effect_words(p, locale)
    risk = risk_of(p)
    danger = "remove" if risk in (Risk.REMOVES, Risk.ARCHIVES, Risk.REPLACES_OWNER) else "apply"
    shown = join(html('<p class="notice" role="status">{n}</p>', n=n) for n in notices)
    return html(
        '<article id="card-{id}" class="{risk}">{notices}{undo}{badge}<h2>{title}</h2>{body}'
        '{about}<div class="decide"><form method="post" action="/proposals/{id}/approve">{hidden}'
        '<input type="hidden" name="hash" value="{hash}">'
        '<button class="{danger}">{approve}</button></form>'
        '<form method="post" action="/proposals/{id}/reject">{hidden}'
        '<input type="hidden" name="hash" value="{hash}">'
        '<input name="reason" aria-label="{why}" placeholder="{why}">'
        '<button class="keep">{keep}</button></form></div>'
        "</article>",
        id=p.id,
        risk=RISK_NAME[risk],
        notices=shown,
        undo=undo or Html(""),
        badge=_badge(p, locale),
        title=change_title(p, locale, owner),
        body=change_body(p, locale),
        about=about(p, locale),
        hidden=_hidden(csrf),
        hash=p.content_hash,
        danger=danger,
        approve=approve,
        keep=keep,
        why=t(locale, "web.reason"),
    )


def summary(waiting: Sequence[Proposal], locale: str) -> Html:
    """The counts at the top: how many wait, and how many of each kind of risk."""
    counts: dict[Risk, int] = {}
    for p in waiting:
        counts[risk_of(p)] = counts.get(risk_of(p), 0) + 1
    items = join(
        html("<li>{text}</li>", text=t(locale, RISK_COUNT[risk], count=counts[risk]))
        for risk in sorted(counts)
    )
    bulk = bulk_covered(waiting, shown_lines(waiting))
    offer = (
        html(
            '<a class="button" href="/bulk">{label}</a>',
            label=t(locale, "web.bulk.offer", count=len(bulk)),
        )
        if bulk
        else Html("")
    )
    reject_all = html(
        '<a class="button" href="/reject-all">{label}</a>',
        label=t(locale, "web.reject_all.offer", count=len(waiting)),
    )
    return html(
        '<section class="summary"><p>{head}</p><ul>{items}</ul>'
        '<div class="decide">{offer}{reject_all}</div></section>',
        head=t(locale, "web.summary.head", count=len(waiting)),
        items=items,
        offer=offer,
        reject_all=reject_all,
    )


def shown_lines(waiting: Sequence[Proposal]) -> set[str]:
    """Every line the review (`/`) shows: all of each waiting change's, on one page."""
    return {line for p in waiting for line in affected_lines(p)}


def queue_page(
    waiting: Sequence[Proposal],
    locale: str,
    csrf: str,
    owner: str,
    at: str | None = None,
    notices: Sequence[str] = (),
    undo: str | None = None,
) -> Html:
    """`GET /`: what waits, the riskiest first, after a summary of counts; `notices` open the
    card `at` (the one the page returned to after a decision), with the link to that
    decision's receipt (`undo`), where it can be taken back; with no such card, on top."""
    link = (
        html(
            '<p><a href="/receipts/{rid}">{label}</a></p>',
            rid=undo,
            label=t(locale, "web.done.take_back"),
        )
        if undo is not None
        else Html("")
    )
    ids = {p.id for p in waiting}
    if not waiting:
        shown = join(html('<p class="notice" role="status">{n}</p>', n=n) for n in notices)
        return html(
            "{shown}{link}<p>{none}</p>", shown=shown, link=link, none=t(locale, "web.queue.none")
        )
    cards = join(
        proposal_card(
            p,
            locale,
            csrf,
            owner,
            notices if p.id == at else (),
            link if p.id == at else Html(""),
        )
        for p in review_order(waiting)
    )
    top = Html("") if at in ids else link
    return html("{top}{summary}{cards}", top=top, summary=summary(waiting, locale), cards=cards)


def next_card(order: Sequence[str], decided: str, pending: set[str]) -> str | None:
    """The card the page returns to after `decided`: the next one still waiting in the review
    order, else the nearest before it, else none."""
    if decided in order:
        i = order.index(decided)
        for pid in [*order[i + 1 :], *reversed(order[:i])]:
            if pid in pending:
                return pid
    return next((pid for pid in order if pid in pending), None)


def bulk_page(eligible: Sequence[Proposal], locale: str, csrf: str, owner: str) -> Html:
    """`GET /bulk`: the review step of a bulk approval. Every line each change touches is on
    the page, and the confirm button is bound to exactly these proposals (ids and content
    hashes): one added or changed since is not swept in."""
    if not eligible:
        return html(
            '<p>{none}</p><p><a href="/">{back}</a></p>',
            none=t(locale, "web.bulk.none"),
            back=t(locale, "web.back"),
        )
    items = join(shown_card(p, locale, owner) for p in eligible)
    return html(
        "<p>{intro}</p><p>{rule}</p>{items}"
        '<div class="decide"><form method="post" action="/bulk">{hidden}{bound}'
        '<button class="apply">{confirm}</button></form>'
        '<a class="button" href="/">{back}</a></div>',
        intro=t(locale, "web.bulk.intro", count=len(eligible)),
        rule=t(locale, "web.bulk.rule"),
        items=items,
        hidden=_hidden(csrf),
        bound=_bound(eligible),
        confirm=t(locale, "web.bulk.confirm", count=len(eligible)),
        back=t(locale, "web.back"),
    )


def shown_card(p: Proposal, locale: str, owner: str) -> Html:
    """A change as a bulk step shows it: its card, every line it touches, without buttons."""
    return html(
        '<article id="card-{id}" class="{risk}">{badge}<h2>{title}</h2>{body}{about}</article>',
        id=p.id,
        risk=RISK_NAME[risk_of(p)],
        badge=_badge(p, locale),
        title=change_title(p, locale, owner),
        body=change_body(p, locale),
        about=about(p, locale),
    )


def _bound(ps: Sequence[Proposal]) -> Html:
    """A bulk form's proposals, each as the content hash it was shown with."""
    return join(
        html('<input type="hidden" name="item" value="{id}:{hash}">', id=p.id, hash=p.content_hash)
        for p in ps
    )


def reject_all_page(
    waiting: Sequence[Proposal], locale: str, csrf: str, owner: str, minutes: int
) -> Html:
    """`GET /reject-all`: rejecting everything asks once more. It says what it does (nothing
    in memory changes; these changes are not made) over every change it covers, and its one
    button is bound to exactly these."""
    if not waiting:
        return html(
            '<p>{none}</p><p><a href="/">{back}</a></p>',
            none=t(locale, "web.queue.none"),
            back=t(locale, "web.back"),
        )
    return html(
        '<p class="notice">{effect}</p><div class="decide"><form method="post" '
        'action="/reject-all">{hidden}{bound}<button class="keep">{confirm}</button></form>'
        '<a class="button" href="/">{back}</a></div>{items}',
        effect=t(locale, "web.reject_all.effect", count=len(waiting), minutes=minutes),
        hidden=_hidden(csrf),
        bound=_bound(waiting),
        confirm=t(locale, "web.reject_all.confirm", count=len(waiting)),
        back=t(locale, "web.back"),
        items=join(shown_card(p, locale, owner) for p in waiting),
    )


@dataclass(frozen=True)
class Applied:
    """One line of a receipt: the change as it was shown, and what deciding it did."""

    proposal: Proposal
    ok: bool
    message: str


@dataclass(frozen=True)
class TakeBack:
    """A receipt's short undo: open (the form, and for how long), or done (what it took back)."""

    csrf: str
    rid: str
    minutes: int
    done: Sequence[Applied] | None = None
    rejected: bool = False
    """The decision was a rejection: taking it back puts its changes back in the review."""


def receipt_page(
    done: Sequence[Applied],
    locale: str,
    owner: str,
    take_back: TakeBack | None = None,
    rejected: bool = False,
    runs: Sequence[str] = (),
) -> Html:
    """What a decision did, exactly: each change applied or rejected (its lines), then each
    one that was not, with why; the decision's short undo above them, or, once used, what it
    took back. A change only its run's undo takes back (`runs`) links to that undo, which
    says what it takes back before it does."""
    applied = [a for a in done if a.ok]
    missed = [a for a in done if not a.ok]

    def item(a: Applied) -> Html:
        return html(
            '<article class="{risk}"><h2>{title}</h2>{body}<p>{message}</p></article>',
            risk=RISK_NAME[risk_of(a.proposal)],
            title=change_title(a.proposal, locale, owner),
            body=change_body(a.proposal, locale),
            message=a.message,
        )

    def section(key: str, some: Sequence[Applied]) -> list[Html]:
        return [html("<h2>{head}</h2>", head=t(locale, key, count=len(some))), *map(item, some)]

    parts: list[Html] = []
    if take_back is not None and take_back.done is not None:
        back = [a for a in take_back.done if a.ok]
        kept = [a for a in take_back.done if not a.ok]
        parts.extend(section(N_("web.receipt.taken_back"), back))
        if kept:
            parts.extend(section(N_("web.receipt.not_taken_back"), kept))
    else:
        key = N_("web.receipt.rejected") if rejected else N_("web.receipt.applied")
        parts.append(html("<p>{head}</p>", head=t(locale, key, count=len(applied))))
        if take_back is not None and applied:  # first, where the eye is after deciding
            parts.append(_take_back_form(take_back, len(applied), locale))
        parts.extend(
            html(
                '<p>{why}</p><p><a class="button" href="/runs/{run}/undo">{label}</a></p>',
                why=t(locale, "web.receipt.with_run"),
                run=run,
                label=t(locale, "web.receipt.undo_run"),
            )
            for run in runs
        )
        parts.extend(item(a) for a in applied)
        if missed:
            parts.extend(section(N_("web.receipt.missed"), missed))
    parts.append(
        html('<p><a class="button" href="/">{back}</a></p>', back=t(locale, "web.receipt.back"))
    )
    return join(parts)


def _take_back_form(take_back: TakeBack, count: int, locale: str) -> Html:
    return html(
        '<div class="decide"><form method="post" action="/receipts/{rid}/take-back">{hidden}'
        '<button class="keep">{label}</button></form></div><p>{note}</p>',
        rid=take_back.rid,
        hidden=_hidden(take_back.csrf),
        label=t(
            locale,
            N_("web.receipt.reopen") if take_back.rejected else N_("web.receipt.take_back"),
            count=count,
        ),
        note=t(locale, "web.receipt.take_back_note", minutes=take_back.minutes),
    )


def runs_page(runs: Sequence[tuple[str, dict[str, Any] | None]], locale: str) -> Html:
    """`GET /runs`: each condensation named by the days it read (its id is not a name)."""
    if not runs:
        return html("<p>{none}</p>", none=t(locale, "web.runs.none"))
    items = join(
        html('<li><a href="/runs/{id}">{title}</a></li>', id=r, title=run_title(r, report, locale))
        for r, report in runs
    )
    return html("<ul>{items}</ul>", items=items)


SPEAKER: dict[str, str] = {"user": N_("web.turn.you"), "assistant": N_("web.turn.assistant")}
SPEAKER_OTHER = N_("web.turn.other")


def run_title(run_id: str, report: dict[str, Any] | None, locale: str) -> str:
    """A run's page title: the days it read, not its id."""
    if report is not None and report.get("since") and report.get("today"):
        return t(locale, "web.run.title", since=report["since"], today=report["today"])
    return t(locale, "web.run.title", since=run_id, today="…")


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
            text=day_line(d.get("day"), d.get("notes"), d.get("turns"), d.get("used"), locale),
        ),
    )
    changes = _counted(report.get("changes", []), lambda c: _report_change(c, locale))
    screening = report.get("screening", {})
    verdicts = _counted(
        screening.get("verdicts", []),
        lambda s: html(
            "<li>{decision}: “{line}” {reason}</li>",
            decision=_screen(s.get("decision"), locale),
            line=entry_text(str(s.get("line") or "")),
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
            calls=t(locale, "count.times", count=int(model.get("calls", 0))),
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
        html('<div class="{cls}">{mark} {text}</div>', cls=side, mark=mark, text=entry_text(line))
        for side, mark in (("old", "−"), ("new", "+"))
        if change.get(side) is not None
        for line in str(change[side]).split("\n")
    )
    return html(
        "<li>{label} ({held}): {reason}{sides}</li>",
        label=label,
        held=held,
        reason=stored_reason(change, str(change.get("reason", "")), locale),
        sides=sides,
    )


def undo_page(
    run_id: str,
    locale: str,
    csrf: str,
    plan: Sequence[str] = (),
    headings: Sequence[str] = (),
) -> Html:
    """The confirmation: what the undo reverts, withdraws and keeps (`render_plan`'s lines),
    and the archive's section headings it takes away with their lines, before the one button
    that does it."""
    gone = (
        html(
            "<p>{note}</p>{lines}",
            note=t(locale, "web.run.undo_headings"),
            lines=join(html('<p class="gone">{h}</p>', h=h) for h in headings),
        )
        if headings
        else Html("")
    )
    return html(
        '<p>{ask}</p><div class="undo-plan">{plan}{gone}</div>'
        '<form method="post" action="/runs/{id}/undo">{hidden}'
        '<button>{yes}</button></form><p><a href="/runs/{id}">{back}</a></p>',
        ask=t(locale, "web.run.undo_confirm", run=run_id),
        plan=join(html("<p>{line}</p>", line=line) for line in plan),
        gone=gone,
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
                until=v.valid_to or t(locale, "web.fact.until_now"),
                value=v.value,
                basis=t(locale, BASIS_WORDS.get(v.basis, BASIS_WORDS["inferred"])),
            )
            for v in sorted(fact.versions(), key=lambda v: v.valid_from)
        )
        parts.append(
            html(
                '<section id="{key}"><h2>{name}</h2><ol>{items}</ol></section>',
                key=fact.key,
                name=fact_name(fact.key),
                items=items,
            )
        )
    return join(parts)


HIT_FLOOR = 0.35
"""A hit scoring under this share of the best one is padding (a line sharing one common word
with the query), not an answer: the page leaves it out."""


def worth_showing(hits: Sequence[Hit]) -> list[Hit]:
    """The hits that score within `HIT_FLOOR` of the best, in their order."""
    top = max((h.score for h in hits), default=0.0)
    return [h for h in hits if top <= 0 or h.score >= HIT_FLOOR * top]


_FACT_FILE = re.compile(r"users/([a-z0-9][a-z0-9_-]*)/facts/([a-z0-9][a-z0-9_-]*)\.md")


def fact_link(path: str) -> str | None:
    """A fact file's place in the facts page (`/facts?user=mai#the-thao`), else None."""
    found = _FACT_FILE.fullmatch(path)
    if found is None:
        return None
    return f"/facts?user={quote(found.group(1))}#{quote(found.group(2))}"


def hit_link(hit: Hit) -> str:
    """Where a hit opens: a conversation's turn rendered, a fact in the facts page, any other
    file at its line."""
    path = quote(hit.path, safe="/")
    fact = fact_link(hit.path) if hit.kind == "fact" else None
    if fact is not None:
        return fact
    if hit.kind == "conversation":
        return f"/turn?path={path}#T{hit.line}"
    return f"/file?path={path}#L{hit.line}"


def search_page(query: str, hits: Sequence[Hit], locale: str) -> Html:
    """`GET /search`: the hits named by where they are (a day's note, a conversation, a fact),
    the query kept in the box; an empty query says what to type."""
    box = html(
        '<form class="find" method="get" action="/search">'
        '<input type="search" name="q" value="{query}" aria-label="{label}">'
        "<button>{label}</button></form>",
        query=query,
        label=t(locale, "web.search"),
    )
    if not query.strip():
        return html("{box}<p>{hint}</p>", box=box, hint=t(locale, "web.search.empty"))
    shown = worth_showing(hits)
    if not shown:
        return html("{box}<p>{none}</p>", box=box, none=t(locale, "web.search.none", query=query))
    items = join(
        html(
            '<li><a href="{link}">{title}</a><br>{text}</li>',
            link=hit_link(h),
            title=place_title(h.kind, f"{h.path}#L{h.line}", locale),
            text=h.text[:300],
        )
        for h in shown
    )
    return html('{box}<ol class="hits">{items}</ol>', box=box, items=items)


@dataclass(frozen=True)
class SaidTurn:
    """A conversation turn as the page shows it: its line in the file, who, when, what."""

    line: int
    role: str
    at: str
    text: str


def turn_page(turns: Sequence[SaidTurn], locale: str) -> Html:
    """`GET /turn`: a day's conversation rendered, each turn anchored (`#T3`), never raw JSONL."""
    if not turns:
        return html("<p>{none}</p>", none=t(locale, "web.turn.none"))
    items = join(
        html(
            '<div id="T{line}" class="turn {role}"><b>{who}</b> <small>{at}</small>'
            "<p>{text}</p></div>",
            line=s.line,
            role="user" if s.role == "user" else "other",
            who=t(locale, SPEAKER.get(s.role, SPEAKER_OTHER), role=s.role),
            at=s.at,
            text=s.text,
        )
        for s in turns
    )
    return html("{items}", items=items)


def token_form(code: str, locale: str, owner: str | None = None) -> Html:
    """The access token's form of a login beyond loopback; it carries the link's code, and
    its owner on a store of many owners."""
    whose = (
        html('<input type="hidden" name="owner" value="{owner}">', owner=owner)
        if owner is not None
        else Html("")
    )
    return html(
        '<form method="post" action="/login"><input type="hidden" name="code" value="{code}">'
        "{whose}"
        '<input type="password" name="token" aria-label="{label}" placeholder="{label}">'
        "<button>{go}</button></form>",
        code=code,
        whose=whose,
        label=t(locale, "web.login.token"),
        go=t(locale, "web.login.go"),
    )
