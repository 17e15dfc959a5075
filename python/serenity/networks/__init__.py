"""Registry of benchmark network generators.

Each generator is a function ``fn(builder, **params) -> output Value(s)``
registered with :func:`network` together with its default parameters.  The
parameters ``channels``, ``resolution`` and ``seed`` have command-line options
of their own; any other parameter is set with ``--param key=value``.
:func:`generate` turns a name and parameters into module text.
"""

from ..tosa import FunctionBuilder


class NetworkSpec:
    """A registered generator: name, defaults, one-line description."""

    def __init__(self, name, fn, defaults, summary):
        self.name = name
        self.fn = fn
        self.defaults = dict(defaults)
        self.summary = summary


NETWORKS = {}


def network(name, summary, **defaults):
    """Decorator registering ``fn`` as network ``name`` with ``defaults``."""
    def register(fn):
        if name in NETWORKS:
            raise ValueError("network %s registered twice" % name)
        NETWORKS[name] = NetworkSpec(name, fn, defaults, summary)
        return fn
    return register


def coerce_param(spec, key, text):
    """Parses ``text`` with the type of the default of ``key``."""
    if key not in spec.defaults:
        raise ValueError("network %s has no parameter %r (parameters: %s)"
                         % (spec.name, key, ", ".join(sorted(spec.defaults)) or "none"))
    default = spec.defaults[key]
    if isinstance(default, bool):
        if text.lower() in ("1", "true", "yes"):
            return True
        if text.lower() in ("0", "false", "no"):
            return False
        raise ValueError("parameter %s expects true/false, got %r" % (key, text))
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def generate(name, dtype="f32", weights="splat", seed=0, **params):
    """Returns the MLIR text of network ``name``.

    ``seed`` drives both the weights and any random structure (graph wiring).
    Unknown parameters raise ``ValueError`` naming the accepted ones.
    """
    if name not in NETWORKS:
        raise ValueError("unknown network %r (known: %s)" % (name, ", ".join(sorted(NETWORKS))))
    spec = NETWORKS[name]
    values = dict(spec.defaults)
    for key, value in params.items():
        if key not in spec.defaults:
            raise ValueError("network %s has no parameter %r (parameters: %s)"
                             % (name, key, ", ".join(sorted(spec.defaults)) or "none"))
        values[key] = value
    builder = FunctionBuilder(dtype=dtype, seed=seed, weights=weights)
    outputs = spec.fn(builder, seed=seed, **values)
    settings = ", ".join("%s=%s" % kv for kv in sorted(values.items()))
    header = ("%s: %s\nserenity gen %s (dtype=%s, weights=%s, seed=%d, %s)"
              % (name, spec.summary, name, dtype, weights, seed, settings))
    return builder.render(outputs, header=header)


# Importing the modules registers their networks.
from . import blocks, darts, mlperf_tiny, mobilenet, random_dag, randwire, tiled  # noqa: E402,F401
