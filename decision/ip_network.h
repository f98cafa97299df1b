// IP addresses and networks for a grant's "ip_allowlist" (decision/constraints.h): IPv4 and
// IPv6, a bare address or CIDR.
//
//   ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"]
//
// An IPv4 network never matches an IPv6 address, nor the reverse, except through the
// IPv4-mapped form (::ffff:a.b.c.d), which is how IPv4 is held.
#ifndef VERDICT_DECISION_IP_NETWORK_H_
#define VERDICT_DECISION_IP_NETWORK_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace verdict {

// An IPv4 or IPv6 network. IPv4 is held as an IPv4-mapped IPv6 address (::ffff:a.b.c.d), so
// one comparison serves both families.
struct IpNetwork {
  std::array<uint8_t, 16> address{};
  int prefix_length = 128;
};

// Parses "192.0.2.7" or "2001:db8::1" (no zone ids, no brackets) into the mapped form.
absl::StatusOr<std::array<uint8_t, 16>> ParseIpAddress(absl::string_view text);
// Parses "10.0.0.0/8", "2001:db8::/32" or a bare address (a /32 or /128 network).
absl::StatusOr<IpNetwork> ParseIpNetwork(absl::string_view text);
// The "ip_allowlist" member of a grant's constraints: a non-empty array of networks;
// INVALID_ARGUMENT naming the entry otherwise.
absl::StatusOr<std::vector<IpNetwork>> ParseIpAllowlist(const JsonValue& value);
// True when client_ip parses and falls in one of the networks; an empty or unparsable
// client_ip is never allowed.
bool IpAllowed(const std::vector<IpNetwork>& allowlist, absl::string_view client_ip);

}  // namespace verdict

#endif  // VERDICT_DECISION_IP_NETWORK_H_
