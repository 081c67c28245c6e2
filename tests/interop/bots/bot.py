"""A tiny stand-alone Botzone Dou Dizhu bot for the judge's tests (no paiju import).

Usage: bot.py MODE [--keep]. MODE "minimal" always answers legally: it bids one more than
the bids so far, passes when following and leads its lowest card. The other modes misbehave
at their first play request: "crash" exits with code 3, "sleep" never answers in time,
"garbage" prints text that is not JSON, "illegal" plays two cards of different ranks (no
move at all), "stolen" plays a card it does not hold.
"""

import json
import sys
import time


def level(card):
    return card // 4 + card // 53


def answer(requests, responses, mode):
    last = requests[-1]
    if "history" not in last:
        return len(last["bid"]) + 1
    plays = [i for i, r in enumerate(requests) if "history" in r]
    first = requests[plays[0]]
    public = first.get("publiccard", first.get("public", []))
    own = set(first["own"])
    if "landlord" in first:
        if first["landlord"] == first["pos"]:
            own |= set(public)
    elif not any(first["history"]):
        own |= set(public)
    for i in plays[:-1]:
        own -= set(responses[i])
    hand = sorted(own, key=lambda c: (level(c), c))
    if len(plays) == 1 and mode != "minimal":
        if mode == "crash":
            sys.exit(3)
        if mode == "sleep":
            time.sleep(30)
        if mode == "garbage":
            return "GARBAGE"
        if mode == "stolen":
            return [c for c in range(54) if c not in own][:1]
        if mode == "illegal":  # two cards of different ranks (never the rocket here)
            return [hand[0], *[c for c in hand if level(c) != level(hand[0])][:1]]
    if any(last["history"]):
        return []
    return hand[:1]


def main():
    mode = sys.argv[1]
    keep = "--keep" in sys.argv
    requests, responses = [], []
    line = sys.stdin.readline()
    while line:
        obj = json.loads(line)
        if "requests" in obj:
            requests, responses = obj["requests"], obj["responses"]
        else:
            requests.append(obj)
        reply = answer(requests, responses, mode)
        responses.append(reply)
        if reply == "GARBAGE":
            print("hello, judge")
        else:
            print(json.dumps({"response": reply}))
        if not keep:
            return
        print(">>>BOTZONE_REQUEST_KEEP_RUNNING<<<", flush=True)
        line = sys.stdin.readline()


main()
