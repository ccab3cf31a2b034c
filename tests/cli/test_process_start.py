"""``uschess`` as its own process keeps the garbage collector out of a short
run (off while the command's modules load, everything frozen at the end);
called in process, ``main(argv)`` leaves the collector as it found it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

from helpers import ROOT
from uschess.cli import main

EVENT = ROOT / "fixtures" / "events" / "wfcc15.yaml"


def test_main_called_in_process_leaves_the_collector_alone(capsys):
    frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    assert main(["rate", str(EVENT), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sections"]
    assert gc.get_freeze_count() == frozen and gc.isenabled() == enabled


def test_as_a_process_the_collector_is_back_on_for_the_command_and_output_is_whole(tmp_path):
    probe = ("import gc, sys\n"
             "import uschess.commands.rate as rate\n"
             "run = rate.run\n"
             "def checked(args):\n"
             "    print('collector', gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)\n"
             "    return run(args)\n"
             "rate.run = checked\n"
             "from uschess.cli import main\n"
             "sys.exit(main())\n")
    env = dict(os.environ, USCHESS_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", probe, "rate", str(EVENT), "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    # the command runs with the collector on, the startup objects frozen
    assert "collector True True" in out.stderr
    assert json.loads(out.stdout)["sections"]
    plain = subprocess.run([sys.executable, "-m", "uschess", "rate", str(EVENT), "--json"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert plain.returncode == 0 and plain.stdout == out.stdout
