"""Every command × every class of bad input: exit code 2 and one line on stderr naming it.

Each row is run in-process through :func:`paiju.cli.main.run` (the console script's body), so
Typer's own usage errors, values refused while the command line is parsed and errors raised
by the commands all go through the one place that prints them. The commands are enumerated
from the Typer app, and every one of them must have rows here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer.main

from paiju.cli.main import app, run
from paiju.cli.validate import MAX_GAMES, MAX_SEED
from paiju.doudizhu.cards import Deal

TOO_BIG_SEED = str(MAX_SEED + 1)
NEG = "-1"
SELF = ["ddz", "selfplay", "-a", "random"]
VALUE = ["dih", "value", "--dist=-1:0.5,1:0.5"]
SELECT = ["dih", "select", "--pool"]
DISTS = ["dih", "dists", "--out", "{missing}"]
ARENA = ["arena", "-g", "doudizhu", "-a", "rule,random"]
MJ_ARENA = ["mahjong", "arena", "-a", "greedy,random"]
AZ_3X3 = f"az:model={Path(__file__).parents[2] / 'src/paiju/yuxi/models/az-3x3.pt'}"
AZ_NOT_6X4 = "trained on boards 3x3, not on this room's 6x4"
SUP = ["mahjong", "train-supervised", "--data", "{junk}", "--model", "mlp", "--out", "{dir}"]

# (argv with {placeholders}, expected exit code, fragment of the one stderr line)
# placeholders: {file} an existing file, {dir} an existing empty folder, {missing} a path that
# does not exist, {under_file} a path below a file (cannot be created), {pool} a valid pool
# file, {junk} a file holding no valid content.
ROWS: list[tuple[list[str], int, str]] = [
    # --- the root: usage errors --------------------------------------------------------
    (["nosuch"], 2, "No such command 'nosuch'"),
    (["ddz", "nosuch"], 2, "No such command 'nosuch'"),
    (["--nope"], 2, "No such option: --nope"),
    # --- ddz moves ---------------------------------------------------------------------
    (["ddz", "moves"], 2, "Missing argument 'hand'"),
    (["ddz", "moves", ""], 2, "empty hand"),
    (["ddz", "moves", "   "], 2, "empty hand"),
    (["ddz", "moves", "33a"], 2, "unknown card 'a'"),
    (["ddz", "moves", "33", "--bet", "3"], 2, "No such option: --bet"),
    (["ddz", "moves", "33", "--beat", ""], 2, "empty move"),
    (["ddz", "moves", "33", "--beat"], 2, "requires an argument"),
    (["ddz", "moves", "33", "--wings", "x"], 2, "--wings 'x'"),
    (["ddz", "moves", "33", "extra"], 2, "unexpected extra argument"),
    # --- ddz deal ----------------------------------------------------------------------
    (["ddz", "deal", "--seed", NEG], 2, "'--seed' / '-s': Input should be greater than or equal to 0"),
    (["ddz", "deal", "--seed", TOO_BIG_SEED], 2, f"less than or equal to {MAX_SEED}"),
    (["ddz", "deal", "--seed", "1e3"], 2, "valid integer"),
    # --- ddz play ----------------------------------------------------------------------
    (["ddz", "play", "--seed", NEG], 2, "greater than or equal to 0"),
    (["ddz", "play", "-a", "search:budget=999999999999,rule,rule"], 2, "above the maximum 5000"),
    (["ddz", "play", "-a", "search:width=0,rule,rule"], 2, "below the minimum 1"),
    (["ddz", "play", "-a", "random,random"], 2, "expected 3 agents"),
    (["ddz", "play", "-a", "nosuch,rule,rule"], 2, "unknown doudizhu agent 'nosuch'"),
    (["ddz", "play", "-a", "rule,,rule"], 2, "empty agent spec"),
    (["ddz", "play", "--deal", ""], 2, "empty deal"),
    (["ddz", "play", "--deal", "[33]"], 2, "expected three bracketed hands"),
    (["ddz", "play", "--scoring", "x"], 2, "unknown Dou Dizhu scoring rule 'x'"),
    # --- ddz tagger-data / tagger-train -------------------------------------------------
    (["ddz", "tagger-data", "--out", "{missing}"], 2, "Missing option '--records'"),
    (["ddz", "tagger-data", "--records", "{missing}", "--out", "{dir}/x.parquet"], 2, "does not exist"),
    (["ddz", "tagger-data", "--records", "{dir}", "--out", "{dir}/x.parquet"], 2, "holds no .parquet files"),
    (["ddz", "tagger-train", "--data", "{missing}", "--out", "{dir}"], 2, "does not exist"),
    (["ddz", "tagger-train", "--data", "{file}", "--out", "{dir}"], 2, "not a readable tagger dataset"),
    (["ddz", "tagger-train", "--data", "{file}", "--out", "{dir}", "--epochs", "0"], 2, "'--epochs'"),
    (["ddz", "tagger-eval", "--data", "{missing}"], 2, "does not exist"),
    (["ddz", "tagger-eval", "--data", "{file}"], 2, "not a readable tagger dataset"),
    (["ddz", "table5", "--out", "{dir}", "--players", "rule:split=x"], 2, "split='x' is not one of"),
    (["ddz", "table5", "--out", "{dir}", "--deals", "0"], 2, "'--deals'"),
    # --- ddz split ---------------------------------------------------------------------
    (["ddz", "split"], 2, "Missing argument 'hand'"),
    (["ddz", "split", ""], 2, "empty hand"),
    (["ddz", "split", "3z"], 2, "unknown card 'z'"),
    (["ddz", "split", "33", "-m", "x"], 2, "unknown split method 'x'"),
    # --- ddz selfplay ------------------------------------------------------------------
    ([*SELF, "-n", "1e20", "-o", "{missing}"], 2, "'--games' / '-n': Input should be a valid integer"),
    ([*SELF, "-n", "100000000000000000000", "-o", "{missing}"], 2, "less than or equal to 10000000"),
    ([*SELF, "-n", "0", "-o", "{missing}"], 2, "greater than or equal to 1"),
    ([*SELF, "-n", "2", "-w", "0", "-o", "{missing}"], 2, "'--workers' / '-w'"),
    ([*SELF, "-n", "2", "-w", "100000", "-o", "{missing}"], 2, "less than or equal to 256"),
    ([*SELF, "-n", "2", "-s", NEG, "-o", "{missing}"], 2, "'--seed' / '-s'"),
    ([*SELF, "-n", "2", "-o", ""], 2, "empty path"),
    ([*SELF, "-n", "2", "-o", "{file}"], 2, "is a file, not a folder"),
    ([*SELF, "-n", "2", "-o", "{under_file}"], 2, "cannot create folder"),
    (["ddz", "selfplay", "-a", "search:budget=0", "-n", "2", "-o", "{missing}"], 2, "below the minimum 1"),
    ([*SELF, "-n", "2"], 2, "Missing option '--out'"),
    # --- mahjong shanten ---------------------------------------------------------------
    (["mahjong", "shanten"], 2, "Missing argument 'hand'"),
    (["mahjong", "shanten", ""], 2, "empty hand"),
    (["mahjong", "shanten", "123x"], 2, "unknown suit 'x'"),
    (["mahjong", "shanten", "123m"], 2, "3k+1 or 3k+2"),
    # --- mahjong play ------------------------------------------------------------------
    (["mahjong", "play", "--seed", NEG], 2, "greater than or equal to 0"),
    (["mahjong", "play", "--seed", TOO_BIG_SEED], 2, "less than or equal to"),
    (["mahjong", "play", "-a", "greedy,greedy"], 2, "expected 4 agents"),
    (["mahjong", "play", "-a", "expectimax-shanten:depth=9,greedy,greedy,greedy"], 2, "above the maximum 3"),
    # --- mahjong arena -----------------------------------------------------------------
    ([*MJ_ARENA, "-n", "1e20"], 2, "valid integer"),
    ([*MJ_ARENA, "-n", "99999999"], 2, "less than or equal to 1000000"),
    ([*MJ_ARENA, "-n", "0"], 2, "greater than or equal to 1"),
    ([*MJ_ARENA, "--workers", "0"], 2, "'--workers'"),
    ([*MJ_ARENA, "--seed", NEG], 2, "'--seed'"),
    ([*MJ_ARENA, "--record", "{file}"], 2, "is a file, not a folder"),
    ([*MJ_ARENA, "--record", ""], 2, "empty path"),
    ([*MJ_ARENA, "--record", "{under_file}"], 2, "cannot create folder"),
    (["mahjong", "arena", "-a", "expectimax-shanten:alpha=5,random"], 2, "above the maximum 1"),
    ([*MJ_ARENA, "-n", "3"], 2, "not a whole number of deals"),
    # --- yuxi play ---------------------------------------------------------------------
    (["yuxi", "play", "--seed", NEG], 2, "'--seed'"),
    (["yuxi", "play", "--agents", "greedy"], 2, "expected 2 agents"),
    (["yuxi", "play", "--agents", "mcts:simulations=999999999,random"], 2, "above the maximum 20000"),
    (["yuxi", "play", "--board", "5x5"], 2, "unknown yuxi board '5x5'"),
    (["yuxi", "play", "--decks", "nosuch,storm_iron"], 2, "unknown yuxi deck 'nosuch'"),
    # --- yuxi audit --------------------------------------------------------------------
    (["yuxi", "audit", "--games", "0"], 2, "greater than or equal to 1"),
    (["yuxi", "audit", "--games", "1e20"], 2, "valid integer"),
    (["yuxi", "audit", "--games", "99999999"], 2, "less than or equal to 100000"),
    (["yuxi", "audit", "--seed", NEG], 2, "'--seed'"),
    (["yuxi", "audit", "--out", "{dir}"], 2, "is a folder, not a file"),
    (["yuxi", "audit", "--out", ""], 2, "empty path"),
    (["yuxi", "audit", "--out", "{missing}/report.json"], 2, "does not exist"),
    (["yuxi", "audit", "--out", "{file}/report.json"], 2, "a-file.txt is a file, not a folder"),
    (["yuxi", "audit", "--search", "mcts:simulations=-5"], 2, "below the minimum 0"),
    (["yuxi", "audit", "--search", "greedy,random"], 2, "--search 'greedy,random': expected 1 agents, got 2"),
    (["yuxi", "audit", "--boards", ","], 2, "name at least one board"),
    # --- yuxi replay -------------------------------------------------------------------
    (["yuxi", "replay"], 2, "Missing argument 'report'"),
    (["yuxi", "replay", "{missing}"], 2, "does not exist"),
    (["yuxi", "replay", "{dir}"], 2, "is a folder, not a file"),
    (["yuxi", "replay", ""], 2, "empty path"),
    (["yuxi", "replay", "{junk}"], 2, "junk: not a yuxi audit report"),
    (["yuxi", "replay", "{file}", "--index", NEG], 2, "'--index'"),
    # --- yuxi balance ------------------------------------------------------------------
    (["yuxi", "balance", "--games", "0"], 2, "greater than or equal to 1"),
    (["yuxi", "balance", "--games", "99999999"], 2, "less than or equal to 100000"),
    (["yuxi", "balance", "--workers", "0"], 2, "'--workers'"),
    (["yuxi", "balance", "--seed", NEG], 2, "'--seed'"),
    (["yuxi", "balance", "--out-dir", "{file}"], 2, "is a file, not a folder"),
    (["yuxi", "balance", "--out-dir", ""], 2, "empty path"),
    (["yuxi", "balance", "--out-dir", "{under_file}"], 2, "cannot create folder"),
    (["yuxi", "balance", "--agents", "greedy"], 2, "expected 2 agents"),
    (["yuxi", "balance", "--agents", "greedy,mcts:c=1000"], 2, "above the maximum 100"),
    # --- yuxi train-az (issue 17) -------------------------------------------------------
    (["yuxi", "train-az"], 2, "Missing option '--out'"),
    (["yuxi", "train-az", "--out", "{file}"], 2, "is a file, not a folder"),
    (["yuxi", "train-az", "--out", "{missing}", "--simulations", "0"], 2, "'--simulations'"),
    (["yuxi", "train-az", "--out", "{missing}", "--boards", "5x5"], 2, "5x5"),
    (["yuxi", "train-az", "--out", "{missing}", "--search-hidden", "peek"], 2, "hidden='peek' must"),
    (["yuxi", "train-az", "--out", "{missing}", "--decks", "tempest"], 2, "give two deck keys"),
    (["yuxi", "train-az", "--out", "{missing}", "--decks", "tempest,nope"], 2, "no deck 'nope'"),
    (["yuxi", "train-az", "--out", "{missing}", "--lr", "0"], 2, "'--lr'"),
    (["yuxi", "train-az", "--out", "{missing}", "--root-value-weight", "1.5"], 2, "'--root-value-weight'"),
    (["yuxi", "play", "--agents", "az:model={missing},greedy"], 2, "{missing}"),
    # a model for one board is refused on another before the first game, by every command
    (["yuxi", "play", "--agents", f"{AZ_3X3},greedy", "--board", "6x4"], 2, AZ_NOT_6X4),
    (["yuxi", "match", AZ_3X3, "greedy", "--boards", "6x4"], 2, AZ_NOT_6X4),
    (["yuxi", "ladder", f"greedy;{AZ_3X3}", "--boards", "3x3,6x4"], 2, AZ_NOT_6X4),
    (["yuxi", "balance", "--agents", f"{AZ_3X3},greedy", "--boards", "6x4"], 2, AZ_NOT_6X4),
    (["yuxi", "audit", "--search", AZ_3X3, "--boards", "6x4", "--games", "2"], 2, AZ_NOT_6X4),
    (["arena", "-g", "yuxi", "-a", f"{AZ_3X3},greedy", "-o", "board=6x4", "-n", "2"], 2, AZ_NOT_6X4),
    # --- az train (issue 17, item 6) ---------------------------------------------------
    (["az", "train", "-g", "connect_four"], 2, "Missing option '--out'"),
    (["az", "train", "-g", "tictactoe", "--out", "{missing}"], 2, "AlphaZero trains connect_four, gomoku"),
    (["az", "train", "-g", "nosuch", "--out", "{missing}"], 2, "--game 'nosuch'"),
    (["az", "train", "-g", "gomoku", "-o", "size=9", "--out", "{missing}"], 2, "no option 'size'"),
    (["az", "train", "-g", "gomoku", "-o", "rows=2", "--out", "{missing}"], 2, "win_length=5 must be"),
    (["az", "train", "-g", "gomoku", "-o", "rows=99", "--out", "{missing}"], 2, "1..25 rows and columns"),
    (["az", "train", "-g", "connect_four", "--out", "{file}"], 2, "is a file, not a folder"),
    (["az", "train", "-g", "connect_four", "--out", "{missing}", "--games", "0"], 2, "'--games'"),
    (["az", "train", "-g", "connect_four", "--out", "{missing}", "--value-target", "nope"], 2,
     "'nope': use outcome"),
    (["az", "train", "-g", "connect_four", "--out", "{missing}", "--init-data", "{missing}"], 2,
     "not a finished teacher-data folder"),
    # --- az teacher-data (issue 46, item 1) ----------------------------------------------
    (["az", "teacher-data", "-g", "connect_four"], 2, "Missing option '--out'"),
    (["az", "teacher-data", "-g", "tictactoe", "--out", "{missing}"], 2,
     "teacher data for connect_four, gomoku"),
    (["az", "teacher-data", "-g", "connect_four", "--out", "{file}"], 2, "is a file, not a folder"),
    (["az", "teacher-data", "-g", "connect_four", "--out", "{missing}", "--games", "0"], 2, "'--games'"),
    (["az", "teacher-data", "-g", "connect_four", "--out", "{missing}", "--teacher", "nosuch"], 2,
     "unknown connect_four agent 'nosuch'"),
    (["az", "teacher-data", "-g", "connect_four", "--out", "{missing}", "--teacher", "random"], 2,
     "keeps no search result"),
    # --- yuxi match --------------------------------------------------------------------
    (["yuxi", "match", "greedy"], 2, "Missing argument"),
    (["yuxi", "match", "greedy", "nosuch"], 2, "unknown yuxi agent 'nosuch'"),
    (["yuxi", "match", "greedy", "random", "--pairs", "0"], 2, "'--pairs'"),
    (["yuxi", "match", "greedy", "random", "--decks", "a,b,c"], 2, "give two deck keys"),
    (["yuxi", "match", "greedy", "az:model={missing}"], 2, "does not exist"),
    (["yuxi", "ladder", "greedy"], 2, "at least two distinct agent specs"),
    (["yuxi", "ladder", "greedy;nosuch"], 2, "unknown yuxi agent 'nosuch'"),
    (["yuxi", "ladder", "greedy;random", "--pairs", "0"], 2, "'--pairs'"),
    (["yuxi", "ladder", "greedy;random", "--out-dir", "{file}"], 2, "is a file, not a folder"),
    # --- yuxi cards --------------------------------------------------------------------
    (["yuxi", "cards", "--cards-file", "{missing}"], 2, "does not exist"),
    (["yuxi", "cards", "--decks-file", "{dir}"], 2, "is a folder, not a file"),
    (["yuxi", "cards", "--decks-file", ""], 2, "empty path"),
    (["yuxi", "cards", "--decks-file", "{junk}"], 2, "junk: the yuxi deck file is not valid TOML"),
    (["yuxi", "cards", "--decks-file", "{bad_decks}"], 2, "bad_decks.toml: deck 'mine'"),
    # --- dih value ---------------------------------------------------------------------
    ([*VALUE, "-n", "10", "-m", "99999", "-r", "1"], 2, "less than or equal to 200"),
    ([*VALUE, "-n", "0", "-m", "2", "-r", "1"], 2, "'--players' / '-n'"),
    ([*VALUE, "-n", "1e20", "-m", "2", "-r", "1"], 2, "valid integer"),
    ([*VALUE, "-n", "999999", "-m", "2", "-r", "1"], 2, "less than or equal to 100000"),
    ([*VALUE, "-n", "5", "-m", "2", "-r", "6"], 2, "larger than the number of players"),
    (["dih", "value", "--dist=-1:0.5,1:0.6", "-n", "5", "-m", "2", "-r", "1"], 2, "probabilities sum to 1.1"),
    (["dih", "value", "-n", "5", "-m", "2", "-r", "1"], 2, "Missing option '--dist'"),
    # --- dih select --------------------------------------------------------------------
    ([*SELECT, "{missing}", "--dists", "{dir}", "-n", "5", "-m", "2", "-r", "1"], 2, "does not exist"),
    ([*SELECT, "{pool}", "--dists", "{dir}", "-n", "5", "-m", "2", "-r", "1"], 2, "holds no .parquet files"),
    ([*SELECT, "{pool}", "--dists", "{missing}", "-n", "5", "-m", "2", "-r", "1"], 2, "does not exist"),
    (
        [*SELECT, "{pool}", "--dists", "{pool}", "-n", "5", "-m", "61", "-r", "1"],
        2,
        "less than or equal to 60",
    ),
    (
        [*SELECT, "{pool}", "--dists", "{pool}", "-n", "5", "-m", "2", "-r", "1", "--beam", "17"],
        2,
        "less than or equal to 16",
    ),
    (
        [*SELECT, "{pool}", "--dists", "{pool}", "-n", "5", "-m", "2", "-r", "1", "--min-plays", "0"],
        2,
        "'--min-plays'",
    ),
    # --- dih pool ----------------------------------------------------------------------
    (["dih", "pool", "--out", ""], 2, "empty path"),
    (["dih", "pool", "--out", "{dir}"], 2, "is a folder, not a file"),
    (["dih", "pool", "--out", "{missing}/pool.txt"], 2, "does not exist"),
    (["dih", "pool", "--out", "{missing}", "--count", "0"], 2, "greater than or equal to 1"),
    (["dih", "pool", "--out", "{missing}", "--count", "1e20"], 2, "valid integer"),
    (["dih", "pool", "--out", "{missing}", "--count", "99999999"], 2, "less than or equal to 1000000"),
    (["dih", "pool", "--out", "{missing}", "--seed", NEG], 2, "'--seed'"),
    # --- dih dists ---------------------------------------------------------------------
    (["dih", "dists", "--out", "{dir}", "--pool", "{pool}"], 2, "is a folder, not a file"),
    (["dih", "dists", "--out", "", "--pool", "{pool}"], 2, "empty path"),
    ([*DISTS, "--pool", "{missing}"], 2, "does not exist"),
    ([*DISTS, "--records", "{dir}"], 2, "holds no .parquet files"),
    ([*DISTS, "--pool", "{pool}", "--plays", "0"], 2, "'--plays'"),
    ([*DISTS, "--pool", "{pool}", "--plays", "99999999"], 2, "less than or equal to 100000"),
    ([*DISTS, "--pool", "{pool}", "--workers", "0"], 2, "'--workers'"),
    ([*DISTS, "--pool", "{pool}", "--seed", NEG], 2, "'--seed'"),
    ([*DISTS, "--pool", "{pool}", "--cache", "{file}"], 2, "is a file, not a folder"),
    ([*DISTS, "--pool", "{pool}", "--population", "landlord=nosuch;farmer1=rule"], 2, "'nosuch'"),
    (["dih", "dists", "--out", "{missing}"], 2, "exactly one of --pool"),
    # --- dih validate ------------------------------------------------------------------
    (["dih", "validate", "--config", "{missing}"], 2, "does not exist"),
    (["dih", "validate", "--config", "{junk}"], 2, "junk: not valid TOML"),
    (["dih", "validate", "--plot", "{dir}"], 2, "is a folder, not a file"),
    (["dih", "validate", "--out-json", ""], 2, "empty path"),
    (["dih", "validate", "--tournaments", "0"], 2, "greater than or equal to 1"),
    (["dih", "validate", "--tournaments", "1e20"], 2, "valid integer"),
    (["dih", "validate", "--cache", "{under_file}"], 2, "cannot create folder"),
    # --- arena -------------------------------------------------------------------------
    ([*ARENA, "-n", "1e20"], 2, "'--games' / '-n': Input should be a valid integer"),
    ([*ARENA, "-n", str(10 * MAX_GAMES)], 2, f"less than or equal to {MAX_GAMES}"),
    ([*ARENA, "-n", "0"], 2, "greater than or equal to 1"),
    ([*ARENA, "--workers", "0"], 2, "'--workers'"),
    ([*ARENA, "--seed", NEG], 2, "'--seed'"),
    ([*ARENA, "--record", "{file}"], 2, "is a file, not a folder"),
    ([*ARENA, "--record", ""], 2, "empty path"),
    ([*ARENA, "--record", "{under_file}"], 2, "cannot create folder"),
    (["arena", "-g", "doudizhu", "-a", "search:budget=999999999999,rule"], 2, "above the maximum 5000"),
    (["arena", "-g", "nosuch", "-a", "rule,random"], 2, "unknown game 'nosuch'"),
    ([*ARENA, "-o", "wings=rlcard"], 2, "doudizhu has no option 'wings'"),
    ([*ARENA, "-o", "wing_rule=strict"], 2, "unknown wing_rule 'strict'"),
    ([*ARENA, "-o", "bidding=maybe"], 2, "use true or false"),
    ([*ARENA, "-o", "wing_rule"], 2, "write key=value"),
    (["arena", "-g", "mahjong", "-a", "greedy,random", "-o", "min_tai=x"], 2, "not a whole number"),
    (
        ["arena", "-g", "mahjong", "-a", "greedy,random", "-o", "dead_wall=99"],
        2,
        "dead_wall=99 must be in 0..40",
    ),
    (
        ["arena", "-g", "mahjong", "-a", "greedy,random", "-o", "multi_ron=some"],
        2,
        "use one of all, head_bump",
    ),
    (["arena", "-g", "yuxi", "-a", "greedy,random", "-o", "board=5x5"], 2, "unknown yuxi board '5x5'"),
    ([*ARENA, "-n", "3"], 2, "3 games is not a whole number of deals"),
    (["arena", "-a", "rule,random"], 2, "Missing option '--game'"),
    # --- demo --------------------------------------------------------------------------
    (["demo", "--seed", NEG], 2, "'--seed' / '-s'"),
    (["demo", "-a", "search:budget=999999,rule,rule"], 2, "above the maximum 5000"),
    (["demo", "-a", "rule,rule"], 2, "expected 3 agents"),
    # --- serve (every row fails while parsing: no server starts) -----------------------
    (["serve", "--host", "8.8.8.8"], 2, "cannot listen on 8.8.8.8"),
    (["serve", "--host", "bad host!"], 2, "neither an IP address nor a host name"),
    (["serve", "--host", ""], 2, "empty address"),
    (["serve", "--port", "0"], 2, "'--port'"),
    (["serve", "--port", "70000"], 2, "less than or equal to 65535"),
    (["serve", "--data", "{file}"], 2, "is a file, not a folder"),
    (["serve", "--data", "{under_file}"], 2, "cannot create folder"),
    (["serve", "--ai-time-limit", "0"], 2, "'--ai-time-limit'"),
    (["serve", "--reports", "{missing}"], 2, "does not exist"),
    (["serve", "--reports", "{file}"], 2, "is a file"),
    # --- tournament --------------------------------------------------------------------
    (["tournament", "plan", "-n", "0", "-m", "2", "--top", "1"], 2, "'--players' / '-n'"),
    (["tournament", "plan", "-n", "9", "-m", "2", "--top", "9"], 2, "top must be a whole number from 1 to 8"),
    (["tournament", "plan", "-n", "9", "-m", "2", "--top", "1", "--comparison", "imps"], 2,
     "--comparison 'imps'"),
    (["tournament", "plan", "-n", "9", "-m", "2", "--top", "1", "--pool", "{missing}"], 2, "does not exist"),
    (["tournament", "new", "{missing}"], 2, "Missing option '--players'"),
    (["tournament", "new", "{missing}", "--players", "{missing}"], 2, "does not exist"),
    (["tournament", "new", "{missing}", "--players", "{junk}"], 2, "row 1, column 1: unknown column"),
    (["tournament", "new", "{under_file}", "--players", "{file}"], 2, "is a file, not a folder"),
    (["tournament", "players", "{missing}"], 2, "does not exist"),
    (["tournament", "players", "{junk}"], 2, "is not a paiju event file"),
    (["tournament", "pair", "{file}"], 2, "Missing option '--round'"),
    (["tournament", "pair", "{file}", "--round", "0"], 2, "'--round' / '-r'"),
    (["tournament", "pair", "{junk}", "--round", "1"], 2, "is not a paiju event file"),
    (["tournament", "boards", "{file}", "-r", "1", "--pool", "{missing}"], 2, "does not exist"),
    (["tournament", "boards", "{file}", "-r", "1", "--dists", "{dir}"], 2, "holds no .parquet files"),
    (["tournament", "boards", "{junk}", "-r", "1"], 2, "is not a paiju event file"),
    (["tournament", "release", "{missing}", "-r", "1"], 2, "does not exist"),
    (["tournament", "sheets", "{file}", "-r", "1", "--out", "{under_file}"], 2, "cannot create folder"),
    (["tournament", "sheets", "{junk}", "-r", "1", "--out", "{missing}"], 2, "is not a paiju event file"),
    (["tournament", "log", "{dir}"], 2, "is a folder, not a file"),
    (["tournament", "enter", "{file}", "-r", "1"], 2, "Missing option '--file'"),
    (["tournament", "enter", "{file}", "-r", "1", "-f", "{missing}"], 2, "does not exist"),
    (["tournament", "results", "{junk}"], 2, "is not a paiju event file"),
    (["tournament", "correct", "{file}", "-r", "1", "-t", "1", "-b", "1"], 2, "Missing option '--reason'"),
    (["tournament", "pins", "{missing}", "-r", "1"], 2, "does not exist"),
    (["tournament", "adjust", "{junk}", "list"], 2, "is not a paiju event file"),
    (["tournament", "standings", "{file}", "--html", "{under_file}"], 2, "is a file, not a folder"),
    (["tournament", "masterpoints", "{file}"], 2, "Missing option '--points-table'"),
    # --- records -----------------------------------------------------------------------
    (["records", "list", "{missing}"], 2, "missing does not exist"),
    (["records", "list", "{file}"], 2, "is a file, not a folder of records"),
    (["records", "list", "{dir}"], 2, "no game records here"),
    (["records", "list", ""], 2, "empty path"),
    (["records", "show", "{missing}", "0"], 2, "does not exist"),
    (["records", "show", "{dir}", "0"], 2, "has no game 0"),
    (["records", "replay", "{dir}"], 2, "no run.json"),
    (["records", "replay", "{dir}", "--indices", "1,x"], 2, "write indices like 0,3,10-19"),
    (["records", "import", "{junk}", "{missing}"], 2, "junk:1: not valid JSON"),
    (["records", "import", "{missing}", "{dir}"], 2, "does not exist"),
    (["records", "import", "{dir}", "{missing}"], 2, "is a folder, not a file"),
    (["records", "export", "{missing}"], 2, "does not exist"),
    (["records", "export", "{dir}", "-o", "{dir}"], 2, "is a folder, not a file"),
    # --- botzone -----------------------------------------------------------------------
    (["botzone", "ddz", "--agent", "nosuch"], 2, "unknown doudizhu agent 'nosuch'"),
    (["botzone", "ddz", "--agent", "search:budget=999999999"], 2, "above the maximum 5000"),
    (["botzone", "ddz", "--wings", "strict"], 2, "--wings 'strict'"),
    (["botzone", "ddz", "--seed", NEG], 2, "'--seed'"),
    (["botzone", "judge", "a", "b"], 2, "name 3 bot commands, got 2"),
    (["botzone", "judge", "a", "b", "c", "--games", "0"], 2, "'--games' / '-n'"),
    (["botzone", "judge", "a", "b", "c", "--time-limit", "0"], 2, "'--time-limit' / '-t'"),
    (["botzone", "judge", "a", "b", "'c"], 2, "bot command \"'c\": No closing quotation"),
    (["botzone", "judge", "a", "b", "c", "--record", "{file}"], 2, "is a file, not a folder"),
    # --- yuxi card files and the human seat (issue 16) ---------------------------------
    (["yuxi", "play", "--cards-file", "{missing}"], 2, "does not exist"),
    (["yuxi", "play", "--decks-file", "{bad_decks}"], 2, "field 'cards.no_such_card' is not a card key"),
    (["yuxi", "play", "--human", "2"], 2, "'--human'"),
    (["yuxi", "play", "--human", "0", "--json"], 2, "--human and --json"),
    (["yuxi", "audit", "--cards-file", "{junk}"], 2, "the yuxi card file is not valid TOML"),
    (["yuxi", "audit", "--decks-file", "{dir}"], 2, "is a folder, not a file"),
    (["yuxi", "balance", "--cards-file", "{junk}"], 2, "the yuxi card file is not valid TOML"),
    (["yuxi", "balance", "--decks-file", "{bad_decks}"], 2, "deck 'mine'"),
    (["yuxi", "replay", "{junk}", "--cards-file", "{missing}"], 2, "does not exist"),
    (["yuxi", "audit", "--decks", "nosuch"], 2, "unknown yuxi deck 'nosuch'"),
    (["yuxi", "audit", "--fuzz", "999999999"], 2, "'--fuzz'"),
    (["yuxi", "balance", "--decks", ","], 2, "name at least one deck"),
    # --- mahjong score / advise (issue 14) ----------------------------------------------
    (["mahjong", "score", "123456m789p23467s55p"], 2, "Missing option '--win'"),
    (["mahjong", "score", "", "--win", "8s"], 2, "empty hand"),
    (["mahjong", "score", "123456m789p23468s55p", "--win", "8s", "--discarder", "2"], 2,
     "not a winning hand"),
    (["mahjong", "score", "123456m789p23467s55p9s", "--win", "8s", "--discarder", "2"], 2,
     "wrong tile count"),
    (["mahjong", "score", "1111m234m789p234s", "-m", "111m", "--win", "5p", "--discarder", "2"], 2,
     "more than 4 copies of 1m"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "-f", "last-tile", "--discarder", "2"], 2,
     "add the flag self-draw"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "--discarder", "2", "--flowers", "1f"], 2,
     "flowers given while the rule set has none"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "-f", "nosuch"], 2, "unknown flag 'nosuch'"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "-m", "124m"], 2, "not a chow"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "-o", "min_tai=x"], 2, "not a whole number"),
    (["mahjong", "score", "123456m789p23467s55p", "--win", "8s", "--seat", "4"], 2, "'--seat'"),
    (["mahjong", "advise", "123456789m234p5567s"], 2, "wrong tile count"),
    (["mahjong", "advise", ""], 2, "empty hand"),
    (["mahjong", "advise", "123456789m234p5567s7z", "--seen", "7777z"], 2, "more than 4 copies of 7z"),
    (["mahjong", "advise", "123456789m234p5567s7z", "--left", "72"], 2, "'--left'"),
    (["mahjong", "advise", "123456789m234p5567s7z", "--depth", "9"], 2, "'--depth'"),
    (["mahjong", "advise", "123456789m234p5567s7z", "-o", "nosuch=1"], 2, "no option 'nosuch'"),
    # --- mahjong train-dqn (issue 18) ----------------------------------------------------
    (["mahjong", "train-dqn"], 2, "Missing option '--out'"),
    (["mahjong", "train-dqn", "--out", "{file}"], 2, "is a file, not a folder"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--resume"], 2, "holds no checkpoint.pt"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--algorithm", "ppo"], 2, "algorithm='ppo'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--trunk", "vit"], 2, "trunk='vit'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--features", "raw"], 2, "features='raw'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--features", "shape", "--trunk", "resnet"], 2,
     "is for the mlp trunk"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--steps", "0"], 2, "'--steps'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--hidden", "64,x"], 2, "'--hidden': '64,x'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--behaviour", "greedy"], 2, "not an Expectimax"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--behaviour", "expectimax-shanten:depth=2"], 2,
     "--behaviour-depth"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--behaviour", "expectimax-shanten:alpha=5"], 2,
     "above the maximum 1"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--behaviour-depth", "4"], 2, "'--behaviour-depth'"),
    (["mahjong", "train-dqn", "--out", "{missing}", "--workers", "0"], 2, "'--workers'"),
    # --- mahjong bot / referee (issue 19) -------------------------------------------------
    (["mahjong", "bot", "--agent", "nosuch"], 2, "unknown mahjong agent 'nosuch'"),
    (["mahjong", "bot", "--agent", "expectimax-shanten:depth=9"], 2, "above the maximum 3"),
    (["mahjong", "bot", "--seed", NEG], 2, "'--seed'"),
    (["mahjong", "referee", "--bots", "a", "b", "c"], 2, "name 4 bot commands, got 3"),
    (["mahjong", "referee"], 2, "Missing option '--bots'"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "d", "--hands", "0"], 2, "'--hands' / '-n'"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "d", "-t", "0"], 2, "'--time-limit' / '-t'"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "'d"], 2, "bot command \"'d\": No closing quotation"),
    (["mahjong", "referee", "--bots", "a", "b", "c", ""], 2, "empty bot command"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "d", "-o", "mode=game"], 2, "plays hand by hand"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "d", "-o", "nosuch=1"], 2, "no option 'nosuch'"),
    (["mahjong", "referee", "--bots", "a", "b", "c", "d", "--record", "{file}"], 2,
     "is a file, not a folder"),
    # --- arena --match (issue 14: full mahjong matches) ------------------------------------
    (["arena", "-g", "mahjong", "-a", "greedy,random", "--match", "south"], 2,
     "--match 'south': say east, east-south, full or a number of rounds 1..4"),
    (["arena", "-g", "mahjong", "-a", "greedy,random", "--match", "5"], 2, "a number of rounds 1..4"),
    (["arena", "-g", "mahjong", "-a", "greedy,random", "--match", "east", "-o", "rounds=2"], 2,
     "--match sets the option(s) rounds"),
    (["arena", "-g", "mahjong", "-a", "greedy,random", "--match", "east", "-o", "mode=hand"], 2,
     "give --match or --option, not both"),
    ([*ARENA, "--match", "east"], 2, "--match is for mahjong"),
    (["arena", "-g", "mahjong", "-a", "greedy,random", "--match"], 2, "'--match' requires an argument"),
    # --- agents: the per-game agent lists ---------------------------------------------------------
    (["agents", "chess"], 2, "unknown game 'chess'"),
    (["agents", "mahjong", "extra"], 2, "unexpected extra argument"),
    # --- mahjong search-data / train-reader (learning from the search) -------------------------
    (["mahjong", "search-data", "--out", "{missing}", "--hands", "0"], 2, "'--hands' / '-n'"),
    (["mahjong", "search-data", "--out", "{missing}", "-p", "nosuch"], 2, "nosuch"),
    (["mahjong", "search-data", "--out", "{missing}", "--teacher", "greedy"], 2, "values no options"),
    (["mahjong", "search-data", "--out", "{file}"], 2, "is a file"),
    (["mahjong", "train-reader", "--data", "{missing}", "--out", "{missing}"], 2, "does not exist"),
    (["mahjong", "train-reader", "--data", "{file}", "--out", "{missing}"], 2, "is a file, not a folder"),
    (["mahjong", "train-reader", "--data", "{dir}", "--out", "{missing}"], 2, "not a finished search-data"),
    (["mahjong", "train-reader", "--data", "{dir}", "--out", "{missing}", "--hidden", "0"], 2, "--hidden"),
    (["mahjong", "train-distill", "--data", "{dir}", "--out", "{missing}"], 2, "not a finished search-data"),
    (["mahjong", "train-distill", "--data", "{missing}", "--out", "{missing}"], 2, "does not exist"),
    (["mahjong", "train-distill", "--data", "{dir}", "--out", "{missing}", "--value-hidden", "0"], 2,
     "--value-hidden"),
    (["mahjong", "finetune-dqn", "--data", "{dir}", "--out", "{missing}"], 2, "not a finished search-data"),
    (["mahjong", "finetune-dqn", "--data", "{missing}", "--out", "{missing}"], 2, "does not exist"),
    (["mahjong", "finetune-dqn", "--data", "{dir}", "--out", "{missing}", "--algorithm", "sarsa"], 2,
     "algorithm='sarsa'"),
    (["mahjong", "finetune-dqn", "--data", "{dir}", "--out", "{missing}", "--margin", "-1"], 2, "'--margin'"),
    (["mahjong", "expert-iteration", "--out", "{missing}", "--round", "0"], 2, "'--round'"),
    (["mahjong", "expert-iteration", "--out", "{missing}", "--others", "nosuch"], 2, "nosuch"),
    (["mahjong", "expert-iteration", "--out", "{missing}", "--round", "2"], 2, "run round 1 first"),
    (["mahjong", "expert-iteration", "--out", "{missing}", "--init", "{missing}.pt"], 2, "does not exist"),
    (["mahjong", "expert-iteration", "--out", "{file}"], 2, "is a file"),
    # --- mahjong discard-data / train-supervised (issue 18: the supervised baselines) ----------
    (["mahjong", "discard-data", "--out", "{missing}.parquet", "--hands", "0"], 2, "'--hands' / '-n'"),
    (["mahjong", "discard-data", "--out", "{missing}.parquet", "-a", "nosuch"], 2,
     "unknown mahjong agent 'nosuch'"),
    (["mahjong", "discard-data", "--out", "{missing}.parquet", "-a", "expectimax-shanten:depth=9"], 2,
     "above the maximum 3"),
    (["mahjong", "discard-data", "--out", "{dir}"], 2, "is a folder, not a file"),
    (["mahjong", "discard-data", "--out", "{under_file}"], 2, "is a file, not a folder"),
    (["mahjong", "discard-data", "--out", "{file}"], 2, "already exists"),
    (["mahjong", "discard-data", "--out", "{missing}.parquet", "--workers", "0"], 2, "'--workers'"),
    (["mahjong", "train-supervised", "--model", "mlp", "--out", "{missing}"], 2, "Missing option '--data'"),
    # --- mahjong table4 / alpha-sweep (issue 18, items 7-8) ------------------------------------
    (["mahjong", "table4", "--out", "{missing}", "--only", "nosuch"], 2, "unknown algorithm 'nosuch'"),
    (["mahjong", "table4", "--out", "{missing}", "--only", "mlp,"], 2, "empty name in --only"),
    (["mahjong", "table4", "--out", "{missing}", "--models", "{dir}", "--only", "mlp,ddqn"], 2,
     "model file(s) missing"),
    (["mahjong", "table4", "--out", "{missing}", "--only", "expectimax", "-b", "nosuch"], 2,
     "unknown mahjong agent 'nosuch'"),
    (["mahjong", "table4", "--out", "{missing}", "--walls", "0"], 2, "'--walls'"),
    (["mahjong", "table4", "--out", "{file}"], 2, "is a file, not a folder"),
    (["mahjong", "table4", "--out", "{missing}", "--workers", "0"], 2, "'--workers'"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{missing}.pt"], 2, "does not exist"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{file}", "--alphas", "0.2,x"], 2,
     "not a list of numbers"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{file}", "--alphas", "1.5"], 2,
     "alpha=1.5 must be in (0, 1]"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{file}", "--depths", "5"], 2,
     "depth=5 must be 1, 2 or 3"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{file}", "--network", "x"], 2,
     "network='x' must be dqn or ddqn"),
    (["mahjong", "alpha-sweep", "--out", "{missing}", "--model", "{file}", "--walls", "0"], 2, "'--walls'"),
    (["mahjong", "train-supervised", "--data", "{missing}", "--model", "mlp", "--out", "{dir}"], 2,
     "does not exist"),
    ([*SUP[:5], "vit", *SUP[6:]], 2, "model='vit'"),
    (SUP, 2, "not a Parquet discard-data file"),
    (["mahjong", "train-supervised", "--data", "{junk}", "--model", "mlp", "--out", "{file}"], 2,
     "is a file, not a folder"),
    ([*SUP, "--resume"], 2, "holds no checkpoint.pt"),
    ([*SUP, "--validation", "0.6", "--test", "0.6"], 2, "sum below 1"),
    ([*SUP, "--epochs", "0"], 2, "'--epochs'"),
    ([*SUP, "--hidden", "64,x"], 2, "'--hidden': '64,x'"),
    ([*SUP, "--target", "win"], 2, "target='win': must be one of discard, score"),
    ([*SUP, "--features", "planes"], 2, "features='planes'"),
    ([*SUP[:5], "cnn", *SUP[6:], "--features", "shape"], 2, "is for the flat models"),
    ([*SUP[:5], "svm", *SUP[6:], "--target", "score"], 2, "svm is a discard classifier"),
    ([*SUP, "--score-scale", "0"], 2, "'--score-scale'"),
    (["mahjong", "arena", "-a", "expectimax-ddqn:value_model={missing},leaf=draw,greedy"], 2,
     "does not exist"),
    (["mahjong", "arena", "-a", "expectimax-ddqn:deal_in=true,greedy"], 2, "need leaf=draw"),
]


def _command_paths() -> set[str]:
    """Every leaf command of the Typer app, as 'ddz moves', 'arena', ..."""
    paths: set[str] = set()

    def walk(command: object, prefix: tuple[str, ...]) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            paths.add(" ".join(prefix))
            return
        for name, sub in subs.items():
            walk(sub, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return paths


def _row_command(argv: list[str], commands: set[str]) -> str | None:
    for n in (2, 1):
        if " ".join(argv[:n]) in commands:
            return " ".join(argv[:n])
    return None


def test_every_command_has_rows() -> None:
    commands = _command_paths()
    assert len(commands) >= 21  # the app as written in this issue; a new command needs rows
    covered = {_row_command(argv, commands) for argv, _, _ in ROWS}
    assert commands - covered == set()


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("bad-input")
    a_file = root / "a-file.txt"
    a_file.write_text("not a folder\n")
    (root / "empty").mkdir()
    junk = root / "junk"
    junk.write_text("\x00\x01 not [valid = \n")
    pool = root / "pool.txt"
    pool.write_text(f"{Deal.random(1)}\n{Deal.random(2)}\n")
    bad_decks = root / "bad_decks.toml"
    bad_decks.write_text('[[deck]]\nkey = "mine"\nname = "Mine"\ncards = { no_such_card = 1 }\n')
    return {
        "file": str(a_file),
        "dir": str(root / "empty"),
        "missing": str(root / "missing"),
        "under_file": str(a_file / "sub"),
        "junk": str(junk),
        "pool": str(pool),
        "bad_decks": str(bad_decks),
    }


@pytest.mark.parametrize(("argv", "code", "fragment"), ROWS, ids=[" ".join(r[0]) or "(none)" for r in ROWS])
def test_bad_input_is_one_line_and_exit_code_2(
    argv: list[str],
    code: int,
    fragment: str,
    places: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [a.format(**places) for a in argv]
    fragment = fragment.format(**places)
    monkeypatch.chdir(tmp_path)  # `--out ""` must not write into the current folder
    monkeypatch.setenv("COLUMNS", "200")
    assert run(args) == code
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in err + out and "╭" not in err
    assert os.listdir(tmp_path) == []
    assert not Path(places["missing"]).exists()  # refused before anything was written


def test_usage_error_names_the_command_help() -> None:
    """The one line points at the command's own --help."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert run(["ddz", "moves", "33", "--bet", "3"]) == 2
    assert err.getvalue() == (
        "error: No such option: --bet (Possible options: --beat, --beat-type) "
        "(see 'paiju ddz moves --help')\n"
    )


def test_console_script_prints_a_usage_error_as_one_line() -> None:
    """The installed entry point (a fresh process): Typer's usage box is one line too."""
    import subprocess
    import sys

    paiju = Path(sys.executable).with_name("paiju")
    proc = subprocess.run([str(paiju), "ddz", "moves"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "error: Missing argument 'hand'. (see 'paiju ddz moves --help')\n"
