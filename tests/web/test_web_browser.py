"""The web app in a real headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium) against ``uschess serve`` started as a
user starts it, on the loopback interface.

Skipped, saying why, where Chromium, its driver or Selenium is absent
(``.ci/run`` installs them best effort).  A browser session costs seconds,
so the module is marked ``slow``: it runs under ``.ci/run``, not in the
default quick run.  Screenshots are written to
``$USCHESS_SCREENSHOT_DIR`` when set, else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

from helpers import ROOT, SHARED_DATA, TEACHING_MSA
from uschess.apps.report import rating_text
from uschess.cli import main

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1000"]
DBF = ROOT / "fixtures" / "dbf" / "club-championship"
PLAYERS = ROOT / "fixtures" / "events" / "club-championship.players.yaml"
WFCC_PAGE = SHARED_DATA / "real" / "wfcc-15-2025" / "XtblMain-202503213862.html"

pytest.importorskip("starlette", reason="the web extra is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
    pytest.skip(f"Chromium or its driver is absent ({CHROMIUM}, {CHROMEDRIVER}): "
                "apt-get install chromium chromium-driver", allow_module_level=True)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    assert main(["generate", "--players", "40", "--events", "8", "--seed", "5",
                 "-o", str(root / "hist")]) == 0
    assert main(["replay", str(root / "hist"), "--db", str(root / "ratings.db")]) == 0
    return root


@pytest.fixture(scope="module")
def server(store):
    """``uschess serve`` on a free loopback port; its base URL (no slash)."""
    proc = subprocess.Popen([sys.executable, "-m", "uschess", "serve", "--port", "0", "--json",
                             "--db", str(store / "ratings.db")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not lines or lines[-1] != "}\n":  # the JSON, printed once listening
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"uschess serve stopped: {proc.stderr.read()}")
            lines.append(line)
        url = json.loads("".join(lines))["url"].rstrip("/")
        with urllib.request.urlopen(url + "/", timeout=30):
            pass
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    try:
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    except WebDriverException as err:
        pytest.skip(f"Chromium could not be started: {err.msg or err}")
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    target = os.environ.get("USCHESS_SCREENSHOT_DIR")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshot(driver, shots: Path, name: str) -> Path:
    """A full-page PNG (the window grown to the page's height)."""
    from selenium.webdriver.support.ui import WebDriverWait

    height, chrome = driver.execute_script(
        "return [document.documentElement.scrollHeight, window.outerHeight - window.innerHeight]")
    height = min(max(height, 600), 4000)
    driver.set_window_size(1280, height + chrome)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.innerHeight") >= height)
    path = shots / f"{name}.png"
    assert driver.save_screenshot(str(path))
    driver.set_window_size(1280, 1000)
    assert path.stat().st_size > 10_000
    return path


def rate_json(capsys, argv) -> dict:
    capsys.readouterr()
    assert main(["rate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def fill(driver, field_id: str, value: str) -> None:
    element = driver.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(value)


def submit(driver, button) -> None:
    """Click a submit button and wait for the next page to load."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # A mark on the old page's window: the next page has none.  (Waiting for
    # the old <html> element to go stale races with chromedriver, which can
    # answer "node does not belong to the document" instead of "stale".)
    driver.execute_script("window.__before_submit = true")
    button.click()
    WebDriverWait(driver, 60, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script("return window.__before_submit === undefined && "
                                   "document.readyState === 'complete'"))


def set_date(driver, field_id: str, iso: str) -> None:
    # a date input's typed text follows the browser's locale: set the value itself
    driver.execute_script("arguments[0].value = arguments[1]",
                          driver.find_element(By.ID, field_id), iso)


def test_estimator_number_is_uschess_rate(server, browser, shots, tmp_path, capsys):
    games = [(1850, None, "L"), (1610, 40, "W"), (None, None, "W"), (1702, 8, "D")]
    browser.get(server + "/estimate")
    set_date(browser, "date", "2024-06-15")
    fill(browser, "tc", "G/45;d5")
    fill(browser, "rating", "1688")
    fill(browser, "games", "14")
    for i, (rating, count, result) in enumerate(games, start=1):
        if rating is not None:
            fill(browser, f"opp_rating_{i}", str(rating))
        if count is not None:
            fill(browser, f"opp_games_{i}", str(count))
        Select(browser.find_element(By.ID, f"opp_result_{i}")).select_by_value(result)
    fill(browser, "compare", "rules-on:2012-01-01")
    submit(browser, browser.find_element(By.ID, "estimate"))
    shown = {s: browser.find_element(By.ID, f"post-{s}").text for s in ("OTBR", "OTBQ")}
    screenshot(browser, shots, "estimator")

    # the same games written as an event file by hand, rated by the command line
    from uschess.io.formats.msa import ESTABLISHED_GAMES
    flip = {"W": "L", "L": "W", "D": "D"}
    rec = lambda r, n: {"OTBR": {"rating": r, "games": n, "date": "2024-06-15"}}  # noqa: E731
    players = [{"pair": 1, "id": "1", "name": "Me", "ratings": rec(1688, 14),
                "rounds": [f"{res}{i + 2}" for i, (_, _, res) in enumerate(games)]}]
    for i, (rating, count, res) in enumerate(games):
        opp = {"pair": i + 2, "id": str(i + 2), "name": f"Opp {i}",
               "rounds": ["U"] * i + [f"{flip[res]}1"] + ["U"] * (len(games) - i - 1)}
        if rating is not None:
            opp["ratings"] = rec(rating, count if count is not None else ESTABLISHED_GAMES)
        players.append(opp)
    event = {"event": {"name": "Mine", "start": "2024-06-15"},
             "sections": [{"name": "Open", "time_control": "G/45;d5", "players": players}]}
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(event))
    for argv, prefix in (([], "post"), (["--rules-on", "2012-01-01"], "other-post")):
        data = rate_json(capsys, [str(tmp_path / "mine.yaml"), *argv])
        for sec in data["sections"]:
            post = next(p["post"] for p in sec["players"] if p["id"] == "1")
            text = browser.find_element(By.ID, f"{prefix}-{sec['system']}").text
            assert text == rating_text(post)  # to 2 decimals; --json unrounded
            if prefix == "post":
                assert shown[sec["system"]] == rating_text(post)
    assert "step 4" in browser.find_element(By.ID, "explain").text
    # the step-by-step boxes fit their column (their lines wrap), the page its window
    for box in ("explain", "explain-other"):
        width, room = browser.execute_script(
            "const e = document.getElementById(arguments[0]); return [e.scrollWidth, e.clientWidth]",
            box)
        assert width <= room, box
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth")
    unrated = browser.find_element(By.CSS_SELECTOR, "ul.unrated").text
    assert "Opponent 3 is unrated: step 1 gives them 750.00 (age-based" in unrated


def test_upload_dbf_report_crosstable_and_explanation(server, browser, shots, tmp_path, capsys):
    archive = tmp_path / "club-championship.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted(DBF.iterdir()):
            zf.write(f, arcname=f"club-championship/{f.name}")
    browser.get(server + "/rate")
    browser.find_element(By.ID, "event-file").send_keys(str(archive))
    browser.find_element(By.ID, "players-file").send_keys(str(PLAYERS))
    submit(browser, browser.find_element(By.ID, "rate"))
    assert "/rate/" in browser.current_url
    screenshot(browser, shots, "crosstable")

    data = rate_json(capsys, [str(DBF), "--players", str(PLAYERS)])
    tables = browser.find_elements(By.CSS_SELECTOR, "section.crosstable")
    assert len(tables) == len(data["sections"])
    for sec, table in zip(data["sections"], tables):
        assert f"{sec['name']} · {sec['system']}" in table.find_element(By.TAG_NAME, "h2").text
        rows = table.find_elements(By.CSS_SELECTOR, "table.xt tr")[1:]
        assert len(rows) == len(sec["players"])
        for p, row in zip(sec["players"], rows):
            cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
            assert cells[0] == str(p["pair"]) and cells[2] == p["id"]
            assert cells[-1] == (rating_text(p["post"]) if p["post"] is not None else "-")

    player = data["sections"][0]["players"][0]
    link = browser.find_elements(By.CSS_SELECTOR, "section.crosstable a.player")[0]
    assert link.text == player["name"]
    submit(browser, link)
    capsys.readouterr()
    assert main(["rate", str(DBF), "--players", str(PLAYERS), "--explain", player["id"]]) == 0
    expected = capsys.readouterr().out
    assert browser.find_element(By.ID, "explain").text == expected.rstrip("\n")
    screenshot(browser, shots, "explanation")


@pytest.mark.shared_data
def test_upload_real_msa_crosstable_opens_the_audit(server, browser, shots):
    if not TEACHING_MSA.exists():
        pytest.skip(f"the shared data is not beside the project ({TEACHING_MSA})")
    browser.get(server + "/rate")
    browser.find_element(By.ID, "event-file").send_keys(str(TEACHING_MSA))
    set_date(browser, "start", "2016-01-15")
    submit(browser, browser.find_element(By.ID, "rate"))
    summary = browser.find_element(By.ID, "audit-summary").text
    assert summary.startswith("62 of 64 confirmed or explained (62 confirmed, ")
    assert "2 held by a floor the page cannot show" in summary
    assert "62 of 64 reproduced within 1 point" in summary
    rows = browser.find_elements(By.CSS_SELECTOR, "table.audit tr")[1:]
    kinds = [r.get_attribute("class") for r in rows]
    assert kinds == ["miss"] * 2 + ["ok"] * 62
    for row in rows[:2]:  # the cause on one line, its detail behind a click
        cause = row.find_element(By.CSS_SELECTOR, "details.cause")
        assert cause.text.startswith("floor: gives ") and "\n" not in cause.text
        cause.find_element(By.TAG_NAME, "summary").click()
        assert cause.get_attribute("open") is not None and len(cause.text) > 60
    tables = browser.find_elements(By.CSS_SELECTOR, "section.crosstable table.xt tr")
    assert len(tables) == 65  # the header and the 64 players
    screenshot(browser, shots, "audit")


@pytest.mark.shared_data
def test_upload_real_published_html_page(server, browser, shots):
    if not WFCC_PAGE.exists():
        pytest.skip(f"the shared data is not beside the project ({WFCC_PAGE})")
    browser.get(server + "/rate")
    browser.find_element(By.ID, "event-file").send_keys(str(WFCC_PAGE))
    submit(browser, browser.find_element(By.ID, "rate"))
    errors = browser.find_elements(By.ID, "error")
    if errors:
        assert errors[0].text.startswith(WFCC_PAGE.name + ": ")
        if "unknown event format" in errors[0].text:
            pytest.skip("this build has no reader for published HTML pages: the upload is "
                        "refused with the reader's one-line error")
        pytest.fail(errors[0].text)
    # a page carries published ratings: it opens the audit view, both sections and systems
    summary = browser.find_element(By.ID, "audit-summary").text
    assert " of 36 reproduced" in summary
    ids = set(re.findall(r"\b(\d{8}) / [RQ]:", WFCC_PAGE.read_text(errors="replace")))
    assert ids
    shown = {td.text for td in browser.find_elements(By.CSS_SELECTOR, "table.xt td:nth-child(3)")}
    assert ids <= shown
    screenshot(browser, shots, "published-page")


def test_bad_upload_shows_one_line(server, browser, tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("event: {name: Broken, start: 2024-13-40}\nsections: []\n")
    browser.get(server + "/rate")
    browser.find_element(By.ID, "event-file").send_keys(str(bad))
    submit(browser, browser.find_element(By.ID, "rate"))
    error = browser.find_element(By.ID, "error").text
    assert error.startswith("broken.yaml: ") and "\n" not in error
    assert "Traceback" not in browser.page_source


def test_store_player_history_with_plot(server, browser, shots, store):
    from collections import Counter
    from uschess.io.formats.detect import load_event_any
    played = Counter(pl.id for f in sorted((store / "hist").iterdir())
                     if f.suffix in (".json", ".yaml") for sec in load_event_any(f).sections
                     for pl in sec.players)
    pid = played.most_common(1)[0][0]
    browser.get(server + "/store")
    fill(browser, "player-id", pid)
    submit(browser, browser.find_element(By.CSS_SELECTOR, "form.inline button"))
    img = browser.find_element(By.CSS_SELECTOR, "img.plot")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 300
    screenshot(browser, shots, "store")
