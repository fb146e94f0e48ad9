// base/base64: the encodings OAuth and the Mcp-Param-* headers put on the
// wire, and a decoder that refuses what is not an encoding.
#include "base/base64.h"

#include <catch2/catch.hpp>

#include <string>

namespace mcpgw::base {
namespace {

TEST_CASE("base64 matches RFC 4648's test vectors", "[base][base64]") {
  CHECK(Base64("") == "");
  CHECK(Base64("f") == "Zg==");
  CHECK(Base64("fo") == "Zm8=");
  CHECK(Base64("foo") == "Zm9v");
  CHECK(Base64("foob") == "Zm9vYg==");
  CHECK(Base64("fooba") == "Zm9vYmE=");
  CHECK(Base64("foobar") == "Zm9vYmFy");
  CHECK(Base64("user:pass") == "dXNlcjpwYXNz");  // an HTTP Basic credential
  CHECK(Base64(std::string("\0", 1)) == "AA==");
}

TEST_CASE("base64url uses '-' and '_' and no padding", "[base][base64]") {
  const std::string bytes = "\xfb\xff\xbf";  // every 6-bit group is 62 or 63
  CHECK(Base64(bytes) == "+/+/");
  CHECK(Base64Url(bytes) == "-_-_");
  CHECK(Base64Url("f") == "Zg");
  CHECK(Base64Url("fo") == "Zm8");
  CHECK(Base64Url("") == "");
}

TEST_CASE("long input round-trips through every chunk", "[base][base64]") {
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes += static_cast<char>(i * 7 % 256);
  const std::string text = Base64(bytes);
  CHECK(text.size() == (bytes.size() + 2) / 3 * 4);
  CHECK(
      text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") ==
      std::string::npos);
  CHECK(DecodeBase64(text) == bytes);
  CHECK(DecodeBase64(Base64Url(bytes)) == bytes);
}

TEST_CASE("decoding takes either alphabet, padded or not", "[base][base64]") {
  CHECK(DecodeBase64("eyJzdWIiOiJ4In0") == "{\"sub\":\"x\"}");  // a JWT payload
  CHECK(DecodeBase64("eyJzdWIiOiJ4In0=") == "{\"sub\":\"x\"}");
  CHECK(DecodeBase64("Zm9vYg") == "foob");
  CHECK(DecodeBase64("Zm9vYg==") == "foob");
  CHECK(DecodeBase64("Zm9vYmE") == "fooba");
  CHECK(DecodeBase64("-_-_") == "\xfb\xff\xbf");
  CHECK(DecodeBase64("+/+/") == "\xfb\xff\xbf");
  CHECK(DecodeBase64("") == "");
  // Trailing '-' is data in base64url (OpenSSL alone takes it for the end of a
  // PEM line and drops it).
  CHECK(DecodeBase64("----") == "\xfb\xef\xbe");
  // Every byte value comes back, NULs included (no padded length leaks out).
  CHECK(DecodeBase64("AA") == std::string("\0", 1));
  CHECK(DecodeBase64("AAA=") == std::string("\0\0", 2));
}

TEST_CASE("decoding refuses what is not an encoding", "[base][base64]") {
  for (const char* bad : {
           "a",       // a length no encoding has
           "Zm9vY",   // the same, after whole groups
           "ab$d",    // a character of neither alphabet
           " Zm9v",   // whitespace, which OpenSSL would skip
           "Zm9v\n",  //
           "Zm 9v",   //
           "Zg=",     // padding that does not complete the group
           "Zg===",   // too much of it
           "Zm9v=",   // padding after a whole group
           "Zm=v",    // '=' inside the text
           "====",    //
           "-_+/",    // both alphabets at once
       }) {
    INFO(bad);
    CHECK_FALSE(DecodeBase64(bad));
  }
}

}  // namespace
}  // namespace mcpgw::base
