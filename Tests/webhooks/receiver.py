"""A webhook receiver for the tests, on loopback, and the check of what it received.

    receiver.py serve PORT_FILE LOG_FILE
        Answers POST / with the status the last POST /control set (200 at first), after waiting the `delay` it set,
        and appends every webhook to LOG_FILE as one JSON line: its headers, its body, when it came and what it was
        answered. A line {"event": "received"} is written before the wait, so a test can tell a delivery is under way.
        POST /control takes {"status": 500} and/or {"delay": seconds}.

    receiver.py verify LOG_FILE SECRET...
        Checks every answered webhook's signature with the `standardwebhooks` package (any of the secrets may have
        signed it) and prints, as JSON, each one's webhook-id and payload; exits 1 when any signature is wrong.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {"status": 200, "delay": 0.0}
lock = threading.Lock()


def serve(port_file, log_file):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            if self.path == "/control":
                with lock:
                    state.update(json.loads(body))
                self.send_response(204)
                self.end_headers()
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            with lock:
                status, delay = state["status"], state["delay"]
                with open(log_file, "a") as log:
                    log.write(json.dumps({"event": "received", "id": headers.get("webhook-id")}) + "\n")
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()
            with lock:
                with open(log_file, "a") as log:
                    log.write(json.dumps({
                        "event": "answered", "status": status, "at": time.time(), "headers": headers,
                        "body": body.decode("utf-8"),
                    }) + "\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


def verify(log_file, secrets):
    from standardwebhooks.webhooks import Webhook

    checkers = [Webhook(secret) for secret in secrets]
    results, bad = [], []
    with open(log_file) as log:
        for line in log:
            entry = json.loads(line)
            if entry["event"] != "answered":
                continue
            payload = None
            for checker in checkers:
                try:
                    payload = checker.verify(entry["body"], entry["headers"])
                    break
                except Exception as error:  # noqa: BLE001 - any failure means "not this secret"
                    last = str(error)
            if payload is None:
                bad.append({"id": entry["headers"].get("webhook-id"), "error": last})
                continue
            results.append({"id": entry["headers"]["webhook-id"], "status": entry["status"], "payload": payload,
                            "signatures": entry["headers"]["webhook-signature"].count("v1,")})
    print(json.dumps({"verified": results, "bad": bad}))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    else:
        verify(sys.argv[2], sys.argv[3:])
