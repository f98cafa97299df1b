"""Health under connection exhaustion (issue 16): an attacker on the same host holds every one of
verdictd's --max_connections connections, each with a call trickling its message a byte every
100 ms so that none of them is idle, and a grpc.health.v1 Check on a fresh connection must still
answer SERVING within PROBE_WITHIN_S. Before the connection guard made room for new
connections, it was refused until the connections' age ended them (--max_call_duration).

  bazel test //tests/reliability:connection_exhaustion_test
  # against another binary (a build of older code):
  /usr/bin/python3 tests/reliability/connection_exhaustion_test.py --verdictd=/tmp/old/verdictd
"""

import argparse
import sys
import threading
import time
import unittest

import grpc

from transport_limits_test import (H2Client, SERVING, Verdictd, grpc_frame, runfile)

MAX_CONNECTIONS = 100
# Long enough that no connection is retired by its age during the test.
MAX_CALL_DURATION_S = 120
# A probe's deadline: a Kubernetes gRPC probe's default timeout is 1 s; the rest is for a loaded
# 2-core machine.
PROBE_WITHIN_S = 3
PROBES = 5


class Trickler:
    """Holds `count` connections, each with one call whose message goes out a byte every 100 ms,
    on a thread of its own, until stopped."""

    def __init__(self, server: Verdictd, count: int):
        self.clients, self.streams = [], []
        for _ in range(count):
            client = H2Client(server.host_port)
            client.pump(0.2)  # the server's SETTINGS
            self.clients.append(client)
            self.streams.append(client.open_stream() if client.can_open_stream() else None)
        self.message = grpc_frame(b"\x0a" * 4096)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        sent = 0
        while not self.stopping.is_set() and sent < len(self.message):
            for client, stream_id in zip(self.clients, self.streams):
                if stream_id is not None and not client.closed:
                    client.send_data(stream_id, self.message[sent:sent + 1])
                client.pump(0)
            sent += 1
            self.stopping.wait(0.1)

    def open_connections(self) -> int:
        for client in self.clients:
            client.pump(0)
        return sum(not client.closed for client in self.clients)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        for client in self.clients:
            client.close()


def probe(server: Verdictd):
    """(seconds, answer) of one health Check on a fresh connection; the answer is True for
    SERVING, else what came back."""
    started = time.monotonic()
    try:
        with grpc.insecure_channel(server.address,
                                   options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            answer = channel.unary_unary("/grpc.health.v1.Health/Check")(
                b"", timeout=PROBE_WITHIN_S)
        return time.monotonic() - started, answer == SERVING or answer
    except grpc.RpcError as error:
        return time.monotonic() - started, str(error.code())


class ConnectionExhaustionTest(unittest.TestCase):
    binary = None  # the runfile unless the command line names another

    def setUp(self):
        self.server = Verdictd(self.binary or runfile("server/verdictd"),
                               runfile("deploy/demo-policy.json"),
                               [f"--max_connections={MAX_CONNECTIONS}",
                                f"--max_call_duration={MAX_CALL_DURATION_S}s"])

    def tearDown(self):
        self.server.stop()

    def test_health_answers_while_an_attacker_holds_every_connection(self):
        attacker = Trickler(self.server, MAX_CONNECTIONS)
        try:
            held = attacker.open_connections()
            self.assertEqual(held, MAX_CONNECTIONS, "the attacker did not get every connection")
            probes = [probe(self.server) for _ in range(PROBES)]
            still_held = attacker.open_connections()
        finally:
            attacker.stop()
        print({"held": held, "probes": [(round(s, 3), a) for s, a in probes],
               "attacker_connections_left": still_held}, flush=True)
        for seconds, answer in probes:
            self.assertIs(answer, True, f"health answered {answer} after {seconds:.2f} s")
            self.assertLess(seconds, PROBE_WITHIN_S)
        # Each probe took the place of one attacking connection, no more: the limit holds.
        self.assertGreaterEqual(still_held, MAX_CONNECTIONS - PROBES)
        self.assertTrue(self.server.alive())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--verdictd", default=None)
    args, rest = parser.parse_known_args()
    ConnectionExhaustionTest.binary = args.verdictd
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
