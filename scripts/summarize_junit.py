#!/usr/bin/env python3
"""Sums JUnit XML reports (lit, pytest) into the one line CI reads.

Prints skipped tests with their reasons, then `N passed, N failed`. Exits 1
when a test failed or no test ran at all.
"""
import sys
import xml.etree.ElementTree as ET


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        try:
            tree = ET.parse(path)
        except (OSError, ET.ParseError) as err:
            print(f"cannot read {path}: {err}")
            failed += 1
            continue
        for case in tree.iter("testcase"):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                print(f"FAILED {name}")
            elif case.find("skipped") is not None:
                skipped += 1
                reason = case.find("skipped").get("message", "")
                if reason == "User interrupt":
                    # lit's xunit writer labels every GTEST_SKIP this way.
                    reason = "GTEST_SKIP (run the unit test binary to see why, e.g. ../shared absent)"
                print(f"skipped {name}: {reason}")
            else:
                passed += 1
    if skipped:
        print(f"({skipped} skipped)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
