"""What the tests' receivers share (webhook-receiver.py, backchannel-receiver.py,
otlp-receiver.py, ssf-receiver.py): serving a request handler on a host and port, IPv4 or
IPv6, announced on stdout as "READY <port>" for the test that started it."""
import socket
from http.server import ThreadingHTTPServer


def serve(handler, host, port):
    """Serves `handler` (a BaseHTTPRequestHandler class) for ever, a thread per request."""

    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    server = Server((host, port), handler)
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()
