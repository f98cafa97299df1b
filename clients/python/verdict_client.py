"""A small Python client for verdict's DecisionService (and Envoy's ext_authz Check).

Installed as the verdict-client package (README.md): build_package.sh generates the verdict.v1
message and stub modules from proto/ with grpc_tools and builds a wheel that carries them.

    client = VerdictClient("127.0.0.1:50051")
    decision = client.authorize(agent_id="agt_demo_reader", action="read", resource="docs:guide:1")
    if decision.verdict == decision_pb2.VERDICT_ALLOW: ...

Errors are grpc.RpcError: INVALID_ARGUMENT for a malformed request, UNAVAILABLE when verdict
cannot read its store. Treat every error as a deny.
"""

import grpc

from verdict.v1 import decision_pb2
from verdict.v1 import decision_pb2_grpc

DEFAULT_TIMEOUT_SECONDS = 2.0


def subject(agent_id=None, token=None):
    """The subject of a decision: an agent id or an agent token, exactly one."""
    if (agent_id is None) == (token is None):
        raise ValueError("give exactly one of agent_id and token")
    if agent_id is not None:
        return decision_pb2.Subject(agent_id=agent_id)
    return decision_pb2.Subject(token=token)


def authorize_request(action, resource, agent_id=None, token=None, client_ip="",
                      arguments_json="", request_id=""):
    return decision_pb2.AuthorizeRequest(
        subject=subject(agent_id=agent_id, token=token),
        action=action,
        resource=resource,
        context=decision_pb2.RequestContext(client_ip=client_ip, arguments_json=arguments_json,
                                            request_id=request_id))


class VerdictClient:
    """DecisionService over one channel; safe to share between threads."""

    def __init__(self, target, timeout=DEFAULT_TIMEOUT_SECONDS):
        self._channel = grpc.insecure_channel(target)
        self._stub = decision_pb2_grpc.DecisionServiceStub(self._channel)
        self._timeout = timeout

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def authorize(self, action, resource, **kwargs):
        """An AuthorizeResponse; kwargs as authorize_request's."""
        return self._stub.Authorize(authorize_request(action, resource, **kwargs),
                                    timeout=self._timeout)

    def validate_token(self, token):
        """A ValidateTokenResponse: an invalid token is valid=False with a reason, not an error."""
        return self._stub.ValidateToken(decision_pb2.ValidateTokenRequest(token=token),
                                        timeout=self._timeout)

    def simulate(self, action, resource, what_if=None, **kwargs):
        """A SimulateResponse (decision and trace); nothing is written. what_if: a WhatIf."""
        request = decision_pb2.SimulateRequest(request=authorize_request(action, resource,
                                                                         **kwargs))
        if what_if is not None:
            request.what_if.CopyFrom(what_if)
        return self._stub.Simulate(request, timeout=self._timeout)
