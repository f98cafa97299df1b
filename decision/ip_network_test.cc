#include "decision/ip_network.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

std::array<uint8_t, 16> Address(absl::string_view text) {
  absl::StatusOr<std::array<uint8_t, 16>> address = ParseIpAddress(text);
  EXPECT_TRUE(address.ok()) << text << ": " << address.status();
  return address.ok() ? *address : std::array<uint8_t, 16>{};
}

IpNetwork Network(absl::string_view text) {
  absl::StatusOr<IpNetwork> network = ParseIpNetwork(text);
  EXPECT_TRUE(network.ok()) << text << ": " << network.status();
  return network.ok() ? *network : IpNetwork{};
}

TEST(ParseIpAddress, HoldsIpv4AsMappedIpv6) {
  const std::array<uint8_t, 16> expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
  EXPECT_EQ(Address("192.0.2.7"), expected);
  EXPECT_EQ(Address("::ffff:192.0.2.7"), expected);
  EXPECT_EQ(Address("::ffff:c000:207"), expected);
}

TEST(ParseIpAddress, ReadsIpv6TextForms) {
  const std::array<uint8_t, 16> loopback = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(Address("::1"), loopback);
  EXPECT_EQ(Address("0:0:0:0:0:0:0:1"), loopback);
  EXPECT_EQ(Address("::"), (std::array<uint8_t, 16>{}));
  EXPECT_EQ(Address("2001:DB8::1"), Address("2001:db8:0:0:0:0:0:1"));
  const std::array<uint8_t, 16> full = {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8};
  EXPECT_EQ(Address("1:2:3:4:5:6:7:8"), full);
  const std::array<uint8_t, 16> embedded = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                            0,    0,    0,    0,    1, 2, 3, 4};
  EXPECT_EQ(Address("2001:db8::1.2.3.4"), embedded);
}

TEST(ParseIpAddress, RefusesAnythingButOneStrictAddress) {
  const std::string kRefused[] = {
      "",
      "010.0.0.1",  // a leading zero could mean octal elsewhere
      "1.2.3.04",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "0x1.2.3.4",
      "1.2.3.4 ",
      " 1.2.3.4",
      "[::1]",
      "fe80::1%eth0",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7:8:9",
      "::ffff:01.2.3.4",
      "localhost",
      std::string(1000, '1'),
      std::string("1.2.3.4\0", 8),
  };
  for (const std::string& text : kRefused) {
    EXPECT_EQ(ParseIpAddress(text).status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(ParseIpNetwork, CountsAnIpv4PrefixWithinTheMappedForm) {
  const struct {
    const char* text;
    int prefix_length;
  } kCases[] = {
      {"10.0.0.0/8", 104},  {"192.0.2.7", 128},           {"192.0.2.7/32", 128},
      {"0.0.0.0/0", 96},    {"2001:db8::/32", 32},        {"::/0", 0},
      {"2001:db8::1", 128}, {"::ffff:10.0.0.0/104", 104},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Network(c.text).prefix_length, c.prefix_length) << c.text;
  }
  EXPECT_EQ(Network("10.0.0.0/8").address, Address("10.0.0.0"));
}

TEST(ParseIpNetwork, RefusesBadPrefixesAndHostBits) {
  const char* kRefused[] = {
      "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/",     "10.0.0.0/08",
      "10.0.0.0/-1", "10.0.0.0/+8",    "10.0.0.0/8/8",  "/8",
      "10.0.0.1/8",  "2001:db8::1/32", "10.0.0.0/1000",
  };
  for (const char* text : kRefused) {
    EXPECT_EQ(ParseIpNetwork(text).status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(IpAllowed, AllowsAddressesInsideAnyListedNetwork) {
  const std::vector<IpNetwork> allowlist = {Network("10.0.0.0/9"), Network("2001:db8::/32"),
                                            Network("192.0.2.7")};
  const struct {
    const char* client_ip;
    bool allowed;
  } kCases[] = {
      {"10.1.2.3", true},
      {"10.127.255.255", true},  // the last address of a prefix that ends mid-byte
      {"10.128.0.0", false},
      {"11.0.0.0", false},
      {"::ffff:10.1.2.3", true},  // an IPv4-mapped address is the IPv4 address
      {"2001:db8:1::5", true},
      {"2001:db9::", false},
      {"192.0.2.7", true},
      {"192.0.2.8", false},
      {"", false},
      {"not an address", false},
      {"010.1.2.3", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IpAllowed(allowlist, c.client_ip), c.allowed) << c.client_ip;
  }
}

TEST(IpAllowed, AnIpv4NetworkNeverMatchesAnIpv6Address) {
  EXPECT_TRUE(IpAllowed({Network("0.0.0.0/0")}, "203.0.113.9"));
  EXPECT_FALSE(IpAllowed({Network("0.0.0.0/0")}, "2001:db8::1"));
  EXPECT_TRUE(IpAllowed({Network("::/0")}, "2001:db8::1"));
  EXPECT_TRUE(IpAllowed({Network("::/0")}, "203.0.113.9"));
  EXPECT_FALSE(IpAllowed({}, "203.0.113.9"));
}

}  // namespace
}  // namespace verdict
