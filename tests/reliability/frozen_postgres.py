"""Health when PostgreSQL freezes (issue 16.3), measured by hand: verdictd on a PostgreSQL
database with 8 threads calling Authorize (1 s deadline); every PostgreSQL process is stopped
(SIGSTOP) for 6 s, health Check probed every 100 ms (500 ms deadline), then continued. Prints how
long after the stop health first answered NOT_SERVING, how many probes got no answer, and how
long after the continue it said SERVING again. Needs root (or the cluster's owner) to signal the
server's processes.

  url=$(scripts/pg-test-cluster.sh start /tmp/verdict-pg 55432)
  /usr/bin/python3 tests/reliability/frozen_postgres.py bazel-bin/server/verdictd "$url" \
      /tmp/verdict-pg/data [RUNS]
  scripts/pg-test-cluster.sh stop /tmp/verdict-pg
"""

import os
import signal
import subprocess
import sys
import threading
import time

import grpc

HEALTH_CHECK = "/grpc.health.v1.Health/Check"
AUTHORIZE = "/verdict.v1.DecisionService/Authorize"
# verdict.v1.AuthorizeRequest{subject {agent_id: "agt_x"}, action: "read", resource: "docs:1"}
AUTHORIZE_REQUEST = b"\x0a\x07\x0a\x05agt_x" + b"\x12\x04read" + b"\x1a\x06docs:1"
SERVING, NOT_SERVING = b"\x08\x01", b"\x08\x02"


def probe(channel):
    try:
        answer = channel.unary_unary(HEALTH_CHECK)(b"", timeout=0.5)
        return {SERVING: "SERVING", NOT_SERVING: "NOT_SERVING"}.get(answer, repr(answer))
    except grpc.RpcError as error:
        return str(error.code())


def run_once(verdictd, url, datadir):
    process = subprocess.Popen([verdictd, "--listen=127.0.0.1:0", f"--db={url}",
                                "--admin_listen=off"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # verdictd logs on stderr; its address is on the line that says where it serves. The rest
    # of stderr is drained so that verdictd never blocks on a full pipe.
    address = None
    for line in process.stderr:
        if "serving on " in line:
            address = line.split("serving on ")[1].split(" ")[0]
            break
    if address is None:
        raise SystemExit("verdictd stopped before serving")
    threading.Thread(target=lambda: process.stderr.read(), daemon=True).start()
    stopping = threading.Event()

    def traffic():
        with grpc.insecure_channel(address) as channel:
            authorize = channel.unary_unary(AUTHORIZE)
            while not stopping.is_set():
                try:
                    authorize(AUTHORIZE_REQUEST, timeout=1)
                except grpc.RpcError:
                    pass

    threads = [threading.Thread(target=traffic, daemon=True) for _ in range(8)]
    for thread in threads:
        thread.start()
    channel = grpc.insecure_channel(address)
    time.sleep(2)  # traffic under way: every pooled connection in use
    before = probe(channel)
    postmaster = int(open(os.path.join(datadir, "postmaster.pid")).readline())
    children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(postmaster)],
                              capture_output=True, text=True).stdout.split()
    pids = [postmaster] + [int(pid) for pid in children]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    frozen = time.monotonic()
    not_serving_at, probes, unanswered = None, 0, 0
    while time.monotonic() - frozen < 6:
        asked = time.monotonic()
        answer = probe(channel)
        probes += 1
        if answer == "NOT_SERVING" and not_serving_at is None:
            not_serving_at = asked - frozen
        if answer not in ("SERVING", "NOT_SERVING"):
            unanswered += 1
        time.sleep(0.1)
    for pid in pids:
        os.kill(pid, signal.SIGCONT)
    thawed = time.monotonic()
    serving_at = None
    while time.monotonic() - thawed < 20 and serving_at is None:
        if probe(channel) == "SERVING":
            serving_at = time.monotonic() - thawed
        else:
            time.sleep(0.1)
    stopping.set()
    channel.close()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    return before, not_serving_at, unanswered, probes, serving_at


def main():
    verdictd, url, datadir = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    for run in range(runs):
        before, not_serving_at, unanswered, probes, serving_at = run_once(verdictd, url, datadir)
        print(f"run {run + 1}: health {before} before; NOT_SERVING "
              f"{'never' if not_serving_at is None else f'{not_serving_at:.2f} s'} after the stop; "
              f"{unanswered} of {probes} probes unanswered; SERVING again "
              f"{'never' if serving_at is None else f'{serving_at:.2f} s'} after the continue",
              flush=True)


if __name__ == "__main__":
    main()
