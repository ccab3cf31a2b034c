"""The web app bounds every request: the body's size before anything parses
it (chunked or not), nesting before a parser recurses, the work in a process
killed at the time limit, the number of requests worked on at once; and it
refuses forms posted from other origins and sends a Content-Security-Policy.

The load test at the end runs a real server on 127.0.0.1 (``slow``)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("multipart", reason="the web extra is not installed (python-multipart)")
from starlette.testclient import TestClient  # noqa: E402

from uschess.web.app import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"


def page_error(text: str) -> str:
    found = re.findall(r'id="error">([^<]*)<', text)
    assert len(found) == 1 and "Traceback" not in text, text[:500]
    return html.unescape(found[0])


def nested_json(depth: int) -> bytes:
    return ('{"event": ' + "[" * depth + "]" * depth + "}").encode()


def nested_yaml(depth: int) -> bytes:
    return "".join("  " * i + f"k{i}:\n" for i in range(depth)).encode() + b"  " * depth + b"x: 1\n"


# ------------------------------------------------------------ headers, origin

def test_every_answer_carries_a_content_security_policy():
    client = TestClient(create_app())
    for method, url in [("get", "/"), ("get", "/rate"), ("get", "/estimate"),
                        ("get", "/static/style.css"), ("get", "/no-such-page"),
                        ("get", "/api/rules/show?on=1990-01-01"), ("post", "/rate")]:
        r = getattr(client, method)(url)
        csp = r.headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp, (url, r.headers)
        assert "script-src" not in csp  # the pages use no script
        assert r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("headers,status", [
    ({"origin": "http://evil.example"}, 403),
    ({"origin": "null"}, 403),
    ({"referer": "http://evil.example/form.html"}, 403),
    ({"sec-fetch-site": "cross-site"}, 403),
    ({"origin": "http://testserver"}, 303),
    ({"referer": "http://testserver/rate"}, 303),
    ({}, 303),  # no browser's form: a script
])
def test_forms_posted_from_another_origin_are_refused(headers, status):
    client = TestClient(create_app())
    r = client.post("/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())},
                    headers=headers, follow_redirects=False)
    assert r.status_code == status, r.text
    if status == 403:
        assert "from another" in r.text and r.text.count("\n") == 1


def test_the_host_must_name_the_server_where_it_listens_on_the_loopback():
    client = TestClient(create_app(hosts={"127.0.0.1", "localhost", "::1"}),
                        base_url="http://127.0.0.1:8000")
    assert client.get("/rules").status_code == 200
    assert client.get("/rules", headers={"host": "localhost:8000"}).status_code == 200
    r = client.get("/rules", headers={"host": "attacker.example:8000"})
    assert r.status_code == 421 and "not 'attacker.example:8000'" in r.text


# ------------------------------------------------------------ size and nesting

def test_a_chunked_body_past_the_limit_is_413_not_500():
    client = TestClient(create_app(max_upload=100_000))

    def chunks():
        boundary = b"--xyz\r\n"
        yield boundary + b'Content-Disposition: form-data; name="event"; filename="e.yaml"\r\n\r\n'
        for _ in range(40):
            yield b"#" * 10_000 + b"\n"
        yield b"\r\n--xyz--\r\n"

    r = client.post("/rate", content=chunks(),
                    headers={"content-type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 413 and "larger than the 0.1 MB" in r.text
    r = client.post("/api/rate", content=chunks(),
                    headers={"content-type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 413


@pytest.mark.parametrize("name,body,where", [
    ("deep.json", nested_json(60_000), "line 1 column 42"),
    ("deep.yaml", nested_yaml(1_000), "line 33"),
    ("deep-flow.yaml", b"a: " + b"[" * 60_000 + b"]" * 60_000 + b"\n", "line 1 column 36"),
])
def test_deep_nesting_is_400_with_the_line(name, body, where):
    client = TestClient(create_app())
    r = client.post("/rate", files={"event": (name, body)})
    assert r.status_code == 400
    assert page_error(r.text) == f"{name}: nested over 32 deep at {where}"
    r = client.post("/api/rate", files={"event": (name, body)})
    assert r.status_code == 400 and r.json()["error"].endswith(where)


def test_an_upload_over_the_readers_limit_is_refused_before_it_is_parsed():
    client = TestClient(create_app())
    body = b"a: [" + b"1, " * 5_800_000 + b"1]\n"  # 17 MB, under the upload limit
    started = time.monotonic()
    r = client.post("/rate", files={"event": ("big.yaml", body)})
    assert r.status_code == 400 and time.monotonic() - started < 10
    assert "4,194,304" in page_error(r.text)


# ------------------------------------------------------------ the work

def _spin(*args, **kwargs):
    """Work that never ends, noting the process it runs in (after writing a
    temporary file, as staging an upload does)."""
    with tempfile.NamedTemporaryFile(delete=False) as fh:
        fh.write(b"staged")
    Path(os.environ["USCHESS_TEST_PID_FILE"]).write_text(str(os.getpid()))
    while True:
        pass


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as fh:  # a zombie has stopped too
        return fh.read().split(") ")[1].startswith("Z")


def test_work_past_the_time_limit_is_stopped_not_abandoned(tmp_path, monkeypatch):
    from uschess.web import app
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("USCHESS_TEST_PID_FILE", str(pid_file))
    monkeypatch.setattr(app, "load_upload", _spin)
    client = TestClient(create_app(time_limit=1.0))
    started = time.monotonic()
    r = client.post("/api/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())})
    took = time.monotonic() - started
    assert r.status_code == 400 and "not done within the 1 s" in r.json()["error"]
    assert took < 3
    assert _gone(int(pid_file.read_text()))  # killed, its memory returned
    assert list(temporary.iterdir()) == []  # and its temporary files removed


def test_a_worker_leaves_no_temporary_files(tmp_path, monkeypatch):
    """An upload is staged in the worker's directory; the worker removes it
    when it leaves, idle, and so does the server's exit."""
    from uschess.web import workers
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setattr(workers, "IDLE_SECONDS", 0.2)
    client = TestClient(create_app())
    r = client.post("/api/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())})
    assert r.status_code == 200
    deadline = time.monotonic() + 10
    while list(temporary.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(temporary.iterdir()) == []
    # a worker still alive when the server's process ends (terminated)
    pool = workers.Workers(1, 10.0)
    worker = pool._start()
    worker.conn.send((os.getpid, ()))
    assert worker.conn.recv()[1][0] == "ok"  # at work, its handlers set
    (Path(worker.root) / "staged").write_bytes(b"x")
    worker.process.terminate()
    worker.process.join(10)
    assert not Path(worker.root).exists()


def test_a_failing_worker_is_a_500_that_names_no_internals(monkeypatch):
    from uschess.web import app

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(app, "load_upload", broken)
    client = TestClient(create_app(), raise_server_exceptions=False)
    r = client.post("/api/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())})
    assert r.status_code == 500 and "ZeroDivision" not in r.text


def test_at_most_the_slots_run_at_once_and_the_rest_wait_or_get_503(tmp_path, monkeypatch):
    """One slot, a queue of four: of eight requests at once, the first runs,
    four wait their turn and are answered, and three get 503 at once."""
    import anyio

    from uschess.web import app as web_app
    from uschess.web import workers

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    real = web_app.load_upload
    monkeypatch.setattr(web_app, "load_upload", slow)
    monkeypatch.setattr(workers, "QUEUE_PER_SLOT", 4)
    app = create_app(slots=1, time_limit=10)
    statuses: list = []

    async def one(client):
        r = await client.post("/api/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())})
        statuses.append(r.status_code)

    async def main():
        import httpx2 as httpx
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            async with anyio.create_task_group() as group:
                for _ in range(8):
                    group.start_soon(one, client)

    anyio.run(main)
    assert sorted(statuses) == [200] * 5 + [503] * 3, statuses


# ------------------------------------------------------------ the load test

def _serve(tmp_path, *args) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if k != "USCHESS_DB"}
    proc = subprocess.Popen([sys.executable, "-m", "uschess", "serve", "--port", "0", "--json",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path)
    lines: list = []
    while not lines or lines[-1] != "}\n":
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"serve stopped: {proc.stderr.read()}")
        lines.append(line)
    return proc, json.loads("".join(lines))["url"]


def _tree_usage(pid: int) -> tuple[float, int, int]:
    """CPU seconds of the server and its children (live and reaped), the
    proportional memory (shared pages split between the processes sharing
    them) of the server and its live children, and how many live children
    (worker processes) there are."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu_of(p, reaped):
        with open(f"/proc/{p}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15 if reaped else 13]) / tick

    def pss_of(p):
        with open(f"/proc/{p}/smaps_rollup") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("Pss:"))

    cpu, memory = cpu_of(pid, True), pss_of(pid)
    children = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as fh:
            children += fh.read().split()
    for child in children:
        try:
            cpu += cpu_of(child, False)
            memory += pss_of(child)
        except OSError:  # it has just exited
            continue
    return cpu, memory, len(children)


def _post(url: str, name: str, body: bytes, timeout: float = 60) -> int:
    import httpx2 as httpx
    try:
        return httpx.post(url + "api/rate", files={"event": (name, body)}, timeout=timeout
                          ).status_code
    except httpx.HTTPError:  # the server may close a connection it refused
        return 413


def _chunked(url: str, size: int) -> int:
    import httpx2 as httpx

    def chunks():
        yield b'--b\r\nContent-Disposition: form-data; name="event"; filename="e.yaml"\r\n\r\n'
        for _ in range(size // 65536 + 1):
            yield b"#" * 65536
        yield b"\r\n--b--\r\n"

    try:
        return httpx.post(url + "api/rate", content=chunks(), timeout=60,
                          headers={"content-type": "multipart/form-data; boundary=b"}
                          ).status_code
    except httpx.HTTPError:
        return 413


def _settles(pid: int, idle_rss: int, within: float, slots: int) -> tuple[bool, str]:
    """Whether, within ``within`` seconds, the server's tree has at most
    ``slots`` workers (idle ones, waiting for the next request), its memory
    (proportional: a worker shares the server's pages) is within 100 MB of
    ``idle_rss`` and it uses under a tenth of a core."""
    deadline = time.monotonic() + within
    last = ""
    while time.monotonic() < deadline:
        cpu0, _, _ = _tree_usage(pid)
        time.sleep(0.25)
        cpu1, rss, children = _tree_usage(pid)
        last = f"{(cpu1 - cpu0) / 0.25:.2f} cores, {rss / 1e6:.0f} MB, {children} children"
        if children <= slots and rss < idle_rss + 100e6 and cpu1 - cpu0 < 0.025:
            return True, last
    return False, last


def _big_event(sections: int) -> bytes:
    """An event file of ``sections`` two-player sections of unrated players
    (20,000 of them take seconds to rate)."""
    players = lambda i: [  # noqa: E731
        {"pair": 1, "id": f"1{i:07d}", "name": f"A{i}", "rounds": ["W2"]},
        {"pair": 2, "id": f"2{i:07d}", "name": f"B{i}", "rounds": ["L1"]}]
    data = {"event": {"name": "Big", "start": "2025-03-01"},
            "sections": [{"name": f"S{i}", "time_control": "G/90", "players": players(i)}
                         for i in range(sections)]}
    return json.dumps(data, separators=(",", ":")).encode()


@pytest.mark.slow  # a real server, a few hundred requests, several time limits
def test_load_on_loopback_returns_to_idle_after_each_hostile_request(tmp_path):
    limit = 1.0
    proc, url = _serve(tmp_path, "--time-limit", str(limit), "--workers", "2",
                       "--max-upload-mb", "20")
    try:
        import httpx2 as httpx
        time.sleep(0.5)
        _, idle_rss, _ = _tree_usage(proc.pid)
        slow_body = _big_event(20000)
        assert _post(url, "slow.json", slow_body) == 400  # past the time limit: stopped
        batches = {
            "oversize": lambda: _post(url, "e.yaml", b"#" * 21_000_000),
            "oversize chunked": lambda: _chunked(url, 21_000_000),
            "over the reader's limit": lambda: _post(url, "e.yaml", b"a: [" + b"1, " * 5_800_000
                                                     + b"1]\n"),
            "nested JSON": lambda: _post(url, "deep.json", nested_json(100_000)),
            "nested YAML": lambda: _post(url, "deep.yaml", nested_yaml(1_500)),
            "slow": lambda: _post(url, "slow.json", slow_body),
            "concurrent heavy": lambda: _post(url, "slow.json", slow_body),
            "fine": lambda: _post(url, "wfcc15.yaml", WFCC.read_bytes()),
        }
        counts = {"oversize": 20, "oversize chunked": 10, "over the reader's limit": 10,
                  "nested JSON": 60, "nested YAML": 60, "slow": 10, "concurrent heavy": 24,
                  "fine": 60}
        report = {}
        for name, send in batches.items():
            statuses: list = []
            lock = threading.Lock()

            def worker(n):
                for _ in range(n):
                    status = send()
                    with lock:
                        statuses.append(status)

            parallel = 8 if name == "concurrent heavy" else 2
            threads = [threading.Thread(target=worker, args=(counts[name] // parallel,))
                       for _ in range(parallel)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            ended = time.monotonic()
            settled, usage = _settles(proc.pid, idle_rss, limit + 1, slots=2)
            report[name] = (sorted(set(statuses)), round(time.monotonic() - ended, 2), usage)
            assert 500 not in statuses, report
            assert settled, (name, usage, report)
        assert report["oversize"][0] == [413] and report["oversize chunked"][0] == [413], report
        assert report["nested JSON"][0] == [400] and report["nested YAML"][0] == [400], report
        assert set(report["concurrent heavy"][0]) <= {400, 503}, report
        assert report["fine"][0] == [200], report
        print(json.dumps(report))  # statuses, seconds to idle, usage then
        assert proc.poll() is None
        with httpx.Client() as client:  # still answering
            assert client.get(url + "rules").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
