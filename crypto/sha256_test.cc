#include "crypto/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(Sha256Test, MatchesTheFips180_2Vectors) {
  const struct {
    std::string message;
    const char* digest_hex;
  } kVectors[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& vector : kVectors) {
    const std::string digest = Sha256(vector.message);
    EXPECT_EQ(digest.size(), 32u);
    EXPECT_EQ(HexEncode(digest), vector.digest_hex) << vector.message.substr(0, 64);
    EXPECT_EQ(HexEncode(Sha256Digest(vector.message).bytes()), vector.digest_hex)
        << vector.message.substr(0, 64);
  }
}

TEST(Sha256Test, HashesEmbeddedNulBytes) { EXPECT_NE(Sha256(std::string("a\0b", 3)), Sha256("a")); }

TEST(HexEncodeTest, WritesTwoLowerCaseDigitsPerByte) {
  EXPECT_EQ(HexEncode(""), "");
  EXPECT_EQ(HexEncode(std::string("\x00\x01\x7f\x80\xab\xff", 6)), "00017f80abff");
}

TEST(ConstantTimeEqualsTest, EqualOnlyWhenLengthAndEveryByteMatch) {
  const struct {
    std::string a;
    std::string b;
    bool equal;
  } kCases[] = {
      {"", "", true},
      {"secret", "secret", true},
      {std::string("\0x", 2), std::string("\0x", 2), true},
      {"secret", "secreT", false},
      {"secret", "Secret", false},
      {"secret", "secre", false},
      {"secre", "secret", false},
      {"", "x", false},
      {std::string("\0", 1), "", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(ConstantTimeEquals(c.a, c.b), c.equal) << c.a << " vs " << c.b;
  }
}

}  // namespace
}  // namespace verdict
