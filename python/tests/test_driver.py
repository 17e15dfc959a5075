"""serenity-opt driver: discovery, error paths, report parsing."""

import os
import shutil
import subprocess
import sys

import pytest

from serenity import driver
from serenity.driver import (SerenityOpt, ToolError, ToolNotFoundError, find_serenity_opt,
                             parse_allocation_report, parse_memory_report, parse_schedule_attrs)

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_serenity_opt.py")


@pytest.fixture
def fake_tool(tmp_path):
    path = tmp_path / "serenity-opt"
    shutil.copy(FAKE, path)
    os.chmod(path, 0o755)
    return str(path)


def test_missing_binary_explicit(tmp_path, monkeypatch):
    monkeypatch.delenv("SERENITY_OPT", raising=False)
    missing = str(tmp_path / "nope" / "serenity-opt")
    with pytest.raises(ToolNotFoundError, match="--serenity-opt=.*nope"):
        find_serenity_opt(missing)


def test_missing_binary_env(tmp_path, monkeypatch):
    monkeypatch.setenv("SERENITY_OPT", str(tmp_path / "absent"))
    with pytest.raises(ToolNotFoundError, match="SERENITY_OPT="):
        SerenityOpt()


def test_missing_binary_search_lists_places(tmp_path, monkeypatch):
    monkeypatch.delenv("SERENITY_OPT", raising=False)
    monkeypatch.setenv("SERENITY_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr(driver, "repo_root", lambda: str(tmp_path / "repo"))
    with pytest.raises(ToolNotFoundError) as e:
        find_serenity_opt()
    assert str(tmp_path / "build" / "bin" / "serenity-opt") in str(e.value)
    assert "scripts/setup.sh" in str(e.value)


def test_build_dir_is_searched(tmp_path, monkeypatch, fake_tool):
    monkeypatch.delenv("SERENITY_OPT", raising=False)
    os.makedirs(tmp_path / "b" / "bin")
    shutil.copy(fake_tool, tmp_path / "b" / "bin" / "serenity-opt")
    monkeypatch.setenv("SERENITY_BUILD_DIR", str(tmp_path / "b"))
    assert find_serenity_opt() == str(tmp_path / "b" / "bin" / "serenity-opt")


def test_real_tool_failure_surfaces_stderr(serenity_opt, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = tosa.bogus %x\n}\n")
    with pytest.raises(ToolError) as e:
        SerenityOpt(serenity_opt).memory_report(str(bad))
    assert e.value.returncode != 0
    assert "bad.mlir:2" in str(e.value)          # the tool's diagnostic, with its location
    assert "tosa.bogus" in str(e.value)


def test_fake_tool_failure_surfaces_stderr(fake_tool, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_SERENITY_FAIL", "dynamic shape on %arg0")
    with pytest.raises(ToolError, match=r"exit 3(.|\n)*dynamic shape on %arg0"):
        SerenityOpt(fake_tool).memory_report(str(tmp_path / "x.mlir"))


def test_cli_reports_missing_binary(tmp_path):
    env = dict(os.environ, SERENITY_OPT=str(tmp_path / "missing"))
    proc = subprocess.run([sys.executable, "-m", "serenity", "run", str(tmp_path / "a.mlir")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "serenity run: error: SERENITY_OPT=" in proc.stderr


def test_parse_memory_report_fields():
    text = ('{"functions": [{"function": "f", "peak_bytes": 30, "peak_step": 1, '
            '"steps": [{"step": 0, "op": "a", "loc": "l", "live_bytes": 20, "new_bytes": 10}, '
            '{"step": 1, "op": "b", "loc": "l", "live_bytes": 30, "new_bytes": 10}], '
            '"buffers": [{"name": "%arg0", "bytes": 10, "def": -1, "last": 0}, '
            '{"name": "%0", "bytes": 10, "def": 0, "last": 1}, {"name": "%1", "bytes": 10, "def": 1, "last": 2}]}]}')
    [f] = parse_memory_report(text)
    assert (f.function, f.peak_bytes, f.peak_step, f.ops, f.activation_bytes) == ("f", 30, 1, 2, 30)
    assert f.live_bytes == [20, 30]
    with pytest.raises(ToolError, match="no JSON"):
        parse_memory_report("error: nothing")


def test_parse_schedule_attrs_from_printed_ir():
    ir = ('module {\n'
          '  func.func @a(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {serenity.peak_bytes = 5 : i64, '
          'serenity.schedule = {algorithm = "dp", lower_bound_bytes = 96 : i64, optimal = true, '
          'peak_bytes = 128 : i64, states = 1234 : i64, stopped_by = "none", work = 0 : i64}} {\n'
          '    return %arg0 : tensor<4xf32>\n  }\n'
          '  func.func @b(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    return %arg0 : tensor<4xf32>\n  }\n'
          '  func.func private @c() attributes {serenity.schedule = {algorithm = "kahn", optimal = false, '
          'peak_bytes = 7 : i64}}\n}\n')
    attrs = parse_schedule_attrs(ir)
    assert attrs == {
        "a": {"algorithm": "dp", "lower_bound_bytes": 96, "optimal": True, "peak_bytes": 128,
              "states": 1234, "stopped_by": "none", "work": 0},
        "c": {"algorithm": "kahn", "optimal": False, "peak_bytes": 7},
    }


def test_parse_allocation_report_forms():
    one = ('{"function": "main", "arena_bytes": 100, "lower_bound": 90, '
           '"buffers": [{"name": "%0", "offset": 0, "size": 64, "first": 0, "last": 1}]}')
    [a] = parse_allocation_report(one)
    assert (a.function, a.arena_bytes, a.lower_bound, a.buffers[0]["size"]) == ("main", 100, 90, 64)
    assert len(parse_allocation_report("[%s, %s]" % (one, one))) == 2
    assert len(parse_allocation_report('{"functions": [%s]}' % one)) == 1


def test_schedule_and_allocate_through_fake_tool(fake_tool, tmp_path):
    tool = SerenityOpt(fake_tool)
    assert tool.has_pass("serenity-schedule") and not tool.has_pass("serenity-sched")
    assert tool.pass_options("serenity-schedule") == {"algorithm", "work-limit"}
    assert tool.pass_options("serenity-static-alloc") == set()
    assert tool.pass_options("serenity-missing") == set()
    src = tmp_path / "in.mlir"
    src.write_text("")
    r = tool.schedule(str(src), "dp", {"work-limit": 5})
    assert r.schedules["main"]["peak_bytes"] == 1000 and r.schedules["main"]["optimal"] is True
    assert r.memory[0].peak_bytes == 1000
    ir, [alloc] = tool.allocate(str(src))
    assert alloc.arena_bytes == 1024 and len(alloc.buffers) == 2
    assert "func.func @main" in ir


def test_real_tool_has_no_fake_passes(serenity_opt):
    tool = SerenityOpt(serenity_opt)
    assert tool.has_pass("serenity-memory-report")
    assert "format" in tool.pass_options("serenity-memory-report")
    assert not tool.has_pass("serenity-no-such-pass")


def test_run_cli_with_passes(serenity_opt, tmp_path):
    from serenity.networks import generate
    src = tmp_path / "f.mlir"
    src.write_text(generate("fire-module", resolution=8))
    proc = subprocess.run([sys.executable, "-m", "serenity", "run", str(src), "--serenity-opt", serenity_opt,
                           "--passes=--serenity-annotate-lifetimes", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    import json
    [fn] = json.loads(proc.stdout)["memory"]
    assert fn["function"] == "main" and len(fn["steps"]) == 7
    bad = subprocess.run([sys.executable, "-m", "serenity", "run", str(src), "--serenity-opt", serenity_opt,
                          "--passes=--no-such-pass"], capture_output=True, text=True)
    assert bad.returncode == 1 and "no-such-pass" in bad.stderr
