#include "decision/ip_network.h"

#include <arpa/inet.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decision/constraint_schema.h"

namespace verdict {
namespace {

using constraint_schema::Invalid;
using constraint_schema::Quoted;
using constraint_schema::RequireType;

// The longest IPv6 text form ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255").
constexpr size_t kMaxIpAddressText = 45;

absl::Status NotAnAddress(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not an IPv4 or IPv6 address"));
}

struct ParsedAddress {
  std::array<uint8_t, 16> bytes{};
  bool written_as_ipv4 = false;
};

// inet_pton is strict where it matters: four decimal octets for IPv4 (no leading zeros, no
// octal, no short forms) and RFC 4291 text for IPv6, including '::' and a trailing dotted quad.
absl::StatusOr<ParsedAddress> ParseAddress(absl::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("is empty, not an IP address");
  if (text.size() > kMaxIpAddressText) {
    return absl::InvalidArgumentError(
        absl::StrCat("is ", text.size(), " bytes, too long for an IP address"));
  }
  // inet_pton reads up to the first NUL; one inside the text would hide what follows it.
  if (text.find('\0') != absl::string_view::npos) {
    return NotAnAddress(text);
  }
  const std::string terminated(text);
  ParsedAddress parsed;
  uint8_t ipv4[4];
  if (inet_pton(AF_INET, terminated.c_str(), ipv4) == 1) {
    parsed.bytes[10] = 0xff;
    parsed.bytes[11] = 0xff;
    std::copy(ipv4, ipv4 + 4, parsed.bytes.begin() + 12);
    parsed.written_as_ipv4 = true;
    return parsed;
  }
  if (inet_pton(AF_INET6, terminated.c_str(), parsed.bytes.data()) == 1) return parsed;
  return NotAnAddress(text);
}

bool InNetwork(const IpNetwork& network, const std::array<uint8_t, 16>& address) {
  const int whole_bytes = network.prefix_length / 8;
  for (int i = 0; i < whole_bytes; ++i) {
    if (network.address[i] != address[i]) return false;
  }
  const int remaining_bits = network.prefix_length % 8;
  if (remaining_bits == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - remaining_bits));
  return (network.address[whole_bytes] & mask) == (address[whole_bytes] & mask);
}

}  // namespace

absl::StatusOr<std::vector<IpNetwork>> ParseIpAllowlist(const JsonValue& value) {
  constexpr absl::string_view kKey = "ip_allowlist";
  if (absl::Status status = RequireType(value, JsonValue::Type::kArray, kKey); !status.ok()) {
    return status;
  }
  if (value.as_array().empty()) {
    return Invalid(kKey, "must list at least one network (an empty list would allow no address)");
  }
  std::vector<IpNetwork> networks;
  for (size_t i = 0; i < value.as_array().size(); ++i) {
    const JsonValue& entry = value.as_array()[i];
    const std::string key = absl::StrCat(kKey, "[", i, "]");
    if (absl::Status status = RequireType(entry, JsonValue::Type::kString, key); !status.ok()) {
      return status;
    }
    absl::StatusOr<IpNetwork> network = ParseIpNetwork(entry.as_string());
    if (!network.ok()) return Invalid(key, network.status().message());
    networks.push_back(*network);
  }
  return networks;
}

absl::StatusOr<std::array<uint8_t, 16>> ParseIpAddress(absl::string_view text) {
  absl::StatusOr<ParsedAddress> parsed = ParseAddress(text);
  if (!parsed.ok()) return parsed.status();
  return parsed->bytes;
}

absl::StatusOr<IpNetwork> ParseIpNetwork(absl::string_view text) {
  const size_t slash = text.find('/');
  absl::StatusOr<ParsedAddress> parsed = ParseAddress(text.substr(0, slash));
  if (!parsed.ok()) return parsed.status();
  IpNetwork network;
  network.address = parsed->bytes;
  const int family_bits = parsed->written_as_ipv4 ? 32 : 128;
  if (slash == absl::string_view::npos) {
    network.prefix_length = 128;
    return network;
  }
  const absl::string_view prefix = text.substr(slash + 1);
  int prefix_length = 0;
  const bool well_formed =
      !prefix.empty() && prefix.size() <= 3 && (prefix.size() == 1 || prefix.front() != '0') &&
      std::all_of(prefix.begin(), prefix.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (well_formed) {
    for (char c : prefix) prefix_length = prefix_length * 10 + (c - '0');
  }
  if (!well_formed || prefix_length > family_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quoted(text), " has a bad prefix length (0 to ", family_bits, ")"));
  }
  // An IPv4 prefix counts from the start of the mapped form's last four bytes.
  network.prefix_length = prefix_length + (128 - family_bits);
  IpNetwork masked = network;
  for (int bit = network.prefix_length; bit < 128; ++bit) {
    masked.address[bit / 8] &= static_cast<uint8_t>(~(0x80 >> (bit % 8)));
  }
  if (masked.address != network.address) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quoted(text), " has address bits set after the /", prefix_length, " prefix"));
  }
  return network;
}

bool IpAllowed(const std::vector<IpNetwork>& allowlist, absl::string_view client_ip) {
  absl::StatusOr<ParsedAddress> address = ParseAddress(client_ip);
  if (!address.ok()) return false;
  return std::any_of(allowlist.begin(), allowlist.end(),
                     [&](const IpNetwork& network) { return InNetwork(network, address->bytes); });
}

}  // namespace verdict
