"""Requests per second of the web app, through Starlette's test client (the
application's own cost, without the network).

    python benchmarks/web_bench.py [--repeat 30]

Measures the estimator with eight games (page and API), the upload of the
bundled DBF report zipped with its players file (rated and shown), a
player's explanation, and the rules page with a diff.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from starlette.testclient import TestClient  # noqa: E402

from uschess.web.app import create_app  # noqa: E402

ESTIMATE = {"date": "2025-03-21", "tc": "G/60;d5", "rating": "1500", "games": "30"}
for i, (rating, result) in enumerate([(1600, "W"), (1720, "D"), (1450, "L"), (1510, "W"),
                                      (1880, "L"), (1390, "W"), (1555, "D"), (1620, "W")], start=1):
    ESTIMATE[f"opp_rating_{i}"] = str(rating)
    ESTIMATE[f"opp_result_{i}"] = result


def report_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for f in sorted((ROOT / "fixtures" / "dbf" / "club-championship").iterdir()):
            archive.write(f, arcname=f.name)
    return buf.getvalue()


def timed(label: str, repeat: int, fn) -> None:
    fn()  # warm up (rule book, templates)
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<38} {repeat / elapsed:8.1f} requests/s  ({1000 * elapsed / repeat:.1f} ms each)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    client = TestClient(create_app())
    players = (ROOT / "fixtures" / "events" / "club-championship.players.yaml").read_bytes()
    body = report_zip()

    def ok(response):
        assert response.status_code in (200, 303), response.text[:300]
        return response

    def upload():
        return ok(client.post("/rate", files={"event": ("club.zip", body),
                                              "players": ("players.yaml", players)},
                              follow_redirects=True))

    token_url = ok(client.post("/rate", files={"event": ("club.zip", body),
                                               "players": ("players.yaml", players)},
                               follow_redirects=False)).headers["location"]
    timed("estimator page, 8 games, 2 systems", args.repeat,
          lambda: ok(client.get("/estimate", params=ESTIMATE)))
    timed("estimator API", args.repeat, lambda: ok(client.get("/api/estimate", params=ESTIMATE)))
    timed("upload DBF zip, rate, show", args.repeat, upload)
    timed("explanation page", args.repeat,
          lambda: ok(client.get(f"{token_url}/player/12873461")))
    timed("rules page with a diff", args.repeat,
          lambda: ok(client.get("/rules", params={"date1": "2012-01-01", "date2": "2025-03-01"})))


if __name__ == "__main__":
    main()
