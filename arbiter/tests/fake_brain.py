#!/usr/bin/env python3
"""A scripted Gomocup brain for the manager's tests.

    fake_brain.py MODE LOG

Plays the first empty point in reading order, and appends every line it reads to LOG.
MODE makes it misbehave on its second move of a game (the first is always played, so the
manager's TURN path is exercised before the fault):
  good       never misbehaves
  crash      exits with status 3 after printing to stderr
  crashonce  crashes as crash does in the first game any of its processes plays (it leaves
             LOG.crashed behind), then never again
  hang       never answers
  illegal    answers 0,0 (taken by then) or, if free, a point off the board
  garbage    answers "hello"
  chatty     sends MESSAGE and DEBUG lines before each move (not a fault)
  norestart  answers UNKNOWN to RESTART (the manager must start a new process)
  dropturn   drops the first TURN of each game as unpatched Rapfi drops a command that
             arrives while it is still finishing its move: the word is lost and its
             argument read as a command of its own ("ERROR Unknown command: X,Y")
  hasty      drops, silently, any line but END (as Rapfi) that arrives within 20 ms of
             its move (the manager waits longer than that before it sends anything)
  slow       thinks 250 ms on every move (its match clock runs out, not its turn clock)
  norule     answers ERROR to INFO rule (it refuses to play the game's rule)
  dropinfo   drops the first INFO time_left of each game as dropturn drops a TURN
             ("ERROR Unknown command: time_left N"), then plays the move asked after it
"""
import os
import sys
import time

mode, log_path = sys.argv[1], sys.argv[2]
log = open(log_path, "a")
size = 0
stones = {}
moves_this_game = 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def move():
    global moves_this_game, moved_at
    moves_this_game += 1
    if moves_this_game == 2:
        if mode == "crashonce" and not os.path.exists(log_path + ".crashed"):
            open(log_path + ".crashed", "w").close()
            sys.stderr.write("fake brain: segmentation fault (pretend, once)\n")
            sys.stderr.flush()
            sys.exit(3)
        if mode == "crash":
            sys.stderr.write("fake brain: segmentation fault (pretend)\n")
            sys.stderr.flush()
            sys.exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "illegal":
            say("0,0" if (0, 0) in stones else "%d,0" % size)
            return
        if mode == "garbage":
            say("hello")
            return
    if mode == "slow":
        time.sleep(0.25)
    if mode == "chatty":
        say("MESSAGE thinking hard")
        say("DEBUG depth 3")
    for y in range(size):
        for x in range(size):
            if (x, y) not in stones:
                stones[(x, y)] = 1
                # Timed before the move is sent: the manager cannot see it any earlier.
                moved_at = time.monotonic()
                say("%d,%d" % (x, y))
                return


board = None
moved_at = 0.0
turns_dropped = 0
for line in sys.stdin:
    line = line.strip()
    log.write(line + "\n")
    log.flush()
    if mode == "hasty" and line.upper() != "END" and time.monotonic() - moved_at < 0.020:
        log.write("(dropped)\n")
        log.flush()
        continue
    if board is not None:
        if line.upper() == "DONE":
            stones = board
            board = None
            move()
        else:
            x, y, f = (int(v) for v in line.split(","))
            board[(x, y)] = f
        continue
    word, _, rest = line.partition(" ")
    word = word.upper()
    if word == "START":
        size = int(rest)
        stones = {}
        moves_this_game = 0
        turns_dropped = 0
        say("OK")
    elif word == "RESTART":
        if mode == "norestart":
            say("UNKNOWN RESTART")
        else:
            stones = {}
            moves_this_game = 0
            turns_dropped = 0
            say("OK")
    elif word == "BEGIN":
        move()
    elif word == "TURN" and mode == "dropturn" and turns_dropped < 1:
        turns_dropped += 1
        say("ERROR Unknown command: " + rest)
    elif word == "TURN":
        x, y = (int(v) for v in rest.split(","))
        stones[(x, y)] = 2
        move()
    elif word == "BOARD":
        board = {}
    elif word == "INFO" and mode == "dropinfo" and rest.startswith("time_left") and turns_dropped < 1:
        turns_dropped += 1
        say("ERROR Unknown command: " + rest)
    elif word == "INFO" and mode == "norule" and rest.lower().startswith("rule"):
        say("ERROR this brain plays no rule but its own")
    elif word == "INFO":
        pass
    elif word == "ABOUT":
        say('name="fake", version="1"')
    elif word == "END":
        sys.exit(0)
    else:
        say("UNKNOWN " + word)
