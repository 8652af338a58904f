#!/usr/bin/env python3
"""A local OTLP/HTTP trace receiver for the bench: takes POST /v1/traces (protobuf or JSON), answers 200 with an
empty body of the same type, and counts requests and bytes (printed on SIGTERM/Ctrl-C). Usage: otlp-sink.py PORT"""
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

count = {"requests": 0, "bytes": 0}
lock = threading.Lock()


class Sink(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            count["requests"] += 1
            count["bytes"] += len(body)
        kind = self.headers.get("Content-Type", "application/x-protobuf")
        reply = b"{}" if kind.startswith("application/json") else b""
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink)


def stop(*_):
    print(f"otlp-sink: {count['requests']} requests, {count['bytes']} bytes", flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
server.serve_forever()
