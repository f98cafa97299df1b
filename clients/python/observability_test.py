"""verdictd's metrics and JSON decision log, read after clients have called it.

    VERDICT_METRICS_URL=http://127.0.0.1:9464/metrics VERDICT_JSON_LOG=/tmp/decisions.jsonl \
        VERDICT_SECRETS=vdt_...,vdt_... /usr/bin/python3 observability_test.py

The clients' calls must have happened first (scripts/test.d/clients.sh runs this last).
VERDICT_SECRETS lists tokens that were sent to verdictd and must never appear in its log.
"""

import json
import os
import re
import unittest
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def scrape():
    with urllib.request.urlopen(os.environ["VERDICT_METRICS_URL"], timeout=5) as response:
        return response.headers.get("Content-Type"), response.read().decode("utf-8")


def samples(text):
    """{(name, labels): value} for every sample line; fails on a line that is not one."""
    found = {}
    for line in text.splitlines():
        if not line or line.startswith("# HELP ") or line.startswith("# TYPE "):
            continue
        match = SAMPLE.match(line)
        if match is None:
            raise AssertionError("not a Prometheus sample line: %r" % line)
        found[(match.group(1), match.group(2) or "")] = float(match.group(3))
    return found


class MetricsTest(unittest.TestCase):
    def test_scrape_reports_rpcs_decisions_and_build(self):
        content_type, text = scrape()
        self.assertTrue(content_type.startswith("text/plain; version=0.0.4"), content_type)
        values = samples(text)
        authorize = ('grpc_service="verdict.v1.DecisionService",grpc_method="Authorize"')
        self.assertGreater(values[("verdict_grpc_server_handled_total",
                                   "{%s,grpc_code=\"OK\"}" % authorize)], 0)
        self.assertGreater(values[("verdict_grpc_server_handled_total",
                                   "{%s,grpc_code=\"INVALID_ARGUMENT\"}" % authorize)], 0)
        self.assertGreater(values[("verdict_grpc_server_handling_seconds_count",
                                   "{%s}" % authorize)], 0)
        self.assertEqual(values[("verdict_grpc_server_in_flight", "{%s}" % authorize)], 0)
        self.assertGreater(values[("verdict_decisions_total",
                                   '{verdict="ALLOW",reason="ALLOWED"}')], 0)
        self.assertGreater(values[("verdict_decisions_total",
                                   '{verdict="DENY",reason="DENIED_BY_POLICY"}')], 0)
        self.assertEqual(values[("verdict_store_errors_total", "")], 0)
        # The hash-chained decision log says what it could not keep.
        self.assertGreaterEqual(values[("verdict_decision_log_written_total", "")], 0)
        self.assertEqual(values[("verdict_decision_log_dropped_total", "")], 0)
        self.assertEqual(values[("verdict_decision_log_failed_total", "")], 0)
        self.assertTrue(any(name == "verdict_build_info" and value == 1
                            for (name, _), value in values.items()))

    def test_other_paths_are_not_found(self):
        url = os.environ["VERDICT_METRICS_URL"].replace("/metrics", "/debug")
        with self.assertRaises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(url, timeout=5)
        self.assertEqual(raised.exception.code, 404)


class JsonLogTest(unittest.TestCase):
    def setUp(self):
        with open(os.environ["VERDICT_JSON_LOG"]) as f:
            self.text = f.read()
        self.lines = [json.loads(line) for line in self.text.splitlines()]

    def test_one_line_per_decision(self):
        self.assertGreater(len(self.lines), 0)
        for line in self.lines:
            self.assertEqual(line["event"], "decision")
            self.assertIn(line["verdict"], ("ALLOW", "DENY", "NEEDS_APPROVAL"))
            self.assertTrue(line["reason"])
        self.assertIn("py-1", [line["request_id"] for line in self.lines])

    def test_tokens_never_appear(self):
        for secret in filter(None, os.environ.get("VERDICT_SECRETS", "").split(",")):
            self.assertNotIn(secret, self.text)
        by_token = [line for line in self.lines if line["subject"] == "token"]
        self.assertGreater(len(by_token), 0, "no decision by token was logged")
        for line in by_token:
            self.assertEqual(len(line["token_prefix"]), 12)


if __name__ == "__main__":
    unittest.main(verbosity=2)
