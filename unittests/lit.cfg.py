# -*- Python -*-
# Runs every GoogleTest binary of the build as individual lit tests.
import os

import lit.formats

config.name = "SERENITY-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.serenity_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "UnitTests")

# Sanitizer settings of scripts/test.sh (SERENITY_SANITIZE=1) reach the tests.
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
