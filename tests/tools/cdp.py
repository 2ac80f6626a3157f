"""cdp: drive headless Chromium through the Chrome DevTools Protocol with
the Python standard library only (a minimal WebSocket client), and decode
the PNG screenshots it takes. Used by test_browser.py.

    with Browser(testcase) as b:          # starts /usr/bin/chromium
        page = b.new_page()               # a tab, attached (flat session)
        page.call("Page.navigate", url=...)
        page.evaluate("document.title")
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import zlib

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-extensions", "--mute-audio",
                  "--hide-scrollbars", "--remote-debugging-port=0",
                  "--remote-debugging-address=127.0.0.1"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class WebSocket:
    """A client WebSocket (RFC 6455) over a plain TCP socket: text frames,
    masked as a client must, fragmented messages, ping/pong, close."""

    def __init__(self, url, timeout=30):
        assert url.startswith("ws://"), url
        hostport, _, path = url[5:].partition("/")
        host, _, port = hostport.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("WebSocket handshake: connection closed")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise ConnectionError("WebSocket handshake refused: " + status.decode(errors="replace"))
        self.buf = rest

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("WebSocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        """The next text message."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            if opcode == 0x8:
                raise ConnectionError("WebSocket closed by the browser")
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()

    def close(self):
        try:
            self._send_frame(0x8, b"")
        except OSError:
            pass
        self.sock.close()


class CdpError(Exception):
    pass


class Connection:
    """One WebSocket to the browser; commands by id, events kept in order."""

    def __init__(self, url):
        self.ws = WebSocket(url)
        self.next_id = 0
        self.events = []

    def call(self, method, session=None, timeout=30, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer to {method} in {timeout} s")
            m = json.loads(self.ws.recv())
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session=None, timeout=30):
        """The first not yet taken event `method` (of `session`)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and (session is None or e.get("sessionId") == session):
                    return self.events.pop(i)
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} event in {timeout} s")
            self.ws.sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                m = json.loads(self.ws.recv())
            except socket.timeout:
                continue
            finally:
                self.ws.sock.settimeout(30)
            if "method" in m:
                self.events.append(m)


class Page:
    """A tab attached with a flat session."""

    def __init__(self, conn, session):
        self.conn = conn
        self.session = session

    def call(self, method, timeout=30, **params):
        return self.conn.call(method, session=self.session, timeout=timeout, **params)

    def wait_event(self, method, timeout=30):
        return self.conn.wait_event(method, session=self.session, timeout=timeout)

    def events(self, method):
        return [e for e in self.conn.events
                if e["method"] == method and e.get("sessionId") == self.session]

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise CdpError(f"{expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button,
                  clickCount=clicks)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)

    def screenshot(self, clip=None):
        params = {"format": "png"}
        if clip:
            params["clip"] = clip
        return base64.b64decode(self.call("Page.captureScreenshot", timeout=60, **params)["data"])


class Browser:
    """Headless Chromium with a new profile directory, reached over CDP."""

    def __init__(self, testcase, width=1280, height=900):
        self.testcase = testcase
        self.width, self.height = width, height

    def __enter__(self):
        exe = find_chromium()
        self.testcase.assertIsNotNone(exe, "chromium is needed (scripts/install-deps.sh --test)")
        self.dir = tempfile.mkdtemp(prefix="hp-chromium-")
        self.log = open(os.path.join(self.dir, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            [exe] + CHROMIUM_FLAGS + [f"--user-data-dir={self.dir}/profile",
                                      f"--window-size={self.width},{self.height}",
                                      "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        port_file = os.path.join(self.dir, "profile", "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while True:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                with open(os.path.join(self.dir, "chromium.log")) as f:
                    self.testcase.fail("chromium did not start: " + f.read()[-2000:])
            time.sleep(0.05)
        self.conn = Connection(f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}")
        return self

    def new_page(self):
        target = self.conn.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.conn.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        page = Page(self.conn, session)
        page.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                  deviceScaleFactor=1, mobile=False)
        return page

    def __exit__(self, *exc):
        try:
            if getattr(self, "conn", None):
                try:
                    self.conn.call("Browser.close", timeout=10)
                except Exception:
                    pass
                self.conn.ws.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        finally:
            self.log.close()
            shutil.rmtree(self.dir, True)
        return False


# ---------------------------------------------------------------------------
# PNG decoding (8-bit RGB/RGBA, non-interlaced: what Chromium writes)

def decode_png(data):
    """Returns (width, height, channels, rows) with rows a list of bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos = 8
    idat = []
    width = height = channels = None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows = []
    prev = bytearray(stride)
    bpp = channels
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def colour_counts(png):
    """{(r, g, b): pixels} of a PNG."""
    width, _h, ch, rows = decode_png(png)
    counts = {}
    for row in rows:
        for x in range(0, width * ch, ch):
            px = (row[x], row[x + 1], row[x + 2])
            counts[px] = counts.get(px, 0) + 1
    return counts


def hex_rgb(colour):
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
