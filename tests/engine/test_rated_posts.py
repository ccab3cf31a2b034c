"""``benchmarks/rated_posts.py``: every post of a corpus as rated from the
page, written so that two versions of the engine can be compared page by
page, and the comparison itself."""

from __future__ import annotations

import json

import pytest

from helpers import benchmark_script
from uschess.apps.audit.verdict import VERDICTS


def _script():
    return benchmark_script("rated_posts")


def _write(path, pages: list[dict]) -> None:
    path.write_text("".join(json.dumps(p) + "\n" for p in pages), encoding="utf-8")


def test_compare_names_moved_posts_reworded_floors_and_refusals(tmp_path, capsys):
    mod = _script()
    post = ["OPEN", "OTBR", 1, "1800.0", 53, "1500", "established floor: highest 1799.06 - 200"]
    same = {"page": "same", "posts": [post]}
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [same, same | {"page": "floor"}, {"page": "read", "refused": "no date"}])
    _write(b, [same,
               {"page": "floor", "posts": [post[:5] + ["1600", "highest 1800.00 - 200"]]},
               {"page": "read", "posts": [post]}])
    assert mod.compare(a, b) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "floor 'OPEN' OTBR 1 differs: ['1800.0', 53, '1500', " \
        "'established floor: highest 1799.06 - 200'] -> ['1800.0', 53, '1600', " \
        "'highest 1800.00 - 200']"
    assert out[1] == "read: no date -> rated"
    assert out[-1] == "2 of 3 pages differ; of 3 posts, 1 differ in value (a rating, games or " \
        "floor; an audit's verdict, values or causes), 0 only in the wording of a floor's reason"
    _write(b, [same, same | {"page": "floor"}, {"page": "read", "refused": "no date"}])
    assert mod.compare(a, b) == 0
    reworded = {"page": "same", "posts": [post[:6] + ["highest 1799 - 200"]]}
    _write(b, [reworded, same | {"page": "floor"}, {"page": "read", "refused": "no date"}])
    assert mod.compare(a, b) == 1
    assert capsys.readouterr().out.splitlines()[-1].endswith(
        "causes), 1 only in the wording of a floor's reason")
    _write(b, [same])  # a sample of a's pages: the others are left out with --common
    assert mod.compare(a, b) == 1
    capsys.readouterr()
    assert mod.compare(a, b, common=True) == 0
    assert capsys.readouterr().out.startswith("0 of 1 pages differ")


@pytest.mark.shared_data
def test_a_page_rates_the_same_traced_and_untraced_and_audits(tmp_path):
    """The posts of a real page are the same with the step-by-step trace and
    without it; its audit dump names each post's verdict."""
    mod = _script()
    folder, _ = mod.CORPORA["national"]
    page = folder / "2001" / "03" / "tourneyInfo-200103042690.2"  # 25 players, one section
    plain, traced = mod.page_posts(page, False), mod.page_posts(page, True)
    assert plain == traced and plain["posts"]
    assert all(isinstance(float(p[3]), float) for p in plain["posts"])
    audited = mod.page_audit(page)
    assert len(audited["posts"]) >= len(plain["posts"]) // 2
    assert {p[6] for p in audited["posts"]} <= set(VERDICTS)
    out = tmp_path / "p.jsonl"
    (tmp_path / "list").write_text(page.name + "\n")
    assert mod.main(["national", "--every", "1", "--pages", str(tmp_path / "list"), "--out",
                     str(out)]) == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == [plain]


def test_a_missing_or_damaged_file_is_one_line(tmp_path, capsys):
    mod = _script()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"page": "x", "posts": [\n')
    assert mod.main(["--compare", str(bad), str(tmp_path / "none.jsonl")]) == 2
    assert mod.main(["--compare", str(tmp_path / "none.jsonl"), str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("rated_posts.py: ") for line in err)
    assert mod.main(["national", "--out", str(tmp_path / "o.jsonl"),
                     "--pages", str(tmp_path / "no-list")]) == 2
    assert not list(tmp_path.glob("o.jsonl*"))  # nothing half-written
