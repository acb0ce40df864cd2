#!/usr/bin/env python3
"""Issue 25's benchmark row: root's `bgctl daemon status` against a root backgroundd, alone and
while one local user (uid 65534, through setpriv) holds 2,000 connections to the daemon's socket
and sends 1 MiB frames it never finishes on 1,024 of them. Prints the latencies (p50, p99, max)
of both runs side by side and the daemon's RSS before, under and after the attack.

Usage (as root, after `swift build -c release --product backgroundd --product bgctl`):
    python3 scripts/bench-hostile-neighbours.py [--runs 100] [--build .build/release]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ATTACKER = r'''
import resource, socket, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
path, count, framed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held, refused = [], 0
for index in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        if index < framed:
            s.setblocking(False)
            try:
                # A 1 MiB frame announced, then 60 KiB of it, never the rest.
                s.send((1 << 20).to_bytes(4, "big") + b"\x07" * 60000)
            except (BlockingIOError, OSError):
                pass
        held.append(s)
    except OSError:
        refused += 1
        s.close()
print(f"{len(held)} {refused}", flush=True)
sys.stdin.read()  # hold every connection until told to stop
'''


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def status_latencies(bgctl, socket_path, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run([bgctl, "daemon", "status", "--socket", socket_path, "--json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
        times.append((time.perf_counter() - start) * 1000)
        if result.returncode != 0:
            sys.exit(f"bgctl daemon status failed: {result.stderr.decode().strip()}")
    return times


def summary(times):
    return {"p50": round(percentile(times, 0.5), 1), "p99": round(percentile(times, 0.99), 1),
            "max": round(max(times), 1)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--build", default=".build/release")
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--framed", type=int, default=1024)
    options = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the daemon is root's and the attacker another uid")
    backgroundd = os.path.abspath(os.path.join(options.build, "backgroundd"))
    bgctl = os.path.abspath(os.path.join(options.build, "bgctl"))
    state = tempfile.mkdtemp(prefix="hostile-")
    os.chmod(state, 0o711)
    socket_path = os.path.join(state, "run", "backgroundd.sock")
    daemon = subprocess.Popen([backgroundd, "--state-dir", state, "--socket", socket_path, "--log-level", "error"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    attacker = None
    try:
        for _ in range(600):
            if os.path.exists(socket_path):
                break
            time.sleep(0.05)
        time.sleep(0.5)
        rss_idle = rss_kib(daemon.pid)
        quiet = status_latencies(bgctl, socket_path, options.runs)
        attacker = subprocess.Popen(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", ATTACKER,
             socket_path, str(options.connections), str(options.framed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        held, refused = attacker.stdout.readline().split()
        time.sleep(1)
        rss_attacked = rss_kib(daemon.pid)
        attacked = status_latencies(bgctl, socket_path, options.runs)
        rss_attacked = max(rss_attacked, rss_kib(daemon.pid))
        attacker.stdin.close()
        attacker.wait(timeout=30)
        time.sleep(1)
        rss_after = rss_kib(daemon.pid)
        print(json.dumps({
            "runs": options.runs,
            "attack": {"connections": options.connections, "unfinishedFrames": options.framed,
                       "connectedByTheAttacker": int(held), "refusedAtConnect": int(refused)},
            "statusMilliseconds": {"quiet": summary(quiet), "underAttack": summary(attacked)},
            "daemonRSSMiB": {"idle": round(rss_idle / 1024, 1), "underAttack": round(rss_attacked / 1024, 1),
                             "after": round(rss_after / 1024, 1)},
        }, indent=2))
    finally:
        if attacker and attacker.poll() is None:
            attacker.kill()
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
