"""A thin driver over ``serenity-opt``: find it, run it, parse its reports.

Reports (contracts in ../shared/DESIGN.md):

* memory report: ``serenity-opt FILE --serenity-memory-report=format=json``
  prints ``{"functions": [{"function", "peak_bytes", "peak_step", "steps":
  [{"step", "op", "loc", "live_bytes", "new_bytes"}], "buffers": [...]}]}``;
* schedule: ``--serenity-schedule=algorithm=A`` sets ``serenity.schedule =
  {algorithm, peak_bytes, optimal, lower_bound_bytes, states, work, stopped_by}`` on each
  function, read back from the output IR;
* allocation: ``--serenity-static-alloc=report=FILE`` writes ``{"function",
  "arena_bytes", "lower_bound", "buffers": [{"name", "offset", "size",
  "first", "last"}]}``.

Tool failures raise :class:`ToolError` whose message contains the command and
the tool's stderr.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

TOOL_NAME = "serenity-opt"


class ToolError(RuntimeError):
    """serenity-opt failed; the message carries the command and its stderr."""

    def __init__(self, message, cmd=None, returncode=None, stderr=""):
        super().__init__(message)
        self.cmd = cmd
        self.returncode = returncode
        self.stderr = stderr


class ToolNotFoundError(ToolError):
    """No serenity-opt binary at any of the places searched."""


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_tool(name, explicit=None, env_var=None, option=None):
    """Returns the path of the Serenity tool ``name`` (serenity-opt, serenity-translate, ...).

    Order: ``explicit`` (the command-line option ``option``), ``$env_var``,
    ``$SERENITY_BUILD_DIR/bin/NAME``, ``<repo>/build/bin/NAME``. A path given explicitly or
    by ``$env_var`` must exist: it is never silently replaced by another binary.
    """
    for origin, path in ((option, explicit), (env_var, os.environ.get(env_var) if env_var else None)):
        if path:
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            raise ToolNotFoundError("%s=%s: no executable %s there" % (origin, path, name))
    tried = []
    build = os.environ.get("SERENITY_BUILD_DIR")
    if build:
        tried.append(os.path.join(build, "bin", name))
    tried.append(os.path.join(repo_root(), "build", "bin", name))
    for path in tried:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    how = "set %s" % " / ".join(v for v in (env_var, "SERENITY_BUILD_DIR") if v)
    if option:
        how = "pass %s PATH or %s" % (option, how)
    raise ToolNotFoundError(
        "%s not found (tried %s); build it with scripts/setup.sh, or %s" % (name, ", ".join(tried), how))


def find_serenity_opt(explicit=None):
    """Returns the path of serenity-opt (see :func:`find_tool`): ``explicit`` (the
    --serenity-opt option), ``$SERENITY_OPT``, ``$SERENITY_BUILD_DIR/bin/serenity-opt``,
    ``<repo>/build/bin/serenity-opt``."""
    return find_tool(TOOL_NAME, explicit, "SERENITY_OPT", "--serenity-opt")


def find_serenity_translate():
    """Returns the path of serenity-translate (the TFLite importer; see :func:`find_tool`):
    ``$SERENITY_TRANSLATE``, ``$SERENITY_BUILD_DIR/bin``, ``<repo>/build/bin``."""
    return find_tool("serenity-translate", env_var="SERENITY_TRANSLATE")


class FunctionMemory:
    """The memory report of one function."""

    def __init__(self, data):
        self.function = data["function"]
        self.peak_bytes = int(data["peak_bytes"])
        self.peak_step = int(data["peak_step"])
        self.steps = list(data.get("steps", []))
        self.buffers = list(data.get("buffers", []))

    @property
    def ops(self):
        """Number of scheduled ops (steps)."""
        return len(self.steps)

    @property
    def activation_bytes(self):
        """Sum of the sizes of all activation buffers (inputs included)."""
        return sum(int(b["bytes"]) for b in self.buffers)

    @property
    def live_bytes(self):
        """Live bytes per step, the series the peak is the maximum of."""
        return [int(s["live_bytes"]) for s in self.steps]


def parse_memory_report(text):
    """Parses the JSON of ``--serenity-memory-report=format=json`` into a list
    of :class:`FunctionMemory`.  Text before the JSON object is ignored."""
    start = text.find("{")
    if start < 0:
        raise ToolError("no JSON memory report in serenity-opt output:\n" + text[:2000])
    data, _ = json.JSONDecoder().raw_decode(text[start:])
    return [FunctionMemory(f) for f in data["functions"]]


_FUNC_RE = re.compile(r"func\.func\s+(?:(?:public|private|nested)\s+)?@([\w$.]+)")
_SCHEDULE_RE = re.compile(r"serenity\.schedule\s*=\s*\{([^{}]*)\}")
_ENTRY_RE = re.compile(r'([\w.]+)\s*=\s*("(?:[^"\\]|\\.)*"|true|false|-?\d+(?:\s*:\s*[iu]\d+)?)')


def parse_schedule_attrs(ir_text):
    """Returns {function name: schedule dict} from ``serenity.schedule``
    attributes in printed IR.  Integers lose their ``: i64`` suffix; ``true``
    and ``false`` become bools."""
    result = {}
    matches = list(_FUNC_RE.finditer(ir_text))
    for i, m in enumerate(matches):
        # The attribute dictionary is printed on the signature line, before the body.
        end = ir_text.find("\n", m.end())
        header = ir_text[m.end():end if end >= 0 else len(ir_text)]
        s = _SCHEDULE_RE.search(header)
        if not s:
            continue
        entry = {}
        for key, raw in _ENTRY_RE.findall(s.group(1)):
            if raw.startswith('"'):
                entry[key] = json.loads(raw)
            elif raw in ("true", "false"):
                entry[key] = raw == "true"
            else:
                entry[key] = int(raw.split(":")[0])
        result[m.group(1)] = entry
    return result


class Allocation:
    """An allocation report: arena size, lower bound, placed buffers."""

    def __init__(self, data):
        self.function = data["function"]
        self.arena_bytes = int(data["arena_bytes"])
        self.lower_bound = int(data["lower_bound"])
        self.buffers = [dict(b) for b in data["buffers"]]
        for b in self.buffers:
            for key in ("offset", "size", "first", "last"):
                b[key] = int(b[key])


def parse_allocation_report(text):
    """Parses allocation JSON: one object, a list of objects, or
    ``{"functions": [...]}``; returns a list of :class:`Allocation`."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ValueError("not an allocation report (JSON expected): %s" % e) from e
    if isinstance(data, dict) and "functions" in data:
        data = data["functions"]
    if isinstance(data, dict):
        data = [data]
    return [Allocation(d) for d in data]


class ScheduleResult:
    """Output of one scheduling run: IR, schedule attrs, memory reports."""

    def __init__(self, ir, schedules, memory):
        self.ir = ir
        self.schedules = schedules
        self.memory = memory


class SerenityOpt:
    """Runs one serenity-opt binary."""

    def __init__(self, path=None, timeout=600):
        self.path = find_serenity_opt(path)
        self.timeout = timeout
        self._help = None

    def run(self, args, stdin_text=None, with_stderr=False):
        """Runs ``serenity-opt args``; returns stdout (with ``with_stderr``:
        (stdout, stderr), the passes' remarks) or raises ToolError."""
        cmd = [self.path] + list(args)
        try:
            proc = subprocess.run(cmd, input=stdin_text, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired as e:
            raise ToolError("serenity-opt timed out after %ss: %s" % (self.timeout, " ".join(cmd)), cmd) from e
        if proc.returncode != 0:
            raise ToolError("serenity-opt failed (exit %d): %s\n%s"
                            % (proc.returncode, " ".join(cmd), proc.stderr.strip()),
                            cmd, proc.returncode, proc.stderr)
        return (proc.stdout, proc.stderr) if with_stderr else proc.stdout

    def help_text(self):
        if self._help is None:
            self._help = self.run(["--help"])
        return self._help

    def has_pass(self, flag):
        """True if ``--flag`` is listed in ``serenity-opt --help``."""
        return re.search(r"--%s(?![\w-])" % re.escape(flag), self.help_text()) is not None

    def pass_options(self, flag):
        """Option names of pass ``--flag`` as listed under it in ``--help``
        (lines indented deeper than the pass line, skipping the ``=value``
        lines llvm::cl prints under an enumerated option); empty if the pass
        is absent."""
        lines = self.help_text().splitlines()
        pattern = re.compile(r"^(\s*)--%s(?![\w-])" % re.escape(flag))
        for i, line in enumerate(lines):
            m = pattern.match(line)
            if not m:
                continue
            indent = len(m.group(1))
            names = set()
            for following in lines[i + 1:]:
                if re.match(r"^\s*=", following):
                    continue  # a value of the enumerated option above
                o = re.match(r"^(\s*)--([\w-]+)", following)
                if not o or len(o.group(1)) <= indent:
                    break
                names.add(o.group(2))
            return names
        return set()

    def memory_report(self, path, passes=()):
        """Memory reports of the functions in ``path`` after ``passes``."""
        out = self.run([path] + list(passes) + ["--serenity-memory-report=format=json", "-o", os.devnull])
        return parse_memory_report(out)

    def schedule(self, path, algorithm, options=None, passes=()):
        """Runs ``--serenity-schedule=algorithm=A ...`` then the memory report
        on the reordered IR; returns a :class:`ScheduleResult`."""
        opts = ["algorithm=%s" % algorithm] + ["%s=%s" % kv for kv in sorted((options or {}).items())]
        with tempfile.TemporaryDirectory(prefix="serenity-") as tmp:
            out_path = os.path.join(tmp, "scheduled.mlir")
            stdout = self.run([path] + list(passes) + ["--serenity-schedule=%s" % " ".join(opts),
                                                       "--serenity-memory-report=format=json", "-o", out_path])
            with open(out_path) as f:
                ir = f.read()
        return ScheduleResult(ir, parse_schedule_attrs(ir), parse_memory_report(stdout))

    def allocate(self, path, passes=(), options=None):
        """Runs ``passes`` then ``--serenity-static-alloc=report=FILE``;
        returns (output IR, list of :class:`Allocation`)."""
        with tempfile.TemporaryDirectory(prefix="serenity-") as tmp:
            report = os.path.join(tmp, "alloc.json")
            out_path = os.path.join(tmp, "out.mlir")
            opts = ["report=%s" % report] + ["%s=%s" % kv for kv in sorted((options or {}).items())]
            self.run([path] + list(passes) + ["--serenity-static-alloc=%s" % " ".join(opts), "-o", out_path])
            if not os.path.exists(report):
                raise ToolError("serenity-static-alloc wrote no report to %s" % report)
            with open(report) as f:
                allocations = parse_allocation_report(f.read())
            with open(out_path) as f:
                return f.read(), allocations


    def pipeline_alloc_reports(self, path, options="", extra_args=()):
        """``--serenity-pipeline="lower-to-llvm=0 OPTIONS alloc-report=FILE"``
        (plus ``extra_args``, e.g. ``--mlir-timing``) on ``path``; returns
        (the allocation report of every function with an arena, as JSON dicts
        (empty when none has one), serenity-opt's stderr)."""
        with tempfile.TemporaryDirectory(prefix="serenity-") as tmp:
            report = os.path.join(tmp, "alloc.json")
            _, stderr = self.run([path, "--serenity-pipeline=lower-to-llvm=0 %s alloc-report=%s"
                                  % (options, report), "-o", os.devnull] + list(extra_args),
                                 with_stderr=True)
            if not os.path.exists(report):
                return [], stderr
            with open(report) as f:
                data = json.load(f)
        return data.get("functions", [data]), stderr


def add_tool_argument(parser):
    parser.add_argument("--serenity-opt", dest="serenity_opt", metavar="PATH",
                        help="serenity-opt binary (default: $SERENITY_OPT, $SERENITY_BUILD_DIR/bin, build/bin)")


def add_subparser(subparsers):
    p = subparsers.add_parser(
        "run", help="run serenity-opt on a file and print its reports",
        description="Run serenity-opt on FILE and print the memory report summary; with --schedule also "
                    "schedule with each algorithm (needs --serenity-schedule in serenity-opt).")
    p.add_argument("file", help="input MLIR (e.g. from `serenity gen`)")
    add_tool_argument(p)
    p.add_argument("--schedule", action="append", default=[], metavar="ALG",
                   help="scheduling algorithm (dp, kahn, greedy, hill-valley, program-order); repeatable")
    p.add_argument("--schedule-option", action="append", default=[], metavar="KEY=VALUE",
                   help="extra serenity-schedule option (repeatable)")
    p.add_argument("--passes", default="", metavar="ARGS",
                   help="serenity-opt arguments run before the reports, e.g. "
                        "--passes='--serenity-annotate-lifetimes' (one shell-quoted string)")
    p.add_argument("--json", action="store_true", help="print the parsed reports as JSON")
    p.set_defaults(func=run_cli)


def run_cli(args):
    tool = SerenityOpt(args.serenity_opt)
    for item in args.schedule_option:
        if "=" not in item:
            raise ValueError("--schedule-option expects KEY=VALUE, got %r" % item)
    options = dict(item.split("=", 1) for item in args.schedule_option)
    passes = shlex.split(args.passes)
    result = {"memory": [vars(f) for f in tool.memory_report(args.file, passes)], "schedules": {}}
    for algorithm in args.schedule:
        r = tool.schedule(args.file, algorithm, options, passes)
        result["schedules"][algorithm] = {"attrs": r.schedules, "memory": [vars(f) for f in r.memory]}
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for f in result["memory"]:
        print("@%s: %d ops, peak %d bytes at step %d (order as written), activations total %d bytes"
              % (f["function"], len(f["steps"]), f["peak_bytes"], f["peak_step"],
                 sum(int(b["bytes"]) for b in f["buffers"])))
    for algorithm, r in result["schedules"].items():
        for name, attrs in sorted(r["attrs"].items()):
            print("@%s %s: %s" % (name, algorithm, ", ".join("%s=%s" % kv for kv in sorted(attrs.items()))))
    return 0
