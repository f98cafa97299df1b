"""Transport limits (issue 16.2): what an attacker on the same host, with no credential, can make
a real verdictd hold through its decision port, and that it gets none of it for long.

Each attack speaks raw HTTP/2 (python3-h2, loopback only), is bounded in connections, bytes and
time, and is followed by the same checks: the process is still running, grpc.health.v1 on a
fresh connection says SERVING, and the peak RSS (VmHWM, reset before the attack) stayed under
the bound the attack states. Attacks that hold calls open also require the server to end them:
every attacking connection closed by the server within max_call_duration (plus slack).

  bazel test //tests/reliability:transport_limits_test
  # the figures of one binary, without asserting (also against a build of older code):
  /usr/bin/python3 tests/reliability/transport_limits_test.py --report \
      --verdictd=bazel-bin/server/verdictd [--old_flags] [--only=trickle] [--flag=--max_memory_mib=256]
  # the assertions against another binary (a build of older code, without the limit flags):
  /usr/bin/python3 tests/reliability/transport_limits_test.py --verdictd=/tmp/old/verdictd --old_flags
"""

import argparse
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.request
import time
import unittest
import zlib

import grpc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack

MIB = 1 << 20
AUTHORIZE = "/verdict.v1.DecisionService/Authorize"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
SERVING = b"\x08\x01"
# verdict.v1.AuthorizeRequest{subject {agent_id: "agt_attacker"}, action: "read",
# resource: "docs:1"}: a well-formed call, answered with a DENY message.
AUTHORIZE_REQUEST = (b"\x0a\x0e\x0a\x0cagt_attacker" + b"\x12\x04read" + b"\x1a\x06docs:1")

# The limits the server under test runs with (the flags below), and the figures derived from
# them that the assertions use.
MAX_MEMORY_MIB = 64
MAX_CALL_DURATION_S = 4
# Every call and connection is ended within max_call_duration of the connection's start (gRPC
# adds up to 10% of jitter to the connection age); the rest is for a loaded 2-core machine.
ENDED_WITHIN_S = MAX_CALL_DURATION_S * 1.1 + 8


def grpc_frame(message: bytes, compressed: bool = False) -> bytes:
    return struct.pack(">BI", 1 if compressed else 0, len(message)) + message


def gzip_bomb(inflated_mib: int) -> bytes:
    """A gzip stream of `inflated_mib` MiB of zero bytes, about 1/1000 of that size. Each MiB is
    compressed after a full flush, so every MiB after the first has the same bytes: the stream is
    built by repetition in a second instead of compressing gigabytes."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip framing
    zeros = bytes(MIB)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    final_block = compressor.flush()[:-8]  # without the trailer, written for the whole stream
    crc = 0
    for _ in range(inflated_mib):
        crc = zlib.crc32(zeros, crc)
    trailer = struct.pack("<II", crc, (inflated_mib * MIB) & 0xFFFFFFFF)
    return first + repeated * (inflated_mib - 1) + final_block + trailer


def request_headers(path: str, extra=()):
    return [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", path),
        (":authority", "verdict"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
        *extra,
    ]


def raw_frame(frame_type: int, flags: int, stream_id: int, payload: bytes) -> bytes:
    length = len(payload)
    return struct.pack(">BHBBI", length >> 16, length & 0xFFFF, frame_type, flags,
                       stream_id) + payload


HEADERS, CONTINUATION, SETTINGS = 0x1, 0x9, 0x4
END_STREAM, END_HEADERS = 0x1, 0x4
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def hpack_integer(value: int, prefix_bits: int, first_byte: int = 0) -> bytes:
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte | value])
    out = [first_byte | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def literal_header_start(name: bytes, value_length: int) -> bytes:
    """HPACK 'literal without indexing, new name' up to the start of a value of that length."""
    return b"\x00" + hpack_integer(len(name), 7) + name + hpack_integer(value_length, 7)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Verdictd:
    """verdictd on a free loopback port, on the demo policy, in a directory of its own, with its
    metrics on another."""

    def __init__(self, binary: str, policy: str, flags):
        self.directory = tempfile.mkdtemp(prefix="verdict-transport-")
        self.metrics_port = free_port()
        self.process = subprocess.Popen(
            [binary, "--listen=127.0.0.1:0", f"--db={self.directory}/verdict.db",
             f"--seed={policy}", f"--metrics_listen=127.0.0.1:{self.metrics_port}", *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        self.address = None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()  # verdictd's log: "<time> INFO verdictd ..."
            if not line:
                break
            if "verdictd serving on " in line:
                self.address = line.split("verdictd serving on ", 1)[1].split()[0]
                break
        # The rest of its log is read and dropped, so its pipe never fills.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()
        if self.address is None:
            self.stop()
            raise RuntimeError("verdictd did not start")
        host, port = self.address.rsplit(":", 1)
        self.host_port = (host, int(port))

    def alive(self) -> bool:
        return self.process.poll() is None

    def reset_peak_rss(self):
        with open(f"/proc/{self.process.pid}/clear_refs", "w") as clear_refs:
            clear_refs.write("5")

    def memory_mib(self, field: str) -> float:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError(field + " not found")

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def metric(self, name: str) -> float:
        """The value of the unlabelled series `name` on /metrics; None when it is not there."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics",
                                    timeout=5) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
        return None

    def health(self, timeout: float = 5) -> bytes:
        with grpc.insecure_channel(self.address) as channel:
            return channel.unary_unary(HEALTH_CHECK)(b"", timeout=timeout)

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def connect(host_port, timeout: float = 5) -> socket.socket:
    sock = socket.create_connection(host_port, timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def closed_by_peer(sock: socket.socket) -> bool:
    """True once the server has closed (or reset) the connection; reads and drops what is there."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1 << 16) == b""
    except OSError:
        return True


def send_all(sock: socket.socket, data: bytes) -> bool:
    """False when the server closed the connection before taking all of `data`."""
    return send_until(sock, data, time.monotonic() + 60) == len(data)


def send_until(sock: socket.socket, data: bytes, deadline: float) -> int:
    """Sends `data` until it is all sent, the server closes the connection or `deadline` passes
    (a server busy elsewhere reads slowly); returns how many bytes the server took."""
    view, sent = memoryview(data), 0
    while sent < len(data) and time.monotonic() < deadline:
        try:
            if not select.select([], [sock], [], 0.2)[1]:
                continue
            sent += sock.send(view[sent:sent + (1 << 16)], socket.MSG_DONTWAIT)
        except BlockingIOError:
            continue
        except OSError:
            break
    return sent


class H2Client:
    """An HTTP/2 client connection that follows the server's flow control (so the server sees a
    well-formed peer) and does only what an attack asks of it."""

    def __init__(self, host_port, initial_window: int = 65535):
        self.sock = connect(host_port)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8", validate_outbound_headers=False))
        self.conn.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE:
                                         initial_window})
        self.conn.initiate_connection()
        self.closed = False  # by the server: the end of the stream read, or a reset
        self.goaway = False
        self.refused = 0
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not send_all(self.sock, data):
            self.closed = True

    def pump(self, timeout: float = 0.0):
        """Reads what the server sent (window updates, settings, resets) without waiting longer
        than `timeout`; answers' data are received but their window is never given back."""
        if self.closed:
            return
        try:
            readable, _, _ = select.select([self.sock], [], [], timeout)
            if not readable:
                return
            data = self.sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return
        if self.goaway:
            return  # after a GOAWAY only the end of the connection is of interest
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.goaway = True
            return
        for event in events:
            if isinstance(event, h2.events.StreamReset):
                self.refused += 1
            if isinstance(event, h2.events.ConnectionTerminated):
                self.goaway = True
        self.flush()

    def open_stream(self, path: str = AUTHORIZE) -> int:
        """Opens a stream with a call's headers (call can_open_stream first)."""
        stream_id = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream_id, request_headers(path))
        self.flush()
        return stream_id

    def can_open_stream(self) -> bool:
        return (not self.closed and not self.goaway and self.conn.open_outbound_streams <
                self.conn.remote_settings.max_concurrent_streams)

    def send_data(self, stream_id: int, data: bytes, end_stream: bool = False) -> int:
        """Sends as much of `data` as the windows allow; returns how many bytes."""
        if self.closed or self.goaway:
            return 0
        try:
            window = min(self.conn.local_flow_control_window(stream_id),
                         self.conn.max_outbound_frame_size)
            chunk = data[:max(0, window)]
            self.conn.send_data(stream_id, chunk, end_stream=end_stream and
                                len(chunk) == len(data))
        except Exception:  # the stream was reset or closed by the server
            return 0
        self.flush()
        return len(chunk)

    def close(self):
        self.sock.close()


class PeakRss:
    """The peak RSS of one attack: VmHWM reset before it, read after it."""

    def __init__(self, server: Verdictd):
        self.server = server
        server.reset_peak_rss()

    def mib(self) -> float:
        return self.server.memory_mib("VmHWM")


def health_or_error(server: Verdictd):
    """True when grpc.health.v1 on a fresh connection answers SERVING; else what it answered."""
    try:
        answer = server.health()
        return True if answer == SERVING else answer
    except grpc.RpcError as error:
        return str(error.code())


def wait_until_closed(clients, start: float, seconds: float) -> float:
    """Seconds from `start` until the server closed every client connection, or None if some
    were still open `seconds` after `start`."""
    while time.monotonic() - start < seconds:
        for client in clients:
            client.pump(0)
        if all(client.closed for client in clients):
            return time.monotonic() - start
        time.sleep(0.05)
    return None


# --- The attacks: each returns a dict of what it saw --------------------------------------------


def attack_gzip_bomb(server: Verdictd, inflated_gib: float = 2.0):
    bomb = gzip_bomb(int(inflated_gib * 1024))
    peak = PeakRss(server)
    client = H2Client(server.host_port)
    stream_id = client.conn.get_next_available_stream_id()
    client.conn.send_headers(stream_id, request_headers(AUTHORIZE, [("grpc-encoding", "gzip")]))
    client.flush()
    frame = grpc_frame(bomb, compressed=True)
    sent, status = 0, None
    deadline = time.monotonic() + 60
    # Sends the message while reading what comes back: the grpc-status of the answer, which may
    # come before the message is all sent.
    while status is None and not client.closed and time.monotonic() < deadline:
        if sent < len(frame):
            sent += client.send_data(stream_id, frame[sent:], end_stream=True)
        try:
            if not select.select([client.sock], [], [], 0.05)[0]:
                continue
            data = client.sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            break
        try:
            events = client.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            break
        for event in events:
            for name, value in getattr(event, "headers", None) or []:
                if name == "grpc-status":
                    status = int(value)
            if isinstance(event, h2.events.StreamReset) and status is None:
                status = "reset"
        client.flush()
    client.close()
    return {"compressed_bytes": len(bomb), "inflated_gib": inflated_gib,
            "sent_mib": round(sent / MIB, 2), "grpc_status": status, "peak_rss_mib": peak.mib()}


def attack_big_header(server: Verdictd, header_bytes: int = 8 * MIB):
    """One header of `header_bytes`, in a HEADERS frame and CONTINUATION frames, sent right after
    the preface, before the server's SETTINGS could be acknowledged (the attacker never does)."""
    peak, cpu = PeakRss(server), server.cpu_seconds()
    sock = connect(server.host_port)
    encoder = hpack.Encoder()
    block = encoder.encode(request_headers(AUTHORIZE)) + \
        literal_header_start(b"x-big", header_bytes) + b"a" * header_bytes
    data = bytearray(PREFACE + raw_frame(SETTINGS, 0, 0, b""))
    chunk = 16384
    for offset in range(0, len(block), chunk):
        last = offset + chunk >= len(block)
        frame_type = HEADERS if offset == 0 else CONTINUATION
        data += raw_frame(frame_type, END_HEADERS if last else 0, 1, block[offset:offset + chunk])
    data += raw_frame(0x0, END_STREAM, 1, grpc_frame(AUTHORIZE_REQUEST))
    start = time.monotonic()
    taken = send_until(sock, bytes(data), start + 60)
    # What came back: an answer with grpc-status (accepted), or the connection closed.
    answered, buffer, deadline = False, b"", time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if not select.select([sock], [], [], 0.2)[0]:
                continue
            received = sock.recv(1 << 16)
        except OSError:
            received = b""
        if not received:
            break
        buffer += received
        if b"grpc-status" in buffer or b"grpc-message" in buffer:
            answered = True
            break
    sock.close()
    return {"header_mib": header_bytes / MIB, "taken_mib": round(taken / MIB, 2),
            "answered": answered, "seconds": round(time.monotonic() - start, 1),
            "server_cpu_s": round(server.cpu_seconds() - cpu, 1), "peak_rss_mib": peak.mib()}


def attack_continuation_flood(server: Verdictd, total_bytes: int = 256 * MIB, seconds: float = 20):
    """A header block that never ends: one literal value announced as 1 GiB, sent as CONTINUATION
    frames until `total_bytes` are sent, `seconds` pass or the server closes the connection."""
    peak, cpu = PeakRss(server), server.cpu_seconds()
    sock = connect(server.host_port)
    encoder = hpack.Encoder()
    first = encoder.encode(request_headers(AUTHORIZE)) + literal_header_start(b"x-flood", 1 << 30)
    opening = PREFACE + raw_frame(SETTINGS, 0, 0, b"") + raw_frame(HEADERS, 0, 1, first)
    continuation = raw_frame(CONTINUATION, 0, 1, b"a" * 16384) * 64  # 1 MiB at a time
    deadline = time.monotonic() + seconds
    sent = send_until(sock, opening, deadline) - len(opening)
    while sent >= 0 and sent < total_bytes and time.monotonic() < deadline:
        taken = send_until(sock, continuation, deadline)
        sent += taken
        if taken < len(continuation):
            break
    closed = closed_by_peer(sock) or send_until(sock, continuation, time.monotonic() + 1) == 0
    sock.close()
    return {"sent_mib": round(max(sent, 0) / MIB, 1), "closed_by_server": closed,
            "server_cpu_s": round(server.cpu_seconds() - cpu, 1), "peak_rss_mib": peak.mib()}


def attack_half_sent(server: Verdictd, connections: int = 4, watch_s: float = 20):
    """On each connection, as many streams as the server allows, each sending most of a 4 MiB
    message (as far as flow control lets it) and then nothing more."""
    peak = PeakRss(server)
    clients = [H2Client(server.host_port) for _ in range(connections)]
    announced = 4 * MIB - 1
    body = struct.pack(">BI", 0, announced) + b"\x00" * (announced - 64 * 1024)
    streams = {id(c): {} for c in clients}
    start = time.monotonic()
    # Open streams and push bytes until the windows stop growing, for at most 10 s.
    while time.monotonic() - start < 10:
        progressed = False
        for client in clients:
            client.pump(0)
            while client.can_open_stream() and len(streams[id(client)]) < 1000:
                streams[id(client)][client.open_stream()] = 0
                progressed = True
            for stream_id, offset in streams[id(client)].items():
                if offset < len(body):
                    n = client.send_data(stream_id, body[offset:offset + 65536])
                    streams[id(client)][stream_id] = offset + n
                    progressed = progressed or n > 0
        if all(client.closed for client in clients):
            break
        if not progressed:
            time.sleep(0.05)
    held = sum(sum(s.values()) for s in streams.values())
    rss_holding = server.memory_mib("VmRSS")
    health_during = health_or_error(server)
    ended_after = wait_until_closed(clients, start, watch_s)
    for client in clients:
        client.close()
    return {"connections": connections,
            "streams": sum(len(s) for s in streams.values()),
            "bytes_held_mib": round(held / MIB, 1), "health_while_held": health_during, "rss_while_held_mib": rss_holding,
            "ended_after_s": ended_after, "rss_after_mib": server.memory_mib("VmRSS"),
            "peak_rss_mib": peak.mib()}


def attack_unread_answers(server: Verdictd, connections: int = 10, watch_s: float = 20):
    """Complete calls on as many streams as allowed; the client gives the server no window, so
    no answer can be sent, and never reads one."""
    peak = PeakRss(server)
    clients = [H2Client(server.host_port, initial_window=0) for _ in range(connections)]
    calls = 0
    start = time.monotonic()
    while time.monotonic() - start < 10:
        progressed = False
        for client in clients:
            client.pump(0)
            while client.can_open_stream() and calls < 100000:
                stream_id = client.open_stream()
                client.send_data(stream_id, grpc_frame(AUTHORIZE_REQUEST), end_stream=True)
                calls += 1
                progressed = True
        if not progressed:
            time.sleep(0.05)
        if all(client.closed for client in clients):
            break
    rss_holding = server.memory_mib("VmRSS")
    health_during = health_or_error(server)
    ended_after = wait_until_closed(clients, start, watch_s)
    for client in clients:
        client.close()
    return {"connections": connections, "calls": calls, "health_while_held": health_during, "rss_while_held_mib": rss_holding,
            "ended_after_s": ended_after, "rss_after_mib": server.memory_mib("VmRSS"),
            "peak_rss_mib": peak.mib()}


def attack_trickle(server: Verdictd, calls: int = 10000, watch_s: float = 20,
                   max_clients: int = 200):
    """`calls` calls, each sending its message one byte at a time, a byte per call every 100 ms,
    on as many connections as it takes (at most `max_clients`)."""
    peak = PeakRss(server)
    clients, streams = [], []  # streams: (client, stream_id)
    start = time.monotonic()
    while len(streams) < calls and len(clients) < max_clients and time.monotonic() - start < 20:
        client = H2Client(server.host_port)
        clients.append(client)
        client.pump(0.2)  # the server's SETTINGS: how many streams it allows
        while client.can_open_stream() and len(streams) < calls:
            streams.append((client, client.open_stream()))
    opened = time.monotonic()
    message = grpc_frame(b"\x0a" * 64)
    sent = {}
    trickle_until = time.monotonic() + 5
    while time.monotonic() < trickle_until:
        for client, stream_id in streams:
            offset = sent.get((id(client), stream_id), 0)
            if offset < len(message) and not client.closed:
                if client.send_data(stream_id, message[offset:offset + 1]):
                    sent[(id(client), stream_id)] = offset + 1
        for client in clients:
            client.pump(0)
        time.sleep(0.1)
    rss_holding = server.memory_mib("VmRSS")
    health_during = health_or_error(server)
    ended_after = wait_until_closed(clients, opened, watch_s)
    refused = sum(client.refused for client in clients)
    for client in clients:
        client.close()
    return {"calls_open": len(streams), "connections": len(clients), "refused": refused,
            "health_while_held": health_during, "rss_while_held_mib": rss_holding, "ended_after_s": ended_after,
            "peak_rss_mib": peak.mib()}


# --- The test -----------------------------------------------------------------------------------


def runfile(path: str) -> str:
    base = os.environ.get("TEST_SRCDIR")
    if base:
        return os.path.join(base, os.environ.get("TEST_WORKSPACE", "verdict"), path)
    return path


LIMIT_FLAGS = [f"--max_memory_mib={MAX_MEMORY_MIB}", "--max_connections=100",
               f"--max_call_duration={MAX_CALL_DURATION_S}s"]


class TransportLimitsTest(unittest.TestCase):
    binary = None  # set from the command line; the runfile by default
    flags = LIMIT_FLAGS
    # How many times the memory of an uninstrumented build the verdictd under test takes for
    # the same work: 1; 8 for a ThreadSanitizer build, 6 for an AddressSanitizer one (the BUILD
    # file passes them under --config=tsan and --config=asan). TSan keeps shadow memory beside
    # every byte the program touches, 5 to 10 times its memory by TSan's own documentation (the
    # trickle attack peaked at 993 MiB under TSan against a 192 MiB bound). Every RSS bound
    # scales with it, and so does what an unbounded attack holds (590 and 362 MB uninstrumented,
    # RELIABILITY.md), so the bounds still tell the two apart.
    memory_factor = 1

    # A fresh server for each attack, so one attack's leftovers do not count against the next
    # (memory freed to the allocator mostly stays in the process's RSS).
    def setUp(self):
        self.server = Verdictd(self.binary or runfile("server/verdictd"),
                               runfile("deploy/demo-policy.json"), self.flags)

    def tearDown(self):
        self.server.stop()

    def assert_survived(self, seen, rss_bound_mib: float):
        print(seen, flush=True)
        self.assertTrue(self.server.alive(), "verdictd ended")
        self.assertEqual(self.server.health(), SERVING)
        self.assertLess(seen["peak_rss_mib"], rss_bound_mib * self.memory_factor)

    def assert_held_calls_ended(self, seen):
        self.assertIs(seen["health_while_held"], True, "health did not answer during the attack")
        self.assertIsNotNone(seen["ended_after_s"], "the server still holds the attack's calls")
        self.assertLess(seen["ended_after_s"], ENDED_WITHIN_S)

    def test_a_compressed_request_is_refused_without_being_inflated(self):
        seen = attack_gzip_bomb(self.server)
        self.assert_survived(seen, rss_bound_mib=64)
        # Only identity encoding is accepted: gRPC refuses the call as UNIMPLEMENTED.
        self.assertEqual(seen["grpc_status"], 12)

    def test_a_header_over_the_metadata_limit_is_refused(self):
        seen = attack_big_header(self.server)
        self.assert_survived(seen, rss_bound_mib=64)
        self.assertFalse(seen["answered"])

    def test_a_header_block_that_never_ends_is_cut_off(self):
        seen = attack_continuation_flood(self.server)
        self.assert_survived(seen, rss_bound_mib=64)
        self.assertTrue(seen["closed_by_server"])
        # Ended by verdict's connection guard, which says so to the operator.
        self.assertEqual(self.server.metric("verdict_connections_ended_oversized_headers_total"), 1)
        # What the kernel's socket buffers took before the close, not what verdictd holds.
        self.assertLess(seen["sent_mib"], 32)

    def test_half_sent_messages_are_ended(self):
        seen = attack_half_sent(self.server, watch_s=ENDED_WITHIN_S + 1)
        # The connection guard ends the connections once their half-sent messages hold half of
        # the memory quota (peaks of 39 to 61 MiB measured; 78 to 125 MiB when only gRPC's
        # quota bounded them, behind the guard's former relay: RELIABILITY.md, transport limits).
        self.assert_survived(seen, rss_bound_mib=MAX_MEMORY_MIB + 96)
        self.assert_held_calls_ended(seen)
        self.assertGreaterEqual(self.server.metric("verdict_connections_ended_half_sent_total"), 1)

    def test_calls_whose_answers_are_never_read_are_ended(self):
        seen = attack_unread_answers(self.server, watch_s=ENDED_WITHIN_S + 1)
        self.assert_survived(seen, rss_bound_mib=128)
        self.assert_held_calls_ended(seen)

    def test_calls_trickling_a_byte_at_a_time_are_ended(self):
        # One connection short of --max_connections, so that the health probe does not end one
        # of the attack's (connection_exhaustion_test holds them all).
        seen = attack_trickle(self.server, watch_s=ENDED_WITHIN_S + 1, max_clients=99)
        # About 12 KiB of gRPC's call state per open call, which its memory quota does not stop:
        # bounded by --max_connections x 100 streams (9,900 calls here).
        self.assert_survived(seen, rss_bound_mib=192)
        self.assert_held_calls_ended(seen)


def report(binary: str, policy: str, flags, watch_s: float, only: str):
    """Runs every attack once against `binary` and prints what it saw, asserting nothing."""
    attacks = [
        ("gzip bomb", lambda s: attack_gzip_bomb(s)),
        ("8 MiB header", lambda s: attack_big_header(s)),
        ("CONTINUATION flood", lambda s: attack_continuation_flood(s)),
        ("half-sent messages", lambda s: attack_half_sent(s, watch_s=watch_s)),
        ("unread answers", lambda s: attack_unread_answers(s, watch_s=watch_s)),
        ("trickle", lambda s: attack_trickle(s, watch_s=watch_s)),
    ]
    for name, attack in attacks:
        if only and only not in name:
            continue
        # A fresh server for each, so one attack's leftovers do not count against the next.
        server = Verdictd(binary, policy, flags)
        try:
            idle = server.memory_mib("VmRSS")
            started = time.monotonic()
            seen = attack(server)
            seen["idle_rss_mib"] = idle
            seen["seconds"] = round(time.monotonic() - started, 1)
            seen["alive"] = server.alive()
            try:
                seen["health"] = server.health() == SERVING
            except grpc.RpcError as error:
                seen["health"] = str(error.code())
            print(f"{name}: {seen}", flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--verdictd", default="bazel-bin/server/verdictd")
    parser.add_argument("--policy", default="deploy/demo-policy.json")
    parser.add_argument("--old_flags", action="store_true",
                        help="run without the limit flags (a binary that predates them)")
    parser.add_argument("--watch", type=float, default=30)
    parser.add_argument("--only", default="", help="run the attacks whose name holds this")
    parser.add_argument("--flag", action="append", default=[],
                        help="another verdictd flag (--flag=--max_memory_mib=32)")
    parser.add_argument("--memory_factor", type=float, default=1,
                        help="scale every RSS bound (8 for a ThreadSanitizer build of verdictd)")
    args, rest = parser.parse_known_args()
    TransportLimitsTest.memory_factor = args.memory_factor
    flags = ([] if args.old_flags else LIMIT_FLAGS) + args.flag
    if args.report:
        report(args.verdictd, args.policy, flags, args.watch, args.only)
    else:
        if "--verdictd" in " ".join(sys.argv):  # another binary than the runfile (older code)
            TransportLimitsTest.binary = args.verdictd
            TransportLimitsTest.flags = flags
        unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
