"""A `grundy view` run for the tests (test_view.py, test_view_access.py)."""

import http.client
import signal
import subprocess
import time
import urllib.parse


class Server:
    """A `grundy view` on a free port; get() carries its token in the cookie that the page's
    own requests carry, so that the paths go out exactly as written."""

    def __init__(self, exe, path, *extra):
        self.proc = subprocess.Popen([exe, "view", str(path), "--port", "0", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line.startswith("http://127.0.0.1:"), (line, self.proc.stderr.read())
        self.url = line
        parts = urllib.parse.urlsplit(line)
        self.port = parts.port
        self.token = urllib.parse.parse_qs(parts.query).get("token", [None])[0]
        self.cookie = f"grundy-view-{self.port}"

    def request(self, path, headers=(), token=True):
        """(status, headers, body) of GET `path`."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.putrequest("GET", path, skip_accept_encoding=True)  # the path exactly as given
        if token and self.token:
            c.putheader("Cookie", f"{self.cookie}={self.token}")
        for name, value in headers:
            c.putheader(name, value)
        c.endheaders()
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, r.headers, body

    def get(self, path):
        status, _, body = self.request(path)
        return status, body

    def stop(self):
        """SIGTERM, then the exit status and how long it took (waited for generously: a loaded
        machine may take seconds, and the status is what counts)."""
        self.proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        rc = self.proc.wait(timeout=120)
        return rc, time.monotonic() - start

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
