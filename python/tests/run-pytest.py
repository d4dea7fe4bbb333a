# SPDX-License-Identifier: MIT
"""Run one pytest file for ctest: exit 77 (skipped) when every test in it
was skipped, with the reasons on stdout; else pytest's own status."""

import sys

import pytest


class Outcomes:
    def __init__(self):
        self.ran = 0
        self.skipped = []

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            self.skipped.append(f"{report.nodeid}: {report.longrepr[2]}")
        elif report.when == "call":
            self.ran += 1


def main():
    outcomes = Outcomes()
    status = pytest.main(["-p", "no:cacheprovider", "-q", "-rs",
                          *sys.argv[1:]], plugins=[outcomes])
    if status == 0 and outcomes.ran == 0 and outcomes.skipped:
        print("all skipped:\n  " + "\n  ".join(outcomes.skipped))
        return 77
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
