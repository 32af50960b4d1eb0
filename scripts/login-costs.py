#!/usr/bin/env python3
"""What one login costs, measured on a running deployment on PostgreSQL.

    scripts/login-costs.py --database postgres://… [--part NAME=PID …] [--interval 1] [--seconds 60]

While any load runs against Latchkey on that database, samples once per interval
PostgreSQL's own counters (pg_stat_wal, pg_stat_database), Latchkey's audit events (logins
and sign-ups), and the CPU time of each named part (a process and its descendants: an
instance, PostgreSQL's postmaster, nginx, PgBouncer). It then reports, over the longest
stretch in which logins went on and no sign-up happened, the logins per second and, per
login: WAL bytes, WAL records, full-page images, WAL flushes (fsyncs), commits, and each
part's CPU milliseconds. Stops after --seconds or on Ctrl-C. Needs `psql` (Debian's
postgresql-client), PostgreSQL 14 or later (pg_stat_wal), and Linux's /proc.

Sampling counts the audit events, a little database work of its own that writes nothing:
the WAL figures are the load's alone, PostgreSQL's CPU includes the sampling (about one
index-only count per interval).
"""

import argparse
import os
import signal
import subprocess
import sys
import time

QUERY = """
SELECT w.wal_bytes, w.wal_records, w.wal_fpi, w.wal_sync, d.xact_commit,
       (SELECT count(*) FROM audit_events WHERE kind = 'login'),
       (SELECT count(*) FROM audit_events WHERE kind = 'signup')
FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = current_database()
"""
COUNTERS = ["WAL bytes", "WAL records", "full-page images", "WAL flushes", "commits"]
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(root):
    """CPU seconds (user + system) of a process and its descendants; None once it is gone."""
    children, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = int(fields[11]) + int(fields[12])
    if root not in cpu:
        return None
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0)
        todo += children.get(pid, [])
    return total / TICK


def sample(database, parts, previous):
    output = subprocess.run(
        ["psql", database, "-X", "-A", "-t", "-F", " ", "-c", QUERY], check=True, capture_output=True, text=True
    ).stdout.split()
    return {
        "time": time.monotonic(),
        "counters": [int(float(value)) for value in output[:5]],
        "logins": int(output[5]),
        "signups": int(output[6]),
        # A part that has ended keeps the time it had: its work is done.
        "cpu": {name: tree_cpu(pid) or (previous["cpu"][name] if previous else 0) for name, pid in parts},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True, help="the postgres:// URL the server uses")
    parser.add_argument("--part", action="append", default=[], metavar="NAME=PID", help="a process tree whose CPU to count")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    arguments = parser.parse_args()
    parts = []
    for part in arguments.part:
        name, _, pid = part.partition("=")
        if not pid.isdigit():
            parser.error(f"--part {part}: expected NAME=PID")
        parts.append((name, int(pid)))

    stopping = []
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    samples = []
    deadline = time.monotonic() + arguments.seconds
    print(f"sampling {arguments.database.split('@')[-1]} every {arguments.interval} s", file=sys.stderr)
    while not stopping and time.monotonic() < deadline:
        try:
            samples.append(sample(arguments.database, parts, samples[-1] if samples else None))
        except subprocess.CalledProcessError as error:
            print(f"psql failed: {error.stderr.strip()}", file=sys.stderr)
            return 1
        time.sleep(arguments.interval)

    # The longest stretch with one sign-up count and growing logins.
    best, start = None, 0
    for end in range(1, len(samples) + 1):
        if end == len(samples) or samples[end]["signups"] != samples[start]["signups"]:
            last = end - 1
            if last > start and samples[last]["logins"] > samples[start]["logins"]:
                gained = samples[last]["logins"] - samples[start]["logins"]
                if best is None or gained > samples[best[1]]["logins"] - samples[best[0]]["logins"]:
                    best = (start, last)
            start = end
    if best is None:
        print("no stretch of logins without sign-ups was seen", file=sys.stderr)
        return 1
    first, last = samples[best[0]], samples[best[1]]
    logins = last["logins"] - first["logins"]
    seconds = last["time"] - first["time"]
    print(f"{logins} logins in {seconds:.1f} s without sign-ups: {logins / seconds:.0f} logins/s; per login:")
    for index, name in enumerate(COUNTERS):
        print(f"  {name}: {(last['counters'][index] - first['counters'][index]) / logins:.2f}")
    for name, _ in parts:
        print(f"  {name} CPU: {(last['cpu'][name] - first['cpu'][name]) * 1000 / logins:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
