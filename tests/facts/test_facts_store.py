"""The facts store: saving under the fact's lock, reading on a date, history and the index,
what it tells the workspace it wrote, concurrent writers and bad input."""

from __future__ import annotations

import multiprocessing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.errors import NotFound, TrinhoError
from trinho.facts import store
from trinho.facts.rules import ACTORS, BASES, ActorKind, Basis
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace, open_workspace

NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")
VALUES = ["Hà Nội", "Sài Gòn", "Đà Nẵng"]


def test_line_numbers_point_at_each_value(workspace: Workspace) -> None:
    store.save_fact(workspace, "home-city", "Hà Nội")
    store.save_fact(workspace, "home-city", "Sài Gòn", valid_from=date(2026, 12, 1), actor="owner")
    refs = list(store.iter_fact_versions(workspace))
    path = workspace.root / "users/owner/facts/home-city.md"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert [r.path for r in refs] == ["users/owner/facts/home-city.md"] * 2
    for ref in refs:
        assert lines[ref.line - 1].strip().lstrip("- ") == f'value: "{ref.value}"'
    assert [(r.value, r.current) for r in refs] == [("Hà Nội", True), ("Sài Gòn", False)]


def test_broken_file_does_not_hide_the_others(workspace: Workspace) -> None:
    store.save_fact(workspace, "home-city", "Hà Nội")
    store.save_fact(workspace, "pet", "mèo")
    broken = workspace.root / "users/owner/facts/pet.md"
    broken.write_text(broken.read_text().replace("basis: user", "basis: ???"), encoding="utf-8")
    (broken.parent / "junk.md").write_bytes(b"\xff\xfe")
    listing = store.list_facts(workspace)
    assert [f.key for f in listing.facts] == ["home-city"]
    assert [b.path for b in listing.broken] == [
        "users/owner/facts/junk.md",
        "users/owner/facts/pet.md",
    ]
    assert "pet.md:4" in listing.broken[1].error
    assert store.facts_index(workspace).lines == ("home-city: Hà Nội (user, since 2026-11-29)",)
    with pytest.raises(TrinhoError, match=r"pet\.md"):
        store.save_fact(workspace, "pet", "chó")
    assert "???" in broken.read_text()


# ---- the store --------------------------------------------------------------------------------


def test_what_was_true_on_a_date(workspace: Workspace) -> None:
    store.save_fact(workspace, "home-city", "Hà Nội", valid_from=date(2020, 1, 1))
    store.save_fact(workspace, "home-city", "Sài Gòn", valid_from=date(2026, 11, 29))
    store.save_fact(
        workspace, "home-city", "Tokyo", valid_from=date(2019, 1, 1), valid_to=date(2020, 1, 1)
    )
    assert store.fact_on(workspace, "home-city", date(2019, 6, 1)).value == "Tokyo"
    assert store.fact_on(workspace, "home-city", date(2024, 6, 1)).value == "Hà Nội"
    assert store.fact_on(workspace, "home-city", date(2026, 11, 28)).value == "Hà Nội"
    assert store.fact_on(workspace, "home-city").value == "Sài Gòn"
    with pytest.raises(NotFound, match="2018-01-01"):
        store.fact_on(workspace, "home-city", date(2018, 1, 1))
    values = [v.value for v in store.get_fact(workspace, "home-city").versions()]
    assert values == ["Tokyo", "Hà Nội", "Sài Gòn"]


def test_job_save_is_a_proposal_and_writes_no_fact(workspace: Workspace) -> None:
    saved = store.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:nightly")
    assert saved.outcome == "proposed" and saved.proposal is not None
    assert not store.fact_path(workspace, "home-city").exists()
    assert saved.proposal.change["value"] == "Huế"
    assert saved.proposal.origin == "job:nightly"


def test_expired_fact_leaves_the_index_and_stays_in_history(
    workspace: Workspace,
) -> None:
    store.save_fact(workspace, "trip", "Tokyo", valid_to=date(2026, 12, 5))
    store.save_fact(workspace, "home-city", "Hà Nội")
    assert [e.key for e in store.facts_index(workspace).entries] == ["home-city", "trip"]
    later = open_workspace(workspace.root, clock=lambda: NOW + timedelta(days=6))
    assert [e.key for e in store.facts_index(later).entries] == ["home-city"]
    assert [v.value for v in store.get_fact(later, "trip").versions()] == ["Tokyo"]


def test_index_is_ordered_and_capped_with_a_count(workspace: Workspace) -> None:
    for key in ["zeta", "alpha", "mu", "beta"]:
        store.save_fact(workspace, key, f"giá trị {key}")
    full = store.facts_index(workspace)
    assert [e.key for e in full.entries] == ["alpha", "beta", "mu", "zeta"]
    assert full.omitted == 0 and full.text == "\n".join(full.lines)
    capped = store.facts_index(workspace, max_chars=90)
    assert capped.omitted == 4 - len(capped.lines) > 0
    assert capped.lines == full.lines[: len(capped.lines)]
    assert capped.text.endswith(f"({capped.omitted} more facts not shown)")
    assert len(capped.text) <= 90


def test_index_sees_hand_edits_after_it_was_built(workspace: Workspace) -> None:
    store.save_fact(workspace, "pet", "mèo")
    assert store.facts_index(workspace).entries[0].value == "mèo"
    path = store.fact_path(workspace, "pet")
    path.write_text(path.read_text(encoding="utf-8").replace("mèo", "con chó"), encoding="utf-8")
    assert store.facts_index(workspace).entries[0].value == "con chó"
    store.save_fact(workspace, "pet", "cá")
    assert store.facts_index(workspace).entries[0].value == "cá"


def test_index_speaks_the_owner_locale(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "vi", timezone="UTC", locale="vi", clock=lambda: NOW).workspace
    store.save_fact(ws, "que-quan", "Huế\ntrên sông Hương")
    store.save_fact(ws, "z", "một giá trị khá dài " * 3)
    index = store.facts_index(ws, max_chars=100)
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
    store.save_fact(ws, "home-city", "Hà Nội")
    (ref,) = store.iter_fact_versions(ws)
    assert ref.path == str(shared / "owner/facts/home-city.md")


def test_values_are_nfc(workspace: Workspace) -> None:
    decomposed = "Ha\u0300 No\u0323\u0302i"
    store.save_fact(workspace, "home-city", decomposed)
    assert store.fact_on(workspace, "home-city").value == "Hà Nội"
    again = store.save_fact(workspace, "home-city", "Hà Nội")
    assert again.outcome == "unchanged"


def test_every_write_is_told_to_the_workspace_and_only_writes(tmp_path: Path) -> None:
    """The store tells `ws.written` what it wrote (the shell hooks search there), nothing more."""
    seen: list[list[str]] = []

    def hook(_: Workspace, paths: object) -> None:
        seen.append(list(paths))  # type: ignore[call-overload]

    ws = init_workspace(tmp_path / "ws", timezone="UTC", clock=lambda: NOW, on_written=hook)
    workspace = ws.workspace
    written = ["users/owner/facts/home-city.md"]
    store.save_fact(workspace, "home-city", "Hà Nội")
    assert seen == [written]
    store.save_fact(workspace, "home-city", "Hà Nội", basis="inferred")
    saved = store.save_fact(workspace, "home-city", "Huế", basis="inferred")
    assert saved.outcome == "proposed" and saved.proposal is not None
    assert seen == [written]
    proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert seen == [written, written]
    assert store.fact_on(workspace, "home-city").value == "Huế"


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
        store.save_fact(workspace, key, value, user=user, valid_from=start, valid_to=end)
    after = sorted(p.relative_to(workspace.root) for p in workspace.root.rglob("*"))
    assert [p for p in after if "locks" not in str(p)] == [
        p for p in before if "locks" not in str(p)
    ]


# ---- two processes at once --------------------------------------------------------------------


def _save_in_process(root: str, value: str, actor: str, go: object) -> None:
    go.wait()  # type: ignore[attr-defined]
    ws = open_workspace(root, clock=lambda: NOW)
    store.save_fact(ws, "home-city", value, actor=actor, origin="job:nightly")  # type: ignore[arg-type]


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


@pytest.mark.slow
def test_concurrent_saves_lose_no_update(workspace: Workspace) -> None:
    values = [f"thành phố {i}" for i in range(6)]
    _race(workspace.root, values, "chat")
    fact = store.get_fact(workspace, "home-city")
    assert sorted(v.value for v in fact.versions()) == sorted(values)
    assert len(fact.history) == 5


@pytest.mark.slow
def test_concurrent_identical_job_saves_make_one_proposal(workspace: Workspace) -> None:
    _race(workspace.root, ["Huế"] * 4, "job")
    listing = proposals.list_proposals(workspace)
    assert len(listing.proposals) == 1 and listing.broken == []


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(ACTORS), st.sampled_from(BASES), st.sampled_from(VALUES)),
        min_size=1,
        max_size=8,
    )
)
def test_store_random_saves_job_changes_only_propose(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[ActorKind, Basis, str]]
) -> None:
    root = tmp_path_factory.mktemp("ws")
    ws = init_workspace(root, timezone="UTC", clock=lambda: NOW).workspace
    path = store.fact_path(ws, "home-city")
    for actor, basis, value in steps:
        before = path.read_bytes() if path.exists() else None
        saved = store.save_fact(ws, "home-city", value, actor=actor, basis=basis)
        after = path.read_bytes() if path.exists() else None
        if actor == "job":
            assert after == before
            assert saved.outcome in ("proposed", "unchanged")
            if saved.outcome == "proposed":
                assert saved.proposal is not None
                assert proposals.get_proposal(ws, saved.proposal.id).change["value"] == value
        if saved.outcome in ("proposed", "unchanged") and saved.fact is not None:
            head = store.get_fact(ws, "home-city").head
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
    fact = store.get_fact(open_workspace(roots[0], clock=lambda: NOW), "home-city")
    assert sorted(v.value for v in fact.versions()) == sorted(values)
