#!/usr/bin/env python3
"""A webhook receiver for the tests: verifies each delivery with the standardwebhooks
package (PyPI; an implementation of Standard Webhooks independent of Latchkey's) and keeps
the ones that verify. Run it with the python that `scripts/webhook-receiver.sh setup` prints.

    webhook-receiver.py --secret whsec_... [--host H] [--port N] [--dir DIR] [--status CODE]

  --secret S     the endpoint's secret; a delivery must carry a valid v1 signature by it
  --host H       address to listen on (default 127.0.0.1; ::1 for IPv6)
  --port N       port (default 0: a free one)
  --dir DIR      keep each verified delivery as DIR/NNNNNN.json: {"id", "timestamp",
                 "payload" (the parsed body), "traceparent" (or null)}; a delivery
                 that does not verify is kept as DIR/rejected-NNNNNN.json with the reason, and answered 400
  --status CODE  answer verified deliveries with CODE (default 204), e.g. 500 or 410

Prints one line, "READY <port>", on stdout once listening.
"""
import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from receiver_server import serve

parser = argparse.ArgumentParser()
parser.add_argument("--secret", required=True)
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--dir", default=".")
parser.add_argument("--status", type=int, default=204)
arguments = parser.parse_args()
os.makedirs(arguments.dir, exist_ok=True)
webhook = Webhook(arguments.secret)
lock = threading.Lock()


def keep(prefix, record):
    with lock:
        number = len([name for name in os.listdir(arguments.dir) if name.endswith(".json")])
        path = os.path.join(arguments.dir, f"{prefix}{number:06d}.json")
        with open(path + ".tmp", "w") as handle:
            json.dump(record, handle)
        os.rename(path + ".tmp", path)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            payload = webhook.verify(body, headers)
        except WebhookVerificationError as error:
            keep("rejected-", {"reason": str(error), "headers": headers})
            self.send_response(400)
            self.end_headers()
            return
        keep("", {
            "id": headers.get("webhook-id"), "timestamp": headers.get("webhook-timestamp"), "payload": payload,
            "traceparent": headers.get("traceparent"),
        })
        self.send_response(arguments.status)
        self.end_headers()

    def log_message(self, format, *args):
        pass


serve(Handler, arguments.host, arguments.port)
