#!/usr/bin/env python3
"""Holds many idle and slow connections open against a server, for the connection-cap test.

    connection-flood.py --port N [--count 1200] [--sources 20] [--rounds 10]

  --port N       the server's port on 127.0.0.1
  --count N      connections to try (default 1200)
  --sources N    loopback addresses to connect from, 127.0.1.1 and up (default 20), as that
                 many clients would
  --rounds N     how many times the slow half sends one more byte, every half second

Every second connection sends the start of a request head and then trickles a byte at a
time. A connection the server refuses or closes at once is fine: it is not counted. Prints
"READY <opened>" once the connections are open, and holds them until it is terminated.

The flood runs here rather than in the test process so that the test process keeps few file
descriptors: Foundation's `Process.run()` on Linux (through Swift 6.3) lists
/proc/self/fd with a 256-byte copy per entry that can read past the end of a full listing
buffer, and crashes another test's process launch while 1,200 sockets are open.
"""
import argparse
import resource
import socket
import threading
import time

HEAD = b"POST /passkey/challenge HTTP/1.1\r\nHost: loc"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    # Room for every connection, whatever soft limit was inherited.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.count + 64 if hard == resource.RLIM_INFINITY else min(hard, args.count + 64)
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))

    slow = []
    opened = []
    for index in range(args.count):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            connection.settimeout(5)
            connection.bind((f"127.0.1.{1 + index % args.sources}", 0))
            connection.connect(("127.0.0.1", args.port))
            if index % 2 == 1:
                connection.sendall(HEAD)
                slow.append(connection)
        except OSError:
            connection.close()
            continue
        opened.append(connection)
    print(f"READY {len(opened)}", flush=True)

    def trickle():
        for _ in range(args.rounds):
            for connection in slow:
                try:
                    connection.send(b"a")
                except OSError:
                    pass
            time.sleep(0.5)

    threading.Thread(target=trickle, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
