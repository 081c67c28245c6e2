"""A protocol bot that plays like discard_drawn.sh, then misbehaves at its first claim ask.

Modes: crash (exit 3), fail (says why on standard error after 200 KB of other diagnostics,
then exits 2), sleep (never answers), garbage (answers nonsense), illegal (claims a win it
was not offered), chatty (writes a line nobody asked for), good (never misbehaves), noisy
(never misbehaves, but writes 200 KB to standard error at every ask). Standard library only,
so it starts in milliseconds.
"""

import sys
import time

mode = sys.argv[1]
drawn = ""
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    verb = words[0]
    if verb == "/start":
        print("ready bad-bot-" + mode, flush=True)
    elif verb == "/initCard":
        drawn = [t for t in words[1:] if not t.endswith("f")][-1]
    elif verb == "/mo" and not words[1].endswith("f"):
        drawn = words[1]
    elif verb == "/ask" and mode == "noisy":
        sys.stderr.write(("thinking " * 20 + "\n") * 1100)  # more than a pipe holds
        sys.stderr.flush()
        print("throw " + drawn if words[1] == "throw" else "pass", flush=True)
    elif verb == "/ask" and words[1] == "throw":
        # chatty: one more line in the same write as the answer, so it is already waiting
        # when the referee next speaks (a line written later could race with that ask)
        print("throw " + drawn + ("\nI threw " + drawn if mode == "chatty" else ""), flush=True)
    elif verb == "/ask":
        if mode == "crash":
            sys.exit(3)
        if mode == "fail":
            sys.stderr.write(("thinking " * 20 + "\n") * 1100 + "error: no model file runs/m.pt\n\n")
            sys.exit(2)
        if mode == "sleep":
            time.sleep(60)
        if mode == "garbage":
            print("hello referee", flush=True)
        elif mode == "illegal":
            print("win" if "win" not in words else "kong", flush=True)
        else:
            print("pass", flush=True)
    elif verb == "/quit":
        break
