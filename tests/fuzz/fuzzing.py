"""The fuzzers' shared settings: ``from fuzzing import FAST, SLOW, corpus_lines``.

What they found: docs/results/fuzzing.md.

Every boundary has one fuzz module here, ``test_fuzz_<boundary>.py``, with

- a derandomised Hypothesis run (``FAST``), in ``make test``, within about 10 s a boundary;
- the same property under ``SLOW`` and ``@pytest.mark.slow``: random exploration at length,
  in ``make test-slow``;
- the committed corpus ``corpus/<boundary>.*``: inputs that once found a bug, replayed
  as plain parametrised cases, so a regression fails even if Hypothesis stops finding it.

Each test names its oracle in its docstring (a round-trip, a model, an engine replay, or
"never a traceback, a hang or a silent success").
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, settings

CORPUS = Path(__file__).parent / "corpus"

# Derandomised and without the example database: the same examples on every run and on every
# machine, so a failure in CI is reproducible here (a database would replay what one machine
# found before, and the run would depend on its history).
FAST = settings(derandomize=True, database=None, deadline=None, max_examples=150,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# Random exploration at length (make test-slow).
SLOW = settings(derandomize=False, deadline=None, max_examples=5_000,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def corpus_lines(name: str) -> list[str]:
    """The committed inputs of ``corpus/<name>.txt``: one input a line; ``#`` starts a comment
    line (say which bug the next input found)."""
    path = CORPUS / f"{name}.txt"
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
