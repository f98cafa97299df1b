"""verdict's Python client against a running verdictd seeded with deploy/demo-policy.json.

    VERDICT_ADDR=127.0.0.1:50051 VERDICT_STUBS=/tmp/stubs VENV/bin/python -P verdict_client_test.py

The client is the installed package (clients/python/build_package.sh, then pip install into a
virtual environment; -P keeps this directory off sys.path), and with VERDICT_EXPECT_INSTALLED=1
the test checks that it is. VERDICT_STUBS, when set, is where grpc_tools generated the modules
the ext_authz tests need (envoy and google.rpc). VERDICT_MESH_ADDR, when set, is a verdictd
seeded with deploy/mesh-demo-policy.json: the mesh walkthrough runs against it, revoking the
agent with the command in VERDICT_REVOKE_CMD ("{agent}" in it becomes the agent's id).
"""

import json
import os
import shlex
import subprocess
import sys
import unittest

if os.environ.get("VERDICT_STUBS"):
    sys.path.append(os.environ["VERDICT_STUBS"])

import grpc  # noqa: E402

import verdict_client  # noqa: E402
from verdict.v1 import decision_pb2  # noqa: E402
from verdict_client import VerdictClient  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def demo_policy(name):
    with open(os.path.join(REPO, "deploy", name)) as f:
        return json.load(f)


def token_of(policy, agent_id):
    return next(a["token"] for a in policy["agents"] if a["id"] == agent_id)


class InstalledPackageTest(unittest.TestCase):
    def test_the_client_comes_from_the_installed_package(self):
        if os.environ.get("VERDICT_EXPECT_INSTALLED") != "1":
            self.skipTest("VERDICT_EXPECT_INSTALLED not set")
        self.assertIn(sys.prefix, sys.executable)
        self.assertNotEqual(sys.prefix, sys.base_prefix, "not run from a virtual environment")
        for module in (verdict_client, decision_pb2):
            path = os.path.abspath(module.__file__)
            self.assertTrue(path.startswith(os.path.abspath(sys.prefix) + os.sep), path)
            self.assertFalse(path.startswith(REPO + os.sep), path)


class DecisionServiceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = VerdictClient(os.environ["VERDICT_ADDR"])
        cls.reader_token = token_of(demo_policy("demo-policy.json"), "agt_demo_reader")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def test_authorize_allows_what_a_permission_grants(self):
        decision = self.client.authorize("read", "docs:guide:1", agent_id="agt_demo_reader",
                                         request_id="py-1")
        self.assertEqual(decision.verdict, decision_pb2.VERDICT_ALLOW)
        self.assertEqual(decision.reason, decision_pb2.REASON_CODE_ALLOWED)
        self.assertEqual(decision.agent_id, "agt_demo_reader")
        self.assertEqual(decision.matched_grant.permission_id, "perm_demo_docs_read")
        self.assertEqual(decision.request_id, "py-1")

    def test_authorize_deny_overrides_allow(self):
        decision = self.client.authorize("read", "docs:secret:1", agent_id="agt_demo_reader")
        self.assertEqual(decision.verdict, decision_pb2.VERDICT_DENY)
        self.assertEqual(decision.reason, decision_pb2.REASON_CODE_DENIED_BY_POLICY)

    def test_authorize_by_token(self):
        decision = self.client.authorize("read", "docs:guide:1", token=self.reader_token)
        self.assertEqual(decision.verdict, decision_pb2.VERDICT_ALLOW)
        self.assertEqual(decision.agent_id, "agt_demo_reader")

    def test_authorize_through_a_delegation(self):
        decision = self.client.authorize("read", "docs:guide:2", agent_id="agt_demo_assistant")
        self.assertEqual(decision.verdict, decision_pb2.VERDICT_ALLOW)
        self.assertEqual([hop.delegation_id for hop in decision.delegation_path],
                         ["dlg_demo_reader_to_assistant"])

    def test_malformed_request_is_invalid_argument(self):
        with self.assertRaises(grpc.RpcError) as raised:
            self.client.authorize("", "docs:guide:1", agent_id="agt_demo_reader")
        self.assertEqual(raised.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)

    def test_validate_token_names_the_agent_and_its_permissions(self):
        answer = self.client.validate_token(self.reader_token)
        self.assertTrue(answer.valid)
        self.assertEqual(answer.reason, decision_pb2.REASON_CODE_ALLOWED)
        self.assertEqual(answer.agent.id, "agt_demo_reader")
        self.assertIn("perm_demo_docs_read",
                      [p.grant.permission_id for p in answer.permissions])

    def test_validate_token_answers_invalid_without_an_error(self):
        answer = self.client.validate_token("vdt_" + "A" * 43)
        self.assertFalse(answer.valid)
        self.assertEqual(answer.reason, decision_pb2.REASON_CODE_TOKEN_INVALID)

    def test_simulate_explains_and_matches_authorize(self):
        simulated = self.client.simulate("read", "docs:secret:1", agent_id="agt_demo_reader")
        self.assertEqual(simulated.decision.verdict, decision_pb2.VERDICT_DENY)
        self.assertEqual(simulated.decision.reason, decision_pb2.REASON_CODE_DENIED_BY_POLICY)
        self.assertGreater(len(simulated.trace.stages), 0)
        self.assertGreater(len(simulated.trace.grants), 0)

    def test_simulate_what_if_adds_a_permission_without_writing_it(self):
        what_if = decision_pb2.WhatIf(extra_permissions=[decision_pb2.PermissionSpec(
            resource="reports:*", actions=["read"], effect=decision_pb2.EFFECT_ALLOW)])
        simulated = self.client.simulate("read", "reports:q3", agent_id="agt_demo_reader",
                                         what_if=what_if)
        self.assertEqual(simulated.decision.verdict, decision_pb2.VERDICT_ALLOW)
        real = self.client.authorize("read", "reports:q3", agent_id="agt_demo_reader")
        self.assertEqual(real.verdict, decision_pb2.VERDICT_DENY)
        self.assertEqual(real.reason, decision_pb2.REASON_CODE_NO_MATCHING_PERMISSION)


class MeshWalkthroughTest(unittest.TestCase):
    """deploy/README.md's walkthrough without a cluster: the CheckRequests Envoy would send."""

    def setUp(self):
        if not os.environ.get("VERDICT_MESH_ADDR"):
            self.skipTest("VERDICT_MESH_ADDR not set")
        from envoy.service.auth.v3 import attribute_context_pb2  # noqa: F401
        from envoy.service.auth.v3 import external_auth_pb2
        from envoy.service.auth.v3 import external_auth_pb2_grpc
        self.pb = external_auth_pb2
        self.channel = grpc.insecure_channel(os.environ["VERDICT_MESH_ADDR"])
        self.stub = external_auth_pb2_grpc.AuthorizationStub(self.channel)
        self.token = token_of(demo_policy("mesh-demo-policy.json"), "agt_docs_reader")

    def tearDown(self):
        self.channel.close()

    def check(self, method, path, token):
        request = self.pb.CheckRequest()
        attributes = request.attributes
        attributes.source.address.socket_address.address = "10.244.1.5"
        attributes.source.address.socket_address.port_value = 41234
        http = attributes.request.http
        http.id = "mesh-walkthrough"
        http.method = method
        http.path = path
        http.host = "docs"
        http.scheme = "http"
        http.protocol = "HTTP/1.1"
        http.headers[":method"] = method
        http.headers[":path"] = path
        http.headers["user-agent"] = "curl/8.5.0"
        if token:
            http.headers["authorization"] = "Bearer " + token
        return self.stub.Check(request, timeout=2)

    @staticmethod
    def header(headers, key):
        return next((h.header.value for h in headers if h.header.key == key), None)

    def test_allowed_then_denied_after_a_revoke(self):
        allowed = self.check("GET", "/api/docs/7?page=2", self.token)
        self.assertEqual(allowed.status.code, 0)
        self.assertTrue(allowed.HasField("ok_response"))
        self.assertEqual(self.header(allowed.ok_response.headers, "x-verdict-agent-id"),
                         "agt_docs_reader")

        secret = self.check("GET", "/api/docs/secret/1", self.token)
        self.assertEqual(secret.denied_response.status.code, 403)
        self.assertEqual(self.header(secret.denied_response.headers, "x-verdict-reason"),
                         "DENIED_BY_POLICY")

        anonymous = self.check("GET", "/api/docs/7", None)
        self.assertEqual(anonymous.denied_response.status.code, 401)
        self.assertEqual(self.header(anonymous.denied_response.headers, "x-verdict-reason"),
                         "TOKEN_MISSING")

        revoke = os.environ["VERDICT_REVOKE_CMD"].replace("{agent}", "agt_docs_reader")
        subprocess.run(shlex.split(revoke), check=True)

        revoked = self.check("GET", "/api/docs/7?page=2", self.token)
        self.assertNotEqual(revoked.status.code, 0)
        self.assertFalse(revoked.HasField("ok_response"))
        self.assertEqual(revoked.denied_response.status.code, 401)
        self.assertEqual(self.header(revoked.denied_response.headers, "x-verdict-reason"),
                         "AGENT_REVOKED")


if __name__ == "__main__":
    unittest.main(verbosity=2)
