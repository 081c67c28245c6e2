"""Mutation testing of the yuxi effect code (issue 16, item 3), run by `make test-slow`.

mutmut (configured in `[tool.mutmut]` of pyproject.toml) mutates `src/paiju/yuxi/effects.py`
and runs the rules oracle's tests against each mutant; this script runs it, reads the counts
mutmut exports, prints the survivors and fails when the share of mutants killed is under the
target (default 80%). The score counts a timed-out mutant as killed (the audit hangs: it is
noticed) and leaves out the mutants no test reaches (mutmut's "no tests"), which are listed
with the survivors; docs/results/yuxi.md explains each survivor of the last full run.

    python scripts/mutation_score.py [--min 0.80] [--max-children 2]

mutmut keeps its results in ./mutants: a rerun after an interruption only tests the mutants
that were not done (delete ./mutants to start over, e.g. after editing effects.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min", type=float, default=0.80, help="least share of mutants killed")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested at once")
    args = parser.parse_args()
    if not 0.0 <= args.min <= 1.0:
        parser.error(f"--min must be a share in [0, 1], got {args.min}")
    mutmut = Path(sys.executable).with_name("mutmut")
    root = Path.cwd()
    (root / "mutants" / "src").mkdir(parents=True, exist_ok=True)
    # the mutated copy of the package must be imported, not the installed (editable) one
    env = {**os.environ, "PYTHONPATH": str(root / "mutants" / "src")}
    # mutmut redraws a spinner line many times a second: into a log file, not the terminal
    log = root / "mutants" / "run.log"
    print(f"mutmut run: testing the mutants of effects.py (output in {log})", flush=True)
    with log.open("w") as out:
        run = subprocess.run([str(mutmut), "run", "--max-children", str(args.max_children)], env=env,
                             stdout=out, stderr=subprocess.STDOUT)
    if run.returncode != 0:
        tail = log.read_text(errors="replace").replace("\r", "\n").splitlines()[-20:]
        print("\n".join(tail), file=sys.stderr)
        print(f"error: mutmut run failed (exit {run.returncode}); see {log}", file=sys.stderr)
        return 1
    subprocess.run([str(mutmut), "export-cicd-stats"], env=env, check=True, stdout=subprocess.DEVNULL)
    stats = json.loads((root / "mutants" / "mutmut-cicd-stats.json").read_text())
    results = subprocess.run(
        [str(mutmut), "results"], env=env, check=True, capture_output=True, text=True
    ).stdout
    killed = int(stats["killed"]) + int(stats["timeout"])
    tested = int(stats["total"]) - int(stats["skipped"]) - int(stats["no_tests"])
    score = killed / tested if tested else 0.0
    print(results.rstrip())
    print(
        f"mutation score: {killed} of {tested} tested mutants killed ({score:.1%}); "
        f"survived {stats['survived']}, no tests {stats['no_tests']}, suspicious {stats['suspicious']}, "
        f"segfault {stats['segfault']}, total {stats['total']}"
    )
    if stats.get("check_was_interrupted_by_user"):
        print("error: the mutmut run was interrupted; rerun to finish it", file=sys.stderr)
        return 1
    if score < args.min:
        print(f"error: mutation score {score:.1%} is under the target {args.min:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
