"""Facts: the reconciliation table row by row, its invariants under random saves, the file format,
reading (on a date, history, index), concurrent writers and bad input."""

from __future__ import annotations

import multiprocessing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho import facts, proposals
from trinho.errors import NotFound, TrinhoError
from trinho.facts import Fact, FactConflict, FactVersion, Incoming, reconcile
from trinho.workspace import Workspace, init_workspace, open_workspace

TODAY = date(2026, 11, 29)
NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")


def version(
    value: str,
    basis: facts.Basis = "user",
    start: date = date(2026, 1, 1),
    end: date | None = None,
    at: datetime = NOW - timedelta(days=30),
) -> FactVersion:
    return FactVersion(value, basis, start, end, at, "chat")


def incoming(
    value: str,
    basis: facts.Basis = "user",
    start: date | None = None,
    end: date | None = None,
) -> Incoming:
    return Incoming("home-city", value, basis, NOW, "chat", start, end)


# ---- one test per row of the table ------------------------------------------------------------


@pytest.mark.parametrize("basis", facts.BASES)
def test_row_none_owner_present_creates(basis: facts.Basis) -> None:
    decision = reconcile(None, incoming("Hà Nội", basis), "chat", TODAY)
    assert decision.outcome == "created"
    assert decision.after is not None and decision.after.head is not None
    head = decision.after.head
    assert (head.value, head.basis, head.valid_from, head.valid_to) == (
        "Hà Nội",
        basis,
        TODAY,
        None,
    )
    assert decision.after.history == ()


@pytest.mark.parametrize("actor", facts.ACTORS)
@pytest.mark.parametrize("old_basis", facts.BASES)
@pytest.mark.parametrize("new_basis", facts.BASES)
def test_row_same_value_is_unchanged(
    actor: facts.Actor, old_basis: facts.Basis, new_basis: facts.Basis
) -> None:
    current = Fact("home-city", version("Hà Nội", old_basis))
    decision = reconcile(current, incoming("Hà Nội", new_basis), actor, TODAY)
    assert decision.outcome == "unchanged"
    if decision.after is not None:
        # only the owner's word, in a chat, refreshes: basis user, confirmed today
        assert actor == "chat" and new_basis == "user"
        assert decision.after.head == FactVersion(
            "Hà Nội", "user", date(2026, 1, 1), None, NOW - timedelta(days=30), "chat", TODAY
        )
        assert decision.after.history == ()


@pytest.mark.parametrize("old_basis", facts.BASES)
def test_row_user_value_supersedes_any_basis(old_basis: facts.Basis) -> None:
    current = Fact("home-city", version("Hà Nội", old_basis))
    decision = reconcile(current, incoming("Sài Gòn", "user"), "chat", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None and decision.after.head is not None
    assert decision.after.head.value == "Sài Gòn"
    assert decision.after.head.valid_from == TODAY
    (old,) = decision.after.history
    assert (old.value, old.basis, old.valid_to) == ("Hà Nội", old_basis, TODAY)


def test_row_inferred_supersedes_inferred() -> None:
    current = Fact("home-city", version("Hà Nội", "inferred"))
    decision = reconcile(current, incoming("Huế", "inferred"), "chat", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None and decision.after.head is not None
    assert (decision.after.head.value, decision.after.head.basis) == ("Huế", "inferred")
    assert decision.after.history[0].valid_to == decision.after.head.valid_from


def test_row_inferred_against_user_is_a_proposal_and_touches_nothing() -> None:
    current = Fact("home-city", version("Hà Nội", "user"))
    decision = reconcile(current, incoming("Huế", "inferred"), "chat", TODAY)
    assert decision.outcome == "proposed"
    assert decision.proposal_reason == "contradicts_user"
    assert decision.after is None


@pytest.mark.parametrize("current", [None, Fact("home-city", version("Hà Nội", "inferred"))])
@pytest.mark.parametrize("basis", facts.BASES)
@pytest.mark.parametrize("end", [None, date(2026, 11, 1)])
def test_row_unattended_job_always_proposes(
    current: Fact | None, basis: facts.Basis, end: date | None
) -> None:
    start = date(2026, 10, 1) if end else None
    decision = reconcile(current, incoming("Huế", basis, start, end), "job", TODAY)
    assert decision.outcome == "proposed"
    assert decision.proposal_reason == "job"
    assert decision.after is None


@pytest.mark.parametrize("basis", facts.BASES)
def test_row_past_valid_to_goes_to_history_only(basis: facts.Basis) -> None:
    current = Fact("home-city", version("Sài Gòn", "user", start=date(2026, 6, 1)))
    past = incoming("Tokyo", basis, date(2026, 1, 1), date(2026, 3, 1))
    decision = reconcile(current, past, "chat", TODAY)
    assert decision.outcome == "historical"
    assert decision.after is not None
    assert decision.after.head == current.head
    assert [v.value for v in decision.after.history] == ["Tokyo"]
    assert reconcile(None, past, "chat", TODAY).after == Fact(
        "home-city", None, (FactVersion("Tokyo", basis, *_days(past), NOW, "chat"),)
    )


def _days(item: Incoming) -> tuple[date, date | None]:
    assert item.valid_from is not None
    return item.valid_from, item.valid_to


# ---- validity and the dates -------------------------------------------------------------------


def test_ended_version_is_not_current_and_a_new_value_is_created() -> None:
    trip = Fact("trip", version("Tokyo", "user", start=date(2026, 11, 1), end=date(2026, 12, 5)))
    assert trip.value_on(date(2026, 12, 4)) is not None
    assert trip.value_on(date(2026, 12, 5)) is None
    assert trip.live_head(date(2026, 12, 5)) is None
    decision = reconcile(trip, incoming("Hà Nội"), "chat", date(2026, 12, 6))
    assert decision.outcome == "created"
    assert decision.after is not None
    assert [v.value for v in decision.after.versions()] == ["Tokyo", "Hà Nội"]


def test_value_until_a_future_day_then_superseded_keeps_its_end() -> None:
    trip = Fact("trip", version("Tokyo", start=date(2026, 11, 1), end=date(2026, 12, 5)))
    decision = reconcile(trip, incoming("Osaka", start=date(2026, 12, 10)), "chat", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None
    assert decision.after.history[0].valid_to == date(2026, 12, 5)
    assert decision.after.value_on(date(2026, 12, 7)) is None


def test_conflicting_dates_raise_and_name_the_fact() -> None:
    current = Fact("home-city", version("Sài Gòn", start=date(2026, 6, 1)))
    with pytest.raises(FactConflict, match="home-city"):
        reconcile(current, incoming("Huế", start=date(2026, 5, 1)), "chat", TODAY)
    with pytest.raises(FactConflict, match="overlaps"):
        reconcile(
            current, incoming("Huế", "user", date(2026, 5, 1), date(2026, 7, 1)), "chat", TODAY
        )
    with pytest.raises(FactConflict, match="after valid_from"):
        reconcile(current, incoming("Huế", end=TODAY), "chat", TODAY)


# ---- random sequences of saves: the invariants ------------------------------------------------

VALUES = ["Hà Nội", "Sài Gòn", "Đà Nẵng"]
step = st.tuples(
    st.integers(0, 3),  # days the clock moves first
    st.sampled_from(facts.ACTORS),
    st.sampled_from(facts.BASES),
    st.sampled_from(VALUES),
    st.one_of(st.none(), st.integers(-6, 3)),  # valid_from offset from today
    st.one_of(st.none(), st.integers(-3, 8)),  # valid_to offset from today
)


def _ident(v: FactVersion) -> tuple[str, date, datetime]:
    return (v.value, v.valid_from, v.recorded_at)


@settings(max_examples=300, deadline=None)
@given(st.lists(step, min_size=1, max_size=25))
def test_random_saves_keep_every_invariant(
    steps: list[tuple[int, facts.Actor, facts.Basis, str, int | None, int | None]],
) -> None:
    fact: Fact | None = None
    today, moment = TODAY, NOW
    for days, actor, basis, value, start_off, end_off in steps:
        today += timedelta(days=days)
        moment += timedelta(days=days, minutes=1)
        start = today + timedelta(days=start_off) if start_off is not None else None
        end = today + timedelta(days=end_off) if end_off is not None else None
        item = Incoming("home-city", value, basis, moment, actor, start, end)
        try:
            decision = reconcile(fact, item, actor, today)
        except FactConflict:
            continue
        before = fact.versions() if fact else []
        live_before = fact.live_head(today) if fact else None
        if actor == "job":
            assert decision.outcome in ("proposed", "unchanged")
            assert decision.after is None
        if decision.after is None:
            continue
        after = decision.after
        versions = after.versions()
        # exactly one version holds on any day: no two intervals overlap, history included
        for i, a in enumerate(versions):
            for b in versions[i + 1 :]:
                assert not facts._overlaps(a, b), (a, b)
        assert all(v.valid_to is not None for v in after.history)
        # nothing recorded is ever lost: every earlier version is still there
        assert {_ident(v) for v in before} <= {_ident(v) for v in versions}
        # a user value is never replaced by an inferred one
        if live_before is not None and live_before.basis == "user":
            live_after = after.live_head(today)
            assert live_after is not None
            assert live_after.basis == "user"
        # what the owner just said is what holds on its first day
        if decision.outcome in ("created", "superseded"):
            assert after.head is not None and after.head.value == value
            assert after.value_on(after.head.valid_from) == after.head
        fact = after


# ---- the file format --------------------------------------------------------------------------

text_values = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from('\n\t"\\:-#đĐ'),
    min_size=1,
    max_size=40,
)
days = st.dates(date(1990, 1, 1), date(2090, 1, 1))
moments = st.datetimes(datetime(2000, 1, 1), datetime(2080, 1, 1)).map(
    lambda d: d.replace(microsecond=0).astimezone()
)


@st.composite
def versions_st(draw: st.DrawFn, ended: bool) -> FactVersion:
    start = draw(days)
    length = draw(st.integers(0, 400))
    end = start + timedelta(days=length) if ended or draw(st.booleans()) else None
    return FactVersion(
        value=draw(text_values),
        basis=draw(st.sampled_from(facts.BASES)),
        valid_from=start,
        valid_to=end,
        recorded_at=draw(moments),
        source=draw(text_values),
        confirmed_on=draw(st.none() | days),
    )


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(st.none(), versions_st(ended=False)),
    st.lists(versions_st(ended=True), max_size=4),
)
def test_render_parse_round_trip(head: FactVersion | None, history: list[FactVersion]) -> None:
    fact = Fact("home-city", head, tuple(history))
    parsed = facts.parse_fact(facts.render_fact(fact), "x.md", expected_key="home-city")
    assert parsed == fact


def test_line_numbers_point_at_each_value(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    facts.save_fact(workspace, "home-city", "Sài Gòn", valid_from=date(2026, 12, 1))
    refs = list(facts.iter_fact_versions(workspace))
    path = workspace.root / "users/owner/facts/home-city.md"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert [r.path for r in refs] == ["users/owner/facts/home-city.md"] * 2
    for ref in refs:
        assert lines[ref.line - 1].strip().lstrip("- ") == f'value: "{ref.value}"'
    assert [(r.value, r.current) for r in refs] == [("Hà Nội", True), ("Sài Gòn", False)]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("key: x\n", ":1:"),
        ("---\nkey: home-city\n", "not closed"),
        ("---\nkey: other\n---\n", ":2:"),
        (
            '---\nkey: home-city\nvalue: "a"\nbasis: maybe\nvalid_from: 2026-01-01\n'
            'recorded_at: 2026-01-01T00:00:00+07:00\nsource: "x"\n---\n',
            ":4: basis",
        ),
        ('---\nkey: home-city\nvalue: "a"\n---\n', "no 'basis'"),
        ("---\nkey: home-city\nvalue: a\n---\n", ":3:"),
        (
            '---\nkey: home-city\n---\n- value: "a"\n  basis: user\n  valid_from: 2026-02-30\n'
            '  valid_to: 2026-03-01\n  recorded_at: 2026-01-01T00:00:00+07:00\n  source: "x"\n',
            ":6:",
        ),
        ("---\nkey: home-city\n---\nsome prose\n", ":4:"),
        ('---\nkey: home-city\nvalue: "a"\nvalue: "b"\n---\n', "twice"),
    ],
)
def test_broken_file_names_file_and_line(text: str, where: str) -> None:
    with pytest.raises(TrinhoError) as caught:
        facts.parse_fact(text, "users/owner/facts/home-city.md", expected_key="home-city")
    assert str(caught.value).startswith("users/owner/facts/home-city.md")
    assert where in str(caught.value)


def test_broken_file_does_not_hide_the_others(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    facts.save_fact(workspace, "pet", "mèo")
    broken = workspace.root / "users/owner/facts/pet.md"
    broken.write_text(broken.read_text().replace("basis: user", "basis: ???"), encoding="utf-8")
    (broken.parent / "junk.md").write_bytes(b"\xff\xfe")
    listing = facts.list_facts(workspace)
    assert [f.key for f in listing.facts] == ["home-city"]
    assert [b.path for b in listing.broken] == [
        "users/owner/facts/junk.md",
        "users/owner/facts/pet.md",
    ]
    assert "pet.md:4" in listing.broken[1].error
    assert facts.facts_index(workspace).lines == ("home-city: Hà Nội (user, since 2026-11-29)",)
    with pytest.raises(TrinhoError, match=r"pet\.md"):
        facts.save_fact(workspace, "pet", "chó")
    assert "???" in broken.read_text()


# ---- the store --------------------------------------------------------------------------------


def test_what_was_true_on_a_date(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội", valid_from=date(2020, 1, 1))
    facts.save_fact(workspace, "home-city", "Sài Gòn", valid_from=date(2026, 11, 29))
    facts.save_fact(
        workspace, "home-city", "Tokyo", valid_from=date(2019, 1, 1), valid_to=date(2020, 1, 1)
    )
    assert facts.fact_on(workspace, "home-city", date(2019, 6, 1)).value == "Tokyo"
    assert facts.fact_on(workspace, "home-city", date(2024, 6, 1)).value == "Hà Nội"
    assert facts.fact_on(workspace, "home-city", date(2026, 11, 28)).value == "Hà Nội"
    assert facts.fact_on(workspace, "home-city").value == "Sài Gòn"
    with pytest.raises(NotFound, match="2018-01-01"):
        facts.fact_on(workspace, "home-city", date(2018, 1, 1))
    values = [v.value for v in facts.get_fact(workspace, "home-city").versions()]
    assert values == ["Tokyo", "Hà Nội", "Sài Gòn"]


def test_job_save_is_a_proposal_and_writes_no_fact(workspace: Workspace) -> None:
    saved = facts.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:nightly")
    assert saved.outcome == "proposed" and saved.proposal is not None
    assert not facts.fact_path(workspace, "home-city").exists()
    assert saved.proposal.change["value"] == "Huế"
    assert saved.proposal.origin == "job:nightly"


def test_expired_fact_leaves_the_index_and_stays_in_history(
    workspace: Workspace,
) -> None:
    facts.save_fact(workspace, "trip", "Tokyo", valid_to=date(2026, 12, 5))
    facts.save_fact(workspace, "home-city", "Hà Nội")
    assert [e.key for e in facts.facts_index(workspace).entries] == ["home-city", "trip"]
    later = open_workspace(workspace.root, clock=lambda: NOW + timedelta(days=6))
    assert [e.key for e in facts.facts_index(later).entries] == ["home-city"]
    assert [v.value for v in facts.get_fact(later, "trip").versions()] == ["Tokyo"]


def test_index_is_ordered_and_capped_with_a_count(workspace: Workspace) -> None:
    for key in ["zeta", "alpha", "mu", "beta"]:
        facts.save_fact(workspace, key, f"giá trị {key}")
    full = facts.facts_index(workspace)
    assert [e.key for e in full.entries] == ["alpha", "beta", "mu", "zeta"]
    assert full.omitted == 0 and full.text == "\n".join(full.lines)
    capped = facts.facts_index(workspace, max_chars=90)
    assert capped.omitted == 4 - len(capped.lines) > 0
    assert capped.lines == full.lines[: len(capped.lines)]
    assert capped.text.endswith(f"({capped.omitted} more facts not shown)")
    assert len(capped.text) <= 90


def test_index_sees_hand_edits_after_it_was_built(workspace: Workspace) -> None:
    facts.save_fact(workspace, "pet", "mèo")
    assert facts.facts_index(workspace).entries[0].value == "mèo"
    path = facts.fact_path(workspace, "pet")
    path.write_text(path.read_text(encoding="utf-8").replace("mèo", "con chó"), encoding="utf-8")
    assert facts.facts_index(workspace).entries[0].value == "con chó"
    facts.save_fact(workspace, "pet", "cá")
    assert facts.facts_index(workspace).entries[0].value == "cá"


def test_index_speaks_the_owner_locale(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "vi", timezone="UTC", locale="vi", clock=lambda: NOW).workspace
    facts.save_fact(ws, "que-quan", "Huế\ntrên sông Hương")
    facts.save_fact(ws, "z", "một giá trị khá dài " * 3)
    index = facts.facts_index(ws, max_chars=100)
    assert index.lines == ("que-quan: Huế trên sông Hương (user, từ 2026-11-29)",)
    assert index.text.endswith("(còn 1 dữ kiện khác không hiển thị)")


def test_users_folder_outside_the_workspace_gives_absolute_paths(
    tmp_path: Path,
) -> None:
    ws = init_workspace(tmp_path / "a", timezone="UTC", clock=lambda: NOW).workspace
    config = ws.root / ".trinho/config.toml"
    shared = tmp_path / "shared-users"
    config.write_text(
        config.read_text().replace('users = "users"', f'users = "{shared}"'), encoding="utf-8"
    )
    ws = open_workspace(ws.root, clock=lambda: NOW)
    facts.save_fact(ws, "home-city", "Hà Nội")
    (ref,) = facts.iter_fact_versions(ws)
    assert ref.path == str(shared / "owner/facts/home-city.md")


def test_values_are_nfc(workspace: Workspace) -> None:
    decomposed = "Ha\u0300 No\u0323\u0302i"
    facts.save_fact(workspace, "home-city", decomposed)
    assert facts.fact_on(workspace, "home-city").value == "Hà Nội"
    again = facts.save_fact(workspace, "home-city", "Hà Nội")
    assert again.outcome == "unchanged"


# ---- bad input: clear errors, nothing written -------------------------------------------------


@pytest.mark.parametrize(
    ("key", "user", "value", "start", "match"),
    [
        ("a/b", None, "x", None, "fact key"),
        ("..", None, "x", None, "fact key"),
        ("a\x00b", None, "x", None, "fact key"),
        ("k", "../etc", "x", None, "user id"),
        ("k", "a/b", "x", None, "user id"),
        ("k", "a\nb", "x", None, "user id"),
        ("k", None, "x" * (3 * 1024 * 1024), None, "limit is 16384"),
        ("k", None, "   ", None, "empty"),
        ("k", None, "bell\x07", None, "U\\+0007"),
        ("k", None, "x", date(2026, 12, 1), None),
    ],
)
def test_bad_input_is_refused_and_nothing_written(
    workspace: Workspace,
    key: str,
    user: str | None,
    value: str,
    start: date | None,
    match: str | None,
) -> None:
    before = sorted(p.relative_to(workspace.root) for p in workspace.root.rglob("*"))
    end = date(2026, 11, 30) if start else None
    with pytest.raises(TrinhoError, match=match or "after valid_from"):
        facts.save_fact(workspace, key, value, user=user, valid_from=start, valid_to=end)
    after = sorted(p.relative_to(workspace.root) for p in workspace.root.rglob("*"))
    assert [p for p in after if "locks" not in str(p)] == [
        p for p in before if "locks" not in str(p)
    ]


# ---- two processes at once --------------------------------------------------------------------


def _save_in_process(root: str, value: str, actor: str, go: object) -> None:
    go.wait()  # type: ignore[attr-defined]
    ws = open_workspace(root, clock=lambda: NOW)
    facts.save_fact(ws, "home-city", value, actor=actor, origin="job:nightly")  # type: ignore[arg-type]


def _race(root: Path | list[Path], values: list[str], actor: str) -> None:
    roots = root if isinstance(root, list) else [root]
    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    workers = [
        ctx.Process(target=_save_in_process, args=(str(roots[i % len(roots)]), value, actor, go))
        for i, value in enumerate(values)
    ]
    for worker in workers:
        worker.start()
    go.set()
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0


def test_concurrent_saves_lose_no_update(workspace: Workspace) -> None:
    values = [f"thành phố {i}" for i in range(6)]
    _race(workspace.root, values, "chat")
    fact = facts.get_fact(workspace, "home-city")
    assert sorted(v.value for v in fact.versions()) == sorted(values)
    assert len(fact.history) == 5


def test_concurrent_identical_job_saves_make_one_proposal(workspace: Workspace) -> None:
    _race(workspace.root, ["Huế"] * 4, "job")
    listing = proposals.list_proposals(workspace)
    assert len(listing.proposals) == 1 and listing.broken == []


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(facts.ACTORS), st.sampled_from(facts.BASES), st.sampled_from(VALUES)
        ),
        min_size=1,
        max_size=8,
    )
)
def test_store_random_saves_job_changes_only_propose(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[facts.Actor, facts.Basis, str]]
) -> None:
    root = tmp_path_factory.mktemp("ws")
    ws = init_workspace(root, timezone="UTC", clock=lambda: NOW).workspace
    path = facts.fact_path(ws, "home-city")
    for actor, basis, value in steps:
        before = path.read_bytes() if path.exists() else None
        saved = facts.save_fact(ws, "home-city", value, actor=actor, basis=basis)
        after = path.read_bytes() if path.exists() else None
        if actor == "job":
            assert after == before
            assert saved.outcome in ("proposed", "unchanged")
            if saved.outcome == "proposed":
                assert saved.proposal is not None
                assert proposals.get_proposal(ws, saved.proposal.id).change["value"] == value
        if saved.outcome in ("proposed", "unchanged") and saved.fact is not None:
            head = facts.get_fact(ws, "home-city").head
            assert head is not None and head.value == saved.fact.head.value  # type: ignore[union-attr]
    pending = proposals.list_proposals(ws, include_decided=False).proposals
    assert len({p.content_hash for p in pending}) == len(pending)


def test_workspaces_sharing_users_lose_no_update(tmp_path: Path) -> None:
    shared = tmp_path / "shared-users"
    roots = []
    for name in ("agent-a", "agent-b"):
        ws = init_workspace(tmp_path / name, timezone="UTC", clock=lambda: NOW).workspace
        config = ws.root / ".trinho/config.toml"
        text = config.read_text(encoding="utf-8").replace('users = "users"', f'users = "{shared}"')
        config.write_text(text, encoding="utf-8")
        roots.append(ws.root)
    values = [f"giá trị {i}" for i in range(6)]
    _race(roots, values, "chat")
    fact = facts.get_fact(open_workspace(roots[0], clock=lambda: NOW), "home-city")
    assert sorted(v.value for v in fact.versions()) == sorted(values)
