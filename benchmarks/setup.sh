#!/usr/bin/env sh
# What the benchmarks need beyond the project's test dependencies:
# valgrind, whose cachegrind counts the instructions of a run (a figure that
# does not move with the machine's load), from Debian's package when running
# as root where apt-get is; and the optional compiled kernel, built into the
# Python environment of $PYTHON (default: python), so that replay_bench.py
# measures the replay with it as well as in pure Python.
#
#     sh benchmarks/setup.sh
#
# Neither is needed by the test run; without valgrind the benchmarks run
# with --no-instructions.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}

if ! command -v valgrind >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind
    else
        echo "benchmarks/setup.sh: install valgrind (Debian: apt-get install valgrind)" >&2
        exit 1
    fi
fi
USCHESS_KERNEL=1 "$PYTHON" -m pip install --quiet --disable-pip-version-check -e .
"$PYTHON" -m uschess --version
